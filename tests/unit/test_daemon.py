"""mauid with a fake resource manager (no Slurm): signals, reload, lock, failures, requests.

The daemon runs in the main thread (signals are delivered there); a driver thread waits
for what the daemon does, sends real signals with os.kill and finally stops it.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest

from maui_py.cli.common import CommandError
from maui_py.cli.request import DaemonConnection
from maui_py.daemon import admin
from maui_py.daemon.lock import LockHeld
from maui_py.daemon.loop import Daemon
from maui_py.model import ClusterSnapshot, Job, JobRequest, JobState, Node, Resources, Start
from maui_py.rm.protocol import RecordWarning, RMError
from maui_py.store import StoreReader

CONFIG = """\
RMCFG[fake]      TYPE=SLURM TIMEOUT=1
RMPOLLINTERVAL   00:01:40
LOGDIR           log
LOGFILE          mauid.log
LOGLEVEL         4
BACKFILLPOLICY   FIRSTFIT
"""


class FakeRM:
    """A resource manager in memory: jobs start when told; `mode` makes it fail or hang."""

    name = "fake"

    def __init__(self, jobs: int = 3):
        self.nodes = tuple(Node(f"n{i}", Resources.of(4, 4000)) for i in range(2))
        self.jobs = {str(k): Job(str(k), "alice", JobRequest(2), 600, 0) for k in range(1, jobs + 1)}
        self.mode = ""                     # "", "error", "hang", "block"
        self.gate = threading.Event()      # releases "hang" / "block"
        self.entered = threading.Event()   # set when a snapshot call begins
        self.snapshots = 0
        self.applied: list = []
        self.drop_starts = False           # as if the push never reached the resource manager
        self.start_state = JobState.RUNNING  # what a pushed start becomes
        self.warn = ""

    def snapshot(self) -> ClusterSnapshot:
        self.snapshots += 1
        self.entered.set()
        if self.mode == "error":
            raise RMError("squeue: exit 1: slurm_load_jobs error: Unable to contact slurm controller")
        if self.mode in ("hang", "block"):
            self.gate.wait(30)
        if self.warn:
            warnings.warn(self.warn, RecordWarning)
        return ClusterSnapshot(int(time.time()), self.nodes, tuple(self.jobs.values()))

    def apply(self, decisions):
        self.applied.append(list(decisions))
        if self.mode == "bug":
            self.mode = ""
            raise KeyError("an adapter bug")
        for d in decisions:
            if isinstance(d, Start) and not self.drop_starts:
                j = self.jobs[d.job_id]
                self.jobs[d.job_id] = Job(j.id, j.user, j.request, j.wallclock, j.submit_time,
                                          state=self.start_state, start_time=int(time.time()),
                                          allocation=d.allocation)
        return []

    def set_state(self, jid: str, state: JobState) -> None:
        j = self.jobs[jid]
        running = state is JobState.RUNNING
        self.jobs[jid] = Job(j.id, j.user, j.request, j.wallclock, j.submit_time, state=state,
                             start_time=j.start_time if running else None,
                             allocation=j.allocation if state.active else ())

    def close(self) -> None:
        pass


PROMPT = 50.0
"""Seconds within which a signal or a request must have taken effect: half the test config's
RMPOLLINTERVAL (100 s), so "at once" is told from "at the next poll" however loaded the
machine is (a bound of 2 s failed under load; no test depends on wall-clock speed)."""


def wait_until(cond, timeout: float = 10.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.delenv("MAUIHOMEDIR", raising=False)
    monkeypatch.delenv("MAUID_FAULT", raising=False)
    (tmp_path / "maui.cfg").write_text(CONFIG)
    return tmp_path


def make(home: Path, rm: FakeRM, **kw) -> Daemon:
    kw.setdefault("request_poll", 0.05)
    return Daemon(home / "maui.cfg", adapter_factory=lambda cfg, name: rm, stderr=False, **kw)


def drive(daemon: Daemon, script) -> int:
    """Run the daemon here (main thread) while `script(daemon)` runs in a thread; re-raise
    what the script raised. The daemon is stopped when the script ends, however it ends."""
    failure: list[BaseException] = []

    def body():
        try:
            script(daemon)
        except BaseException as e:     # handed to the test
            failure.append(e)
        finally:
            daemon.stop()

    t = threading.Thread(target=body)
    daemon.start()
    daemon.signals.install()
    t.start()
    try:
        daemon.loop()
    finally:
        daemon.signals.close()
        daemon.close()
        t.join(30)
    if failure:
        raise failure[0]
    return 0


def events(home: Path, event: str) -> list:
    with StoreReader.open(home / "maui-py.db") as r:
        return r.journal(events=(event,))


def test_one_cycle_saves_and_pushes(home):
    rm = FakeRM()
    assert make(home, rm).run(once=True, install_signals=False) == 0
    with StoreReader.open(home / "maui-py.db") as r:
        last = r.last_cycle()
        started = [e.job_id for e in r.journal(events=("start",))]
    assert last.info.iteration == 1 and last.info.config_path == str(home / "maui.cfg")
    assert sorted(started) == ["1", "2", "3"]
    assert [type(d).__name__ for d in rm.applied[0]].count("Start") == 3
    assert "cycle 1:" in (home / "log" / "mauid.log").read_text()


def test_sighup_with_a_bad_file_keeps_the_old_config_and_logs_the_error(home, caplog):
    rm = FakeRM()
    d = make(home, rm)

    def script(d):
        wait_until(lambda: d.cycles_run >= 1, what="first cycle")
        (home / "maui.cfg").write_text(CONFIG.replace("FIRSTFIT", "FIRSTFITT") + "RESERVATIONDEPTH x\n")
        os.kill(os.getpid(), signal.SIGHUP)
        wait_until(lambda: events(home, "config-error"), what="config-error in the journal")
        assert d.cfg.get("BACKFILLPOLICY") == "FIRSTFIT"
        rm.jobs["9"] = Job("9", "bob", JobRequest(1), 60, 0)
        d.cycle_now()
        wait_until(lambda: d.cycles_run >= 2, what="a cycle under the old configuration")
        (home / "maui.cfg").write_text(CONFIG.replace("FIRSTFIT", "BESTFIT"))
        os.kill(os.getpid(), signal.SIGHUP)
        wait_until(lambda: events(home, "config-reload"), what="config-reload")
        assert d.cfg.get("BACKFILLPOLICY") == "BESTFIT"

    with caplog.at_level(logging.INFO, logger="maui_py"):
        drive(d, script)
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert errors and "keeping the configuration in force" in errors[0].getMessage()
    assert "maui.cfg:" in errors[0].getMessage() and "RESERVATIONDEPTH" in errors[0].getMessage()
    assert d.cycles_failed == 0


def test_sigterm_lets_the_running_cycle_finish(home):
    rm = FakeRM()
    rm.mode = "block"
    # the blocked call must outlast the script's steps however loaded the machine is (the
    # config's RMTIMEOUT gives it 4 s): the gate, not a timeout, ends it
    d = make(home, rm, call_timeout=PROMPT / 2)

    def script(d):
        assert rm.entered.wait(10), "the cycle did not start"
        # to the main thread: a process signal may land on this thread, and the main one,
        # waiting on the RM call, would then see it only when the call times out
        signal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)
        wait_until(lambda: d.signals.stop, 5, "the stop flag")
        assert not rm.applied                           # asked to stop, still in the cycle
        rm.gate.set()

    t0 = time.monotonic()
    drive(d, script)
    assert time.monotonic() - t0 < PROMPT     # stopped, not asleep for RMPOLLINTERVAL
    assert len(rm.applied) == 1 and d.cycles_run == 1           # the cycle was finished ...
    with StoreReader.open(home / "maui-py.db") as r:
        assert r.cycle_info().iteration == 1                    # ... and saved
        assert [e.event for e in r.journal(events=("daemon-start", "daemon-stop"))] == \
            ["daemon-start", "daemon-stop"]


def test_the_lock_stops_a_second_daemon(home):
    rm = FakeRM()
    d = make(home, rm)

    def script(d):
        wait_until(lambda: d.cycles_run >= 1)
        with pytest.raises(LockHeld, match=f"pid {os.getpid()}"):
            make(home, FakeRM()).start()
        p = subprocess.run([sys.executable, "-m", "maui_py.daemon.main", "-c", str(home / "maui.cfg"), "--once"],
                           capture_output=True, text=True, timeout=60, env={**os.environ, "MAUIHOMEDIR": ""})
        assert p.returncode == 3, p.stderr
        assert "another mauid" in p.stderr

    drive(d, script)
    assert make(home, rm).run(once=True, install_signals=False) == 0    # free again after the stop


def test_rm_errors_and_hangs_are_logged_and_retried(home, caplog):
    rm = FakeRM()
    rm.mode = "error"
    d = make(home, rm, call_timeout=0.5)

    def script(d):
        wait_until(lambda: d.cycles_done >= 1)
        d.cycle_now()
        wait_until(lambda: d.cycles_done >= 2)
        assert (d.cycles_run, d.cycles_failed, rm.applied) == (2, 2, [])
        rm.mode = "hang"
        d.cycle_now()
        wait_until(lambda: d.cycles_done >= 3)                 # timed out after 0.5 s
        d.cycle_now()
        wait_until(lambda: d.cycles_done >= 4)                 # the hung call still blocks it
        calls = rm.snapshots
        rm.mode = ""
        rm.gate.set()
        wait_until(lambda: d.rm._stuck is None or not d.rm._stuck.is_alive())   # it returned
        d.cycle_now()
        wait_until(lambda: d.cycles_done >= 5)
        assert rm.snapshots == calls + 1 and rm.applied         # back to work

    with caplog.at_level(logging.INFO, logger="maui_py"):
        drive(d, script)
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "Unable to contact slurm controller" in text
    assert "no answer within 0.5 s" in text and "still not returned" in text
    assert "resource manager answers again" in text
    assert [e.event for e in events(home, "rm-error")] == ["rm-error"]       # journaled once
    assert len(events(home, "rm-ok")) == 1


def test_sigusr1_runs_a_cycle_now(home):
    d = make(home, FakeRM())

    def script(d):
        wait_until(lambda: d.cycles_run >= 1)
        t0 = time.monotonic()
        os.kill(os.getpid(), signal.SIGUSR1)
        wait_until(lambda: d.cycles_run >= 2, timeout=PROMPT)
        assert time.monotonic() - t0 < PROMPT                   # RMPOLLINTERVAL is 100 s

    drive(d, script)


def test_a_pending_admin_request_runs_a_cycle_promptly(home, monkeypatch):
    seen = []

    def note(req, ctx):
        seen.append((req.kind, dict(req.args), ctx.snapshot.now))
        return f"noted {req.args['what']}"

    monkeypatch.setitem(admin.HANDLERS, "note", note)
    d = make(home, FakeRM())
    ids = {}

    def script(d):
        wait_until(lambda: d.cycles_run >= 1)
        bad = DaemonConnection(home / "maui-py.db")             # what an admin command does
        with pytest.raises(CommandError, match="no request kind 'nosuchkind'"):
            bad.submit("nosuchkind", [{}], wait=False)
        bad.close()
        conn = DaemonConnection(home / "maui-py.db")
        (ids["ok"],) = conn.submit("note", [{"what": "x"}], wait=True)
        t0 = time.monotonic()
        ids["answer"] = conn.answer(t0 + PROMPT)                # RMPOLLINTERVAL is 100 s
        ids["took"] = time.monotonic() - t0
        conn.close()

    drive(d, script)
    assert ids["answer"] == {"id": ids["ok"], "status": "done", "result": "noted x", "cycle": 2}
    assert ids["took"] < PROMPT
    with StoreReader.open(home / "maui-py.db") as r:
        (ok,) = r.requests()
        assert ok.status == "done" and ok.result == "noted x" and ok.cycle == 2 and ok.id == ids["ok"]
        assert len(r.journal(events=("request",))) == 1
    assert seen and seen[0][:2] == ("note", {"what": "x"})


def test_a_malformed_record_warning_is_logged_and_the_cycle_goes_on(home, caplog):
    rm = FakeRM()
    rm.warn = "squeue: job record 17 skipped: bad time_limit"
    with caplog.at_level(logging.WARNING, logger="maui_py"):
        assert make(home, rm).run(once=True, install_signals=False) == 0
    assert any("record skipped" in r.getMessage() and "17" in r.getMessage() for r in caplog.records)
    assert rm.applied


def test_a_restart_does_not_start_again_what_the_resource_manager_runs(home):
    """The unit-level crash-safety argument: starts saved as pending but perhaps not
    pushed are re-decided only for jobs the resource manager shows idle, and without
    counting a failed start."""
    rm = FakeRM(jobs=2)
    rm.drop_starts = True                           # saved, "crashed" before the push
    assert make(home, rm).run(once=True, install_signals=False) == 0
    with StoreReader.open(home / "maui-py.db") as r:
        assert sorted(r.load_state().pending) == ["1", "2"]
    rm.drop_starts = False
    j = rm.jobs["1"]                                # job 1 did reach the resource manager
    rm.jobs["1"] = Job(j.id, j.user, j.request, j.wallclock, 0, state=JobState.RUNNING,
                       start_time=int(time.time()), allocation=(("n0", Resources.of(2)),))
    rm.applied.clear()
    assert make(home, rm).run(once=True, install_signals=False) == 0
    pushed = [d.job_id for d in rm.applied[0] if isinstance(d, Start)]
    assert pushed == ["2"]
    with StoreReader.open(home / "maui-py.db") as r:
        by_event = {}
        for e in r.journal():
            by_event.setdefault(e.event, []).append(e.job_id)
        state = r.load_state()
    assert by_event["start-unconfirmed"] == ["2"] and by_event["start-confirmed"] == ["1"]
    assert not state.start_counts and not state.deferred      # no failure counted


def test_mauid_reports_a_bad_config_with_status_2(tmp_path):
    (tmp_path / "maui.cfg").write_text("RMPOLLINTERVAL soon\n")
    p = subprocess.run([sys.executable, "-m", "maui_py.daemon.main", "-c", str(tmp_path / "maui.cfg"), "--once"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "RMPOLLINTERVAL" in p.stderr


def test_a_start_stays_pending_until_the_job_runs_and_a_starting_job_that_turns_idle_failed(home):
    """Slurm shows a released job Starting before its scheduler pass; if the pass finds the
    pinned node unusable the job is idle again. That is a failed start (deferred), not a
    new idle job started again as if nothing happened."""
    (home / "maui.cfg").write_text(CONFIG + "DEFERTIME 00:10:00\n")
    rm = FakeRM(jobs=2)
    rm.start_state = JobState.STARTING
    d = make(home, rm)
    d.start()
    try:
        assert d.cycle()
        assert d.cycle()                                   # both still Starting: nothing to say
        assert sorted(d.state.pending) == ["1", "2"]
        rm.set_state("1", JobState.RUNNING)
        rm.set_state("2", JobState.IDLE)                   # refused after its Starting phase
        rm.applied.clear()
        assert d.cycle()
        assert not [x for x in rm.applied[0] if isinstance(x, Start)]   # job 2 is not simply restarted
    finally:
        d.close()
    with StoreReader.open(home / "maui-py.db") as r:
        seen = [(e.cycle, e.event, e.job_id) for e in r.journal() if e.job_id]
    assert seen == [(1, "start", "1"), (1, "start", "2"), (3, "start-confirmed", "1"),
                    (3, "start-failed", "2"), (3, "defer", "2")], seen


def test_a_kept_reservation_is_rechecked_when_the_nodes_change(home):
    """With Slurm the node list changes every cycle (state, CPU load) and the cycle builds a
    new reservation table; a kept reservation must not survive on a stale stamp."""
    rm = FakeRM(jobs=0)
    rm.jobs["long"] = Job("long", "bob", JobRequest(4), 600, 0, state=JobState.RUNNING,
                          start_time=int(time.time()), allocation=(("n0", Resources.of(4)),))
    rm.jobs["wide"] = Job("wide", "alice", JobRequest(8), 60, 1)
    d = make(home, rm)
    d.start()
    try:
        assert d.cycle()
        assert "wide" in d.state.reservations                       # waits for `long`
        del rm.jobs["long"]                                          # ended early ...
        rm.nodes = tuple(Node(n.name, n.resources, load=0.5) for n in rm.nodes)   # ... nodes differ
        rm.applied.clear()
        assert d.cycle()
    finally:
        d.close()
    assert [x.job_id for x in rm.applied[0] if isinstance(x, Start)] == ["wide"]


def test_a_cycle_that_raises_is_logged_and_the_next_one_goes_on_from_the_store(home, caplog):
    rm = FakeRM(jobs=1)
    rm.mode = "bug"                                    # apply raises once, after the save
    d = make(home, rm)
    d.start()
    try:
        with caplog.at_level(logging.ERROR, logger="maui_py"):
            assert not d.cycle()
        assert "an adapter bug" in caplog.text and d.cycles_failed == 1
        assert d.state.pending.keys() == {"1"}              # reloaded: the saved start is pending
        assert d.cycle()                                     # not pushed: a failed start
    finally:
        d.close()
    with StoreReader.open(home / "maui-py.db") as r:
        assert [e.event for e in r.journal(job_id="1")] == ["start", "start-failed", "defer"]
