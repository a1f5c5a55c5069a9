"""The shipped systemd unit (maui_py/daemon/data/mauid.service) and its printer."""

from __future__ import annotations

import configparser
import tomllib
from pathlib import Path

import pytest

from maui_py.daemon import unit
from maui_py.daemon.loop import CALL_TIMEOUT_FACTOR, DEFAULT_RM_TIMEOUT, RM_BACKOFF_MAX

REPO = Path(__file__).resolve().parents[2]


def parsed(text: str) -> configparser.ConfigParser:
    cp = configparser.ConfigParser(interpolation=None, strict=False)
    cp.optionxform = str
    cp.read_string(text)
    return cp


def test_the_unit_is_a_notify_service_with_a_watchdog_that_outlasts_an_outage():
    svc = parsed(unit.shipped_unit())["Service"]
    assert svc["Type"] == "notify" and svc["NotifyAccess"] == "main"
    assert svc["ExecStart"].endswith("--foreground")            # Type=notify: mauid must not detach
    assert svc["ExecReload"] == "/bin/kill -HUP $MAINPID"
    assert set(svc["RestartPreventExitStatus"].split()) == {"2", "3"}
    # the unit's comment: 600 s covers RMPOLLINTERVAL 1 minute with the default TIMEOUT
    worst = 60 * RM_BACKOFF_MAX + CALL_TIMEOUT_FACTOR * DEFAULT_RM_TIMEOUT
    assert int(svc["WatchdogSec"]) >= worst and int(svc["TimeoutStartSec"]) >= CALL_TIMEOUT_FACTOR * DEFAULT_RM_TIMEOUT


def test_the_printed_unit_names_this_mauid_and_config(tmp_path):
    text = unit.unit_for("/opt/venv/bin/mauid", "/srv/maui/maui.cfg")
    assert parsed(text)["Service"]["ExecStart"] == "/opt/venv/bin/mauid -c /srv/maui/maui.cfg --foreground"
    assert text.count("ExecStart=") == 1


def test_the_wheel_ships_the_unit():
    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    shipped = [p for pattern in data["maui_py.daemon"] for p in (REPO / "maui_py" / "daemon").glob(pattern)]
    assert [p.name for p in shipped] == ["mauid.service"]


def test_the_printer_refuses_a_path_systemd_would_split(capsys):
    with pytest.raises(SystemExit) as e:
        unit.main(["-c", "/srv/my maui/maui.cfg"])
    assert e.value.code == 2 and "white space" in capsys.readouterr().err
    assert unit.main(["-c", "/srv/maui/maui.cfg"]) == 0
    assert " -c /srv/maui/maui.cfg --foreground" in capsys.readouterr().out
