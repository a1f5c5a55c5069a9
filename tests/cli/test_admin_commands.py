"""The admin commands end to end with a fake resource manager: who may use them, what they
queue on mauid's socket, how the daemon's next cycle applies each request (handlers.py), and
the journal. One daemon per test is started (socket and all) and its cycles are run here,
from the test, so that what is applied when is deterministic."""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import pwd
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from maui_py.cfg import parse_config
from maui_py.cli import common
from maui_py.cli.main import maui_sim_main, run_single
from maui_py.core.cycle import run_cycle
from maui_py.core.state import SchedulerState
from maui_py.daemon.loop import Daemon
from maui_py.model import (ClusterSnapshot, Hold, HoldType, Job, JobRequest, JobState, Node, ReleaseHold,
                           Resources, Start)
from maui_py.store import Store, StoreReader

ME = pwd.getpwuid(os.getuid()).pw_name
"""Who the daemon sees on its socket: the user running the tests (root in CI)."""
CONFIG = f"""\
RMCFG[fake]      TYPE=SLURM TIMEOUT=1
RMPOLLINTERVAL   00:01:40
LOGDIR           log
LOGFILE          mauid.log
BACKFILLPOLICY   FIRSTFIT
ADMIN1           root ops {ME}
"""


class FakeRM:
    """Two 4-processor nodes; starts, holds and releases take effect when pushed."""

    name = "fake"

    def __init__(self):
        self.nodes = (Node("n0", Resources.of(4)), Node("n1", Resources.of(4)))
        self.jobs = {str(k): Job(str(k), "alice", JobRequest(4), 600, k) for k in range(1, 7)}
        self.applied: list = []

    def snapshot(self) -> ClusterSnapshot:
        return ClusterSnapshot(int(time.time()), self.nodes, tuple(self.jobs.values()))

    def apply(self, decisions):
        self.applied += decisions
        for d in decisions:
            j = self.jobs[d.job_id]
            if isinstance(d, Start):
                self.jobs[d.job_id] = Job(j.id, j.user, j.request, j.wallclock, j.submit_time,
                                          state=JobState.RUNNING, start_time=int(time.time()),
                                          allocation=d.allocation)
            elif isinstance(d, Hold):
                self.jobs[d.job_id] = Job(j.id, j.user, j.request, j.wallclock, j.submit_time,
                                          holds=j.holds | {d.hold})
            elif isinstance(d, ReleaseHold):
                self.jobs[d.job_id] = Job(j.id, j.user, j.request, j.wallclock, j.submit_time,
                                          holds=j.holds - {d.hold})
        return []

    def close(self) -> None:
        pass


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.delenv("MAUIHOMEDIR", raising=False)
    monkeypatch.setattr(common.os, "getuid", lambda: 0)     # MAUI_PY_USER counts for root only
    monkeypatch.setenv(common.USER_ENV, "root")
    (tmp_path / "maui.cfg").write_text(CONFIG)
    return tmp_path


@pytest.fixture
def daemon(home):
    """A started mauid (store, socket) on a FakeRM; REQUESTPOLLINTERVAL 0 and RMPOLLINTERVAL
    100 s, and no loop: the test runs each cycle (`cycle(d)`)."""
    rm = FakeRM()
    d = Daemon(home / "maui.cfg", adapter_factory=lambda cfg, name: rm, stderr=False, request_poll=0)
    d.rm_fake = rm
    d.start()
    yield d
    if d.store is not None:
        d.close()


def cycle(d: Daemon) -> None:
    assert d.cycle()


def run_to(name: str, *argv: str) -> tuple[int, str, str]:
    """Run a command with its own output streams (safe from any thread): (rc, out, err)."""
    module = importlib.import_module(f"maui_py.cli.{name}")
    parser = argparse.ArgumentParser(prog=name, conflict_handler="resolve")
    module.add_arguments(parser)
    out, err = io.StringIO(), io.StringIO()
    rc = module.run(parser.parse_args(list(argv)), out, err)
    return rc, out.getvalue(), err.getvalue()


