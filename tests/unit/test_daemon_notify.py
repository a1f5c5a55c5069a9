"""systemd conventions of mauid: sd_notify over $NOTIFY_SOCKET (READY=1 after the first
cycle, WATCHDOG=1 after each), the watchdog check, and `--foreground` logging to stderr
only, at INFO for the start and stop lines."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from maui_py.daemon.notify import Notifier, socket_address, watchdog_seconds
from tests.unit.test_daemon import FakeRM, drive, home, make, wait_until  # noqa: F401  (home: a fixture)

REPO = Path(__file__).resolve().parents[2]


class Listener:
    """A datagram socket standing in for systemd's notification socket."""

    def __init__(self, address):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(address)
        self.sock.settimeout(5)

    def messages(self) -> list[dict[str, str]]:
        """Every datagram received so far, as {KEY: VALUE}."""
        out = []
        self.sock.setblocking(False)
        try:
            while True:
                data = self.sock.recv(4096).decode()
                out.append(dict(line.split("=", 1) for line in data.split("\n")))
        except BlockingIOError:
            pass
        finally:
            self.sock.settimeout(5)
        return out

    def close(self):
        self.sock.close()


@pytest.fixture
def listener(tmp_path):
    path = tmp_path / "notify"
    lst = Listener(str(path))
    yield lst, str(path)
    lst.close()


def test_notify_socket_addresses():
    assert socket_address("@systemd/notify") == b"\0systemd/notify"
    assert socket_address("/run/systemd/notify") == "/run/systemd/notify"
    assert socket_address("") is None and socket_address("@") is None
    assert socket_address("run/notify") is None                 # relative: ignored, as libsystemd does


def test_ready_once_then_watchdog_pings(listener):
    lst, path = listener
    n = Notifier.from_environ({"NOTIFY_SOCKET": path})
    n.cycle_done("iteration 1: 3 jobs, 3 started")
    n.cycle_done("iteration 2: 3 jobs, 0 started")
    n.stopping()
    got = lst.messages()
    assert got == [{"READY": "1", "WATCHDOG": "1", "STATUS": "iteration 1: 3 jobs, 3 started"},
                   {"WATCHDOG": "1", "STATUS": "iteration 2: 3 jobs, 0 started"},
                   {"STOPPING": "1", "STATUS": "stopping"}]


def test_an_abstract_socket_is_reached():
    name = f"maui-py-test-{os.getpid()}"
    lst = Listener(b"\0" + name.encode())
    try:
        assert Notifier.from_environ({"NOTIFY_SOCKET": "@" + name}).send("READY=1")
        assert lst.messages() == [{"READY": "1"}]
    finally:
        lst.close()


def test_without_systemd_nothing_is_sent_and_a_dead_socket_is_logged_once(tmp_path, caplog):
    assert not Notifier.from_environ({}).enabled
    assert not Notifier.from_environ({}).send("READY=1")
    n = Notifier(str(tmp_path / "gone"))
    n.cycle_done("x")
    n.cycle_done("x")
    assert not n.ready_sent                                      # tried again at the next cycle
    assert len([r for r in caplog.records if "notification socket" in r.getMessage()]) == 1


def test_watchdog_seconds_from_the_environment():
    assert watchdog_seconds({"WATCHDOG_USEC": "30000000"}) == 30.0
    assert watchdog_seconds({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}) == 30.0
    assert watchdog_seconds({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}) is None    # another process's
    assert watchdog_seconds({"WATCHDOG_USEC": "0"}) is None and watchdog_seconds({}) is None


def test_the_daemon_says_ready_after_its_first_cycle_and_pings_after_each(home, listener):
    lst, path = listener
    rm = FakeRM()
    d = make(home, rm, notifier=Notifier(path))

    def script(d):
        wait_until(lambda: d.cycles_run >= 1, what="the first cycle")
        first = d.cycles_run
        d.cycle_now()
        wait_until(lambda: d.cycles_run >= first + 1 and d.status.startswith("iteration 2"), what="a second cycle")

    drive(d, script)
    got = lst.messages()
    assert got[0]["READY"] == "1" and got[0]["WATCHDOG"] == "1"
    assert got[0]["STATUS"] == "iteration 1: 3 jobs, 3 started"
    assert [m.get("READY") for m in got[1:]] == [None] * (len(got) - 1)
    assert [m.get("WATCHDOG") for m in got[1:-1]] == ["1"] * (len(got) - 2) and len(got) >= 3
    assert got[-1] == {"STOPPING": "1", "STATUS": "stopping"}


def test_ready_comes_even_when_the_resource_manager_is_down(home, listener):
    lst, path = listener
    rm = FakeRM()
    rm.mode = "error"
    assert make(home, rm, notifier=Notifier(path)).run(once=True, install_signals=False) == 1
    first = lst.messages()[0]
    assert first["READY"] == "1" and first["STATUS"].startswith("resource manager unreachable (1 tries)")


def test_a_watchdog_shorter_than_an_outage_gap_is_warned_about(home, monkeypatch, caplog):
    monkeypatch.setenv("WATCHDOG_USEC", str(60 * 10**6))            # RMPOLLINTERVAL is 100 s in CONFIG
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    caplog.set_level(logging.INFO, logger="maui_py")
    make(home, FakeRM()).run(once=True, install_signals=False)
    warned = [r for r in caplog.records if "WatchdogSec" in r.getMessage()]
    assert len(warned) == 1 and warned[0].levelno == logging.WARNING
    assert "cycles may be 404 s apart" in warned[0].getMessage()      # 4 x 100 + 4 x TIMEOUT 1
    started = [r for r in caplog.records if "started: config" in r.getMessage()]
    assert [r.levelno for r in started] == [logging.INFO]


def test_mauid_foreground_logs_to_stderr_only_and_notifies(tmp_path, listener):
    """The real entry point: no resource-manager command on PATH, so the one cycle fails;
    READY still comes, the log is on stderr, and LOGFILE is never created."""
    lst, path = listener
    (tmp_path / "maui.cfg").write_text("RMCFG[s] TYPE=SLURM TIMEOUT=2\nLOGDIR log\nLOGFILE mauid.log\n"
                                       "LOGLEVEL 1\n")
    (tmp_path / "bin").mkdir()
    env = {"PATH": str(tmp_path / "bin"), "PYTHONPATH": str(REPO), "NOTIFY_SOCKET": path, "HOME": str(tmp_path)}
    p = subprocess.run([sys.executable, "-m", "maui_py.daemon.main", "-c", str(tmp_path / "maui.cfg"),
                        "--foreground", "--once"], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 1, p.stderr
    lines = p.stderr.splitlines()
    assert [ln.split()[2] for ln in lines if "mauid" in ln and (" started: " in ln or " stopped " in ln)] \
        == ["INFO", "INFO"], lines
    assert any(" ERROR " in ln and "resource manager unreachable" in ln for ln in lines), lines
    assert not (tmp_path / "log").exists()
    got = lst.messages()
    assert got[0]["READY"] == "1" and got[-1]["STOPPING"] == "1"
