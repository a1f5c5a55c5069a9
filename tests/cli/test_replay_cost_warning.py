"""maui-sim and its whatif warn before a replay under MAUICOMPAT 3.3 with RESERVATIONPOLICY
HIGHEST (Maui's own re-make: the replay cycles each second while kept reservations go
round, core/compat.replay_cost), naming where MAUICOMPAT was set and the measured cost;
no such warning for the same configuration without either setting, nor with --poll."""

from __future__ import annotations

from pathlib import Path

import pytest

from maui_py.cli.check_config import replay_cost_lines
from maui_py.cli.main import maui_sim_main
from maui_py.cli.whatif import main as whatif_main
from maui_py.cfg.loader import parse_config
from maui_py.core.compat import REPLAY_COST_MEASURED

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "adapters" / "data" / "sacct"
CONS = "QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 100000\n"
WARNED = "RESERVATIONPOLICY HIGHEST\nMAUICOMPAT 3.3\n"


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if "warning: MAUICOMPAT 3.3 with RESERVATIONPOLICY" in line]


@pytest.mark.parametrize("extra, warned", [
    (WARNED, True),
    ("RESERVATIONPOLICY HIGHEST\n", False),
    ("RESERVATIONPOLICY CURRENTHIGHEST\nMAUICOMPAT 3.3\n", False),
    ("MAUICOMPAT 3.3\n", False),                 # the default policy is CURRENTHIGHEST
])
def test_maui_sim_warns_of_the_replay_cost_only_under_maui33_highest(tmp_path, capsys, extra, warned):
    cfg = tmp_path / "c.cfg"
    cfg.write_text(CONS + extra)
    assert maui_sim_main(["-c", str(cfg), "--synthetic", "20", "-q"]) == 0
    got = _warnings(capsys.readouterr().err)
    if warned:
        line = cfg.read_text().splitlines().index("MAUICOMPAT 3.3") + 1
        assert len(got) == 1 and got[0].startswith(f"maui-sim: {cfg}:{line}: warning: ")
        assert REPLAY_COST_MEASURED in got[0] and "each second" in got[0]
    else:
        assert got == []


def test_maui_sim_does_not_warn_with_a_poll_interval(tmp_path, capsys):
    # with --poll the replay cycles on the interval's ticks only: no rotation each second
    cfg = tmp_path / "c.cfg"
    cfg.write_text(CONS + WARNED)
    assert maui_sim_main(["-c", str(cfg), "--synthetic", "20", "-q", "--poll", "60"]) == 0
    assert _warnings(capsys.readouterr().err) == []


def test_whatif_warns_for_the_variant_that_turns(tmp_path, capsys):
    base = tmp_path / "base.cfg"
    base.write_text(CONS + "RESERVATIONPOLICY HIGHEST\n")
    status = whatif_main(["whatif", str(DATA / "sacct-P.txt"), "--cluster", str(DATA / "sinfo-N.txt"),
                          "-c", str(base), "--set", "MAUICOMPAT=NONE,3.3", "--shakes", "1", "-q"])
    err = capsys.readouterr().err
    assert status == 0, err
    got = _warnings(err)
    assert len(got) == 1 and got[0].startswith("maui-sim whatif: ") and "3.3" in got[0].split("warning")[0]


def test_the_lines_name_each_config_that_turns():
    on = parse_config(CONS + WARNED, "on.cfg")
    off = parse_config(CONS + "RESERVATIONPOLICY HIGHEST\n", "off.cfg")
    lines = replay_cost_lines([("on.cfg", on), ("off.cfg", off)])
    assert len(lines) == 1 and lines[0].startswith("on.cfg:4: warning: ")