def wait_until(cond, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def cmd(capsys, name, *argv, user="root", store=None, monkeypatch=None):
    if monkeypatch is not None:
        monkeypatch.setenv(common.USER_ENV, user)
    rc = run_single(name, [*argv, "--store", str(store)])
    out, err = capsys.readouterr()
    return rc, out, err


def requests(home: Path):
    with StoreReader.open(home / "maui-py.db") as r:
        return r.requests()


def data(capsys, home, name, *argv):
    rc, out, err = cmd(capsys, name, *argv, "--json", store=home / "maui-py.db")
    assert rc == 0, err
    return json.loads(out)["data"]


def test_only_root_and_admin1_may_and_unknown_jobs_are_refused(home, daemon, capsys, monkeypatch):
    cycle(daemon)
    db = home / "maui-py.db"
    rc, out, err = cmd(capsys, "sethold", "3", user="mallory", store=db, monkeypatch=monkeypatch)
    assert (rc, out) == (1, "") and "sethold: permission denied: user mallory" in err
    rc, out, err = cmd(capsys, "setres", "-d", "1:00:00", "n0", user="mallory", store=db, monkeypatch=monkeypatch)
    assert rc == 1 and "permission denied" in err
    rc, out, err = cmd(capsys, "sethold", "nosuch", user="ops", store=db, monkeypatch=monkeypatch)
    assert (rc, out, err) == (1, "", "ERROR:  cannot locate job 'nosuch'\n")
    rc, _out, err = cmd(capsys, "releaseres", "nosuch", store=db, monkeypatch=monkeypatch)
    assert rc == 1 and err == "ERROR:    cannot locate reservation 'nosuch'\n"
    rc, _out, err = cmd(capsys, "setspri", "1001", "3", store=db, monkeypatch=monkeypatch)
    assert rc == 1 and "range 0 - 1000" in err
    assert requests(home) == []
    assert daemon.inbox.take() == []
    rc, out, _err = cmd(capsys, "sethold", "3", user="ops", store=db, monkeypatch=monkeypatch)
    assert rc == 0 and out == "request 1 queued: sethold user hold on job 3; it takes effect at the next cycle\n"
    # queued in the daemon, not in the store; the sender is the socket's uid, not MAUI_PY_USER
    assert [(r.id, r.kind, r.requester) for r in daemon.inbox.take()] == [(1, "sethold", ME)]
    assert requests(home) == []
    cycle(daemon)
    assert [(r.kind, r.requester, r.status) for r in requests(home)] == [("sethold", ME, "done")]


def test_requests_take_effect_at_the_next_cycle_and_are_journaled(home, daemon, capsys, monkeypatch):
    rm = daemon.rm_fake
    cycle(daemon)                             # 1 and 2 run, 3 holds the reservation
    db = home / "maui-py.db"
    for argv in (("sethold", "3"), ("sethold", "-b", "4"), ("setspri", "7", "5"), ("runjob", "6"),
                 ("setres", "-n", "maint", "-d", "1:00:00", "-u", "frank:gina", "n1")):
        rc, out, err = cmd(capsys, *argv, store=db)
        assert rc == 0 and out.startswith("request ") and "next cycle" in out, err
    q = data(capsys, home, "showq")
    assert [j["state"] for j in q["idle"] + q["blocked"]] == ["Idle"] * 4      # nothing applied yet
    cycle(daemon)
    reqs = requests(home)
    assert [(r.kind, r.status, r.cycle) for r in reqs] == [
        ("sethold", "done", 2), ("sethold", "done", 2), ("setspri", "done", 2), ("runjob", "done", 2),
        ("setres", "done", 2)]
    assert Hold("3", HoldType.USER, f"set by {ME} (sethold)") in rm.applied
    with StoreReader.open(db) as r:
        journal = r.journal(events=("request",))
        state = r.load_state()
    assert [(e.job_id, e.detail["kind"], e.detail["status"]) for e in journal] == [
        ("3", "sethold", "done"), ("4", "sethold", "done"), ("5", "setspri", "done"), ("6", "runjob", "done"),
        ("", "setres", "done")]
    assert state.system_priority == {"5": 7} and state.batch_holds["4"].startswith(f"set by {ME}")
    assert state.run_now == {"6"}                  # both nodes busy: it waits, first in line
    q = data(capsys, home, "showq")
    states = {j["id"]: j["state"] for j in q["idle"] + q["blocked"]}
    assert states == {"3": "UserHold", "4": "BatchHold", "5": "Idle", "6": "Idle"}
    assert [j["id"] for j in q["idle"]] == ["6", "5"]          # runjob first, then setspri
    res = {r["name"]: r for r in data(capsys, home, "showres")["reservations"]}
    assert res["maint"]["kind"] == "User" and res["maint"]["acl"] == {"users": ["frank", "gina"]}
    asked = reqs[-1].args                                      # the start moves up to the cycle's time
    assert res["maint"]["end"] == asked["end"] == asked["start"] + 3600 <= res["maint"]["start"] + 3600
    assert res["6"]["state"] == "I"                            # the run-now job holds the reservation
    _rc, out, _err = cmd(capsys, "checkjob", "5", store=db)
    assert "StartPriority:  1000000007  SystemPriority:  7\n" in out

    for argv in (("releasehold", "3"), ("releasehold", "-b", "4"), ("releaseres", "maint"), ("setspri", "0", "5")):
        assert cmd(capsys, *argv, store=db)[0] == 0
    cycle(daemon)
    assert all(r.status == "done" for r in requests(home))
    assert ReleaseHold("3", HoldType.USER, f"released by {ME} (releasehold)") in rm.applied
    with StoreReader.open(db) as r:
        state = r.load_state()
        assert "maint" not in r.admin_reservations()
    assert "4" not in state.batch_holds and state.system_priority == {}
    q = data(capsys, home, "showq")
    assert {j["state"] for j in q["idle"] + q["blocked"]} == {"Idle"}


def test_wait_shows_the_outcome_or_times_out(home, daemon):
    """Each command writes to its own streams (no shared, interleaved stdout), and the test
    runs each cycle only once the requests it expects are queued: nothing races."""
    db = str(home / "maui-py.db")
    cycle(daemon)
    rc, out, err = run_to("runjob", "--wait", "--timeout", "0.3", "3", "--store", db)
    assert rc == 1 and out.startswith("request 1 queued: runjob start job 3 now")
    assert err == "request 1 not applied after 0.3 s (mauid keeps it queued for its next cycle)\n"
    assert [r.id for r in daemon.inbox.take()] == [1]
    cycle(daemon)                                     # applies that one
    assert daemon.inbox.take() == [] and requests(home)[-1].status == "done"
    got: dict[str, tuple] = {}
    t1 = threading.Thread(target=lambda: got.update(hold=run_to(
        "sethold", "--wait", "--timeout", "20", "-h", "user", "4", "--store", db)))
    t2 = threading.Thread(target=lambda: got.update(spri=run_to(
        "setspri", "--wait", "--json", "9", "5", "--store", db)))
    t1.start()
    wait_until(lambda: len(daemon.inbox.take()) == 1)      # sethold is request 2 ...
    t2.start()
    wait_until(lambda: len(daemon.inbox.take()) == 2)      # ... and setspri request 3
    assert not got                                         # both wait for the cycle
    cycle(daemon)
    t1.join(20)
    t2.join(20)
    assert got["hold"] == (0, "request 2 queued: sethold user hold on job 4; it takes effect at the next cycle\n"
                              "request 2 applied at cycle 3: user hold placed on job 4\n", "")
    rc, out, err = got["spri"]
    assert (rc, err) == (0, "")
    doc = json.loads(out)
    assert doc["command"] == "setspri"
    assert doc["requests"] == [{"id": 3, "kind": "setspri", "args": {"job": "5", "priority": 9, "relative": False},
                                "what": "setspri system priority 9 on job 5", "status": "done", "cycle": 3,
                                "result": "job system priority adjusted: 5 9"}]
    # a request the daemon refuses: runjob of a held job
    assert run_to("runjob", "4", "--store", db)[0] == 0
    cycle(daemon)
    last = requests(home)[-1]
    assert last.status == "failed" and "has a hold in place" in last.result
    # a daemon that stops before applying: the waiting command is told, nothing applied
    t3 = threading.Thread(target=lambda: got.update(late=run_to("releasehold", "--wait", "4", "--store", db)))
    t3.start()
    wait_until(lambda: len(daemon.inbox.take()) == 1)
    daemon.close()
    t3.join(20)
    rc, out, err = got["late"]
    assert rc == 1 and err == "mauid closed the connection before applying request 5 (it stopped: not applied)\n"
    rc, _out, err = run_to("sethold", "4", "--store", db)
    assert rc == 1 and "cannot reach mauid at" in err and "is mauid running on this store?" in err


def test_the_daemon_never_acts_on_a_request_row_in_the_store(home, daemon):
    """A row written into the store behind mauid's back, signed root, is not a request: it
    is marked ignored and nothing of it happens."""
    cycle(daemon)
    end = int(time.time()) + 30 * 86400
    conn = sqlite3.connect(home / "maui-py.db", isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 5000")
    for kind, args in (("setres", {"all_nodes": True, "end": end, "name": "pwned"}),
                       ("setspri", {"job": "3", "priority": 100})):
        conn.execute("INSERT INTO requests (kind, args, requester, submitted) VALUES (?, ?, 'root', ?)",
                     (kind, json.dumps(args), time.time()))
    conn.close()
    cycle(daemon)
    cycle(daemon)
    assert [(r.requester, r.status, r.cycle) for r in requests(home)] == [("root", "ignored", 2)] * 2
    with StoreReader.open(home / "maui-py.db") as r:
        assert r.load_state().system_priority == {} and r.admin_reservations() == {}
        assert r.journal(events=("request",)) == []
    assert daemon.admin_reservations == {}


def test_setspri_and_runjob_survive_in_the_store():
    """state_rows keeps the two admin fields with the rest of the state."""
    cfg = parse_config("")
    nodes = (Node("n0", Resources.of(4)),)
    jobs = tuple(Job(str(k), "alice", JobRequest(8), 60, 0) for k in range(3))   # never fit: stay queued
    state = SchedulerState()
    state.system_priority.update({"0": 12, "1": 2_000_000_300})
    state.run_now.add("2")
    result = run_cycle(ClusterSnapshot(100, nodes, jobs), cfg, state)
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        store = Store.open(Path(d) / "s.db")
        store.save_cycle(result, ClusterSnapshot(100, nodes, jobs))
        loaded = store.load_state()
        store.close()
    assert loaded.system_priority == {"0": 12, "1": 2_000_000_300} and loaded.run_now == {"2"}


def test_a_simulated_store_takes_no_requests(tmp_path, capsys):
    db = tmp_path / "sim.db"
    assert maui_sim_main(["--synthetic", "40", "-q", "--store", str(db), "--store-at", "5000"]) == 0
    capsys.readouterr()
    rc = run_single("sethold", ["1", "--store", str(db)])
    assert rc == 1 and "simulation's store" in capsys.readouterr().err


def test_setres_takes_slurm_hostlists_and_warns_about_what_names_no_node(home, daemon, capsys):
    cycle(daemon)
    db = home / "maui-py.db"
    rc, out, err = cmd(capsys, "setres", "-n", "pair", "-d", "1:00:00", "n[0-1],nX", store=db)
    assert rc == 0 and "pair on n0,n1 from" in out
    assert err == "setres: warning: 'nX' names no node\n"
    rc, _out, err = cmd(capsys, "setres", "-d", "1:00:00", "n[0-99999999]", store=db)
    assert rc == 2 and "invalid node expression 'n[0-99999999]'" in err and "more than 100000" in err
    assert [r["hosts"] for r in (q.args for q in daemon.inbox.take())] == [["n0", "n1"]]
