"""The state store: schema and migration, one transaction per cycle, read-only readers,
the journal, the SchedulerState round trip, file mode, and the model codec."""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core.cycle import JobReport, run_cycle
from maui_py.core.state import DeferRecord, KeptReservation, PendingStart, SchedulerState
from maui_py.model import (Acl, ClusterSnapshot, Defer, Hold, HoldType, Job, JobRequest, JobState, Node,
                           NodeState, ReleaseHold, Reservation, ReservationKind, Reserve, Resources,
                           SnapshotDelta, Start, StartKind)
from maui_py.priority import policy as queue_policies
from maui_py.priority import queues
from maui_py.priority.engine import Breakdown
from maui_py.store import Store, StoreError, StoreReader, schema
from maui_py.store.codec import decode_decision, dumps, encode_decision, loads
from maui_py.store.journal import capture, cycle_entries

ROOT = Path(__file__).resolve().parents[2]
NODES = tuple(Node(f"n{i}", Resources.of(8, 8000, gpu=2 if i == 3 else 0),
                   features=frozenset({"fast" if i < 2 else "slow"})) for i in range(4))


def job(jid: str, procs: int, wallclock: int, submit: int = 0, **kw) -> Job:
    return Job(jid, "alice", JobRequest(procs), wallclock, submit, **kw)


def running(jid: str, node: str, procs: int, start: int, wallclock: int) -> Job:
    return job(jid, procs, wallclock, state=JobState.RUNNING, start_time=start,
               allocation=((node, Resources.of(procs)),))


def cycle(store: Store, state: SchedulerState, now: int, jobs, cfg, **kw):
    """One cycle saved as the daemon does; returns the result."""
    snap = ClusterSnapshot(now, NODES, tuple(jobs))
    before = capture(state)
    result = run_cycle(snap, cfg, state)
    store.save_cycle(result, snap, journal=cycle_entries(before, result, snap), **kw)
    return result


EASY = parse_config("RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n")
# A wide job waits for the long one on n0; small jobs backfill around its reservation.
WORKLOAD = [running("long", "n0", 8, 0, 1000), job("wide", 32, 100, 1), job("s1", 2, 50, 2),
            job("s2", 2, 5000, 3), job("s3", 1, 60, 4)]


# ------------------------------------------------------------------ schema, file
def test_a_new_store_is_at_the_current_version_in_wal_mode_with_mode_0640(tmp_path):
    old = os.umask(0o077)                   # even a strict umask gives the group read access
    try:
        store = Store.open(tmp_path / "sub" / "maui.db")
        cycle(store, SchedulerState(), 10, WORKLOAD, EASY)
    finally:
        os.umask(old)
    assert schema.version(store.conn) == schema.VERSION == len(schema.MIGRATIONS)
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    for f in ("maui.db", "maui.db-wal", "maui.db-shm"):
        assert (tmp_path / "sub" / f).stat().st_mode & 0o777 == 0o640, f
    store.close()


def test_a_version_1_file_is_upgraded_and_keeps_its_data(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    schema.migrate(conn, target=1)
    conn.execute("INSERT INTO job_state VALUES ('7', '{\"queue_time\": 5, \"bypass\": 2}')")
    conn.execute("INSERT INTO journal (cycle, at, event, job_id) VALUES (3, 1.0, 'start', '7')")
    conn.close()
    with pytest.raises(StoreError, match="version 1 .*start mauid to upgrade"):
        StoreReader.open(path)
    store = Store.open(path)
    assert schema.version(store.conn) == schema.VERSION
    state = store.load_state()
    assert state.queue_time == {"7": 5} and state.bypass == {"7": 2}
    assert [(e.cycle, e.event, e.job_id) for e in store.journal()] == [(3, "start", "7")]
    store.conn.execute("INSERT INTO requests (kind, requester, submitted) VALUES ('sethold', 'root', 0)")
    assert [r.kind for r in store.requests("pending")] == ["sethold"]      # a v2 table
    store.close()
    with StoreReader.open(path) as r:
        assert [q.kind for q in r.requests("pending")] == ["sethold"]


def test_a_file_newer_than_the_code_is_refused(tmp_path):
    path = tmp_path / "new.db"
    Store.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {schema.VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer"):
        Store.open(path)
    with pytest.raises(StoreError, match="newer"):
        StoreReader.open(path)


def test_a_reader_needs_an_existing_store(tmp_path):
    with pytest.raises(StoreError, match="no store"):
        StoreReader.open(tmp_path / "none.db")
    assert not (tmp_path / "none.db").exists()


READ_AS_OTHER = textwrap.dedent("""
    import sqlite3, sys, urllib.parse
    conn = sqlite3.connect("file:" + urllib.parse.quote(sys.argv[1]) + "?mode=ro", uri=True)
    print(conn.execute("SELECT value FROM kv WHERE key = 'iteration'").fetchone()[0])
""")


def test_a_group_reader_without_write_access_reads_a_stopped_or_running_store(tmp_path):
    """WAL needs a writable -shm: the daemon leaves the file in rollback mode when it stops,
    and while it runs SQLite gives -wal and -shm the file's owner, group and mode."""
    base = Path(tempfile.mkdtemp(prefix="maui-store-"))
    try:
        base.chmod(0o755)
        path = base / "s.db"
        store = Store.open(path)
        cycle(store, SchedulerState(), 10, WORKLOAD, EASY)
        store.close(rollback_mode=True)
        assert not Path(f"{path}-wal").exists() and not Path(f"{path}-shm").exists()
        with StoreReader.open(path) as r:
            assert r.conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        root = os.geteuid() == 0 and shutil.which("runuser") is not None
        if root:
            os.chown(path, 0, 65534)                    # group nogroup, mode 0640
        running = Store.open(path)                      # back to WAL while a daemon has it
        assert running.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        running.journal_event("daemon-start")
        if not root:
            running.close()
            return                                      # the mode checks above still ran
        for f in (f"{path}-wal", f"{path}-shm"):
            assert Path(f).stat().st_gid == 65534 and Path(f).stat().st_mode & 0o777 == 0o640
        (base / "read.py").write_text(READ_AS_OTHER)
        argv = ["runuser", "-u", "nobody", "-g", "nogroup", "--", "/usr/bin/python3", str(base / "read.py"), str(path)]
        p = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        assert p.returncode == 0 and p.stdout.strip() == "1", p.stderr
        running.close(rollback_mode=True)
        p = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        assert p.returncode == 0 and p.stdout.strip() == "1", p.stderr
    finally:
        shutil.rmtree(base, ignore_errors=True)


# ------------------------------------------------------------- the last cycle
def test_the_last_cycle_view_rebuilds_the_model(tmp_path):
    store = Store.open(tmp_path / "s.db")
    admin = Reservation("maint", ReservationKind.USER, 500, 900, (("n3", Resources.of(8, 8000, gpu=2)),),
                        acl=Acl(users=frozenset({"root"})))
    jobs = WORKLOAD + [job("held", 1, 60, 5, holds=frozenset({HoldType.USER}))]
    snap = ClusterSnapshot(10, NODES, tuple(jobs), (admin,))
    state = SchedulerState()
    result = run_cycle(snap, EASY, state)
    store.save_cycle(result, snap, admin_reservations={"maint": (admin, "root", 1.0)},
                     info={"config_path": "/etc/maui.cfg", "rm": "slurm", "pid": 42, "host": "h"})
    with StoreReader.open(tmp_path / "s.db") as r:
        last = r.last_cycle()
        assert last.info.iteration == 1 and last.info.now == 10 and last.info.config_path == "/etc/maui.cfg"
        assert last.snapshot.nodes == NODES and last.snapshot.jobs == tuple(jobs)
        assert last.reports == result.reports and last.priorities == result.priorities
        assert last.order == result.order
        assert last.reservations["admin"] == [admin] and last.reservations["rm"] == []
        [wide] = last.reservations["priority"]
        kept = result.state.reservations["wide"]
        assert (wide.job_id, wide.start, wide.end, wide.allocation) == ("wide", kept.start, kept.end,
                                                                        kept.allocation)
        assert r.job_view("s1") == (jobs[2], result.reports["s1"], result.priorities["s1"],
                                    result.order.index("s1"))
        assert r.job_view("nope") is None
        assert r.admin_reservations() == {"maint": (admin, "root", 1.0)}
    store.close()


def carried_out(jobs, result, now):
    """The jobs as the resource manager shows them once the cycle's starts ran."""
    starts = {s.job_id: s for s in result.starts()}
    return [dataclasses.replace(j, state=JobState.RUNNING, start_time=now, allocation=starts[j.id].allocation)
            if j.id in starts else j for j in jobs]


def test_a_quiet_cycle_writes_only_what_changed(tmp_path):
    store = Store.open(tmp_path / "s.db")
    before = store.conn.total_changes
    result = cycle(store, SchedulerState(), 10, WORKLOAD, EASY)
    first = store.conn.total_changes - before
    jobs = carried_out(WORKLOAD, result, 10)
    state = cycle(store, result.state, 10, jobs, EASY).state
    before = store.conn.total_changes
    cycle(store, state, 10, jobs, EASY)                 # nothing happened since
    quiet = store.conn.total_changes - before
    assert first >= len(WORKLOAD) + len(NODES)
    assert quiet <= 6, quiet                           # kv (iteration, cycle ...) and the cycles row
    store.close()


# ------------------------------------------------------------------- journal
def test_the_journal_records_changes_not_cycles(tmp_path):
    store = Store.open(tmp_path / "s.db")
    state = SchedulerState()
    for now in (10, 11, 12, 13):                       # the reservation of `wide` stays put
        state = cycle(store, state, now, WORKLOAD, EASY).state
    seen = [(e.cycle, e.event, e.job_id) for e in store.journal()]
    assert seen.count((1, "reserve", "wide")) == 1
    assert not [s for s in seen if s[1].startswith("reserve") and s[0] > 1]
    starts = [s for s in seen if s[1] == "start"]
    assert {s[2] for s in starts} == {"s1", "s3"} and all(c == 1 for c, _, _ in starts)
    # cycle 2: those starts never showed up running -> failed, deferred; once each
    assert (2, "start-failed", "s1") in seen and (2, "defer", "s1") in seen
    assert sum(1 for s in seen if s[1] == "start-failed") == 2
    # the long job ends early: the reservation moves; then `wide` starts and it is gone
    jobs = WORKLOAD[1:]
    state = cycle(store, state, 20, jobs, EASY).state
    moved = store.journal(events=("reserve-moved", "start"), since_id=len(seen))
    assert [e.event for e in moved] in (["start"], ["reserve-moved"])
    store.close()


def test_a_dropped_reservation_is_journaled_with_the_reason(tmp_path):
    store = Store.open(tmp_path / "s.db")
    state = cycle(store, SchedulerState(), 10, WORKLOAD, EASY).state
    assert "wide" in state.reservations
    gone = [j for j in WORKLOAD if j.id != "wide"]
    cycle(store, state, 11, gone, EASY)
    [e] = store.journal(events=("reserve-dropped",))
    assert e.job_id == "wide" and e.cycle == 2 and e.reason == "the job left the queue"
    store.close()


def test_old_journal_entries_are_pruned(tmp_path):
    clock = [1000.0]
    store = Store.open(tmp_path / "s.db", journal_keep=100, clock=lambda: clock[0])
    state = cycle(store, SchedulerState(), 10, WORKLOAD, EASY).state
    assert store.journal()
    clock[0] += 500
    store.journal_event("daemon-start", "later")
    cycle(store, state, 11, WORKLOAD, EASY)
    assert [e.event for e in store.journal()] == ["daemon-start"] + \
        [e.event for e in store.journal() if e.cycle == 2]
    assert all(e.at >= 1400 for e in store.journal())
    store.close()


# ------------------------------------------------------- state round trip
class CountingPolicy:
    """A queue policy with lasting state (a usage count per user), standing in for fair share."""

    name = "MAUI"

    def __init__(self):
        self.usage: dict[str, float] = {}

    def subfactors(self, job):
        return {}

    def cap_violation(self, job):
        return None

    def arrange(self, order, view):
        return queue_policies.Arrangement(order)

    def observe(self, started, view):
        pass

    def charge(self, now, running):
        for j in running:
            self.usage[j.user] = self.usage.get(j.user, 0.0) + 1.5

    def dump(self):
        return {"usage": dict(self.usage)}

    def restore(self, data):
        self.usage = dict(data["usage"])


def full_state() -> SchedulerState:
    alloc = (("n1", Resources.of(4, 100, gpu=1)), ("n2", Resources.of(4)))
    s = SchedulerState(iteration=7, last_now=123)
    s.reservations["wide"] = KeptReservation("wide", 200, 300, alloc, 0, 100, retry_until=250)
    s.deferred["d"] = DeferRecord(2, 400, "start failed 1 time(s): BadConstraints")
    s.batch_holds["b"] = "deferred 25 times"
    s.start_counts["d"] = 3
    s.bypass["wide"] = 4
    s.queue_time["d"] = 99
    s.pending["p"] = PendingStart("p", alloc, StartKind.BACKFILL, 120, 600)
    s.failed["p"] = "Slurm: BadConstraints"
    s.queue_policy = CountingPolicy()
    s.queue_policy.usage = {"alice": 12.5}
    return s


def test_the_scheduler_state_round_trips(tmp_path):
    store = Store.open(tmp_path / "s.db")
    state = full_state()
    store.save_cycle(run_cycle_stub(state), ClusterSnapshot(123, NODES, ()))
    loaded = Store.open(tmp_path / "s.db").load_state()
    for name in ("iteration", "last_now", "deferred", "batch_holds", "start_counts", "bypass",
                 "queue_time", "pending", "failed"):
        assert getattr(loaded, name) == getattr(state, name), name
    kept = state.reservations["wide"]
    assert loaded.reservations == {"wide": kept}
    assert state.caches.reserved_stamp == -1 and loaded.caches.reserved_stamp == -1   # a cache: never trusted
    assert loaded.queue_policy.name == "MAUI" and loaded.queue_policy.dump() == {"usage": {"alice": 12.5}}
    assert loaded.caches.plan.table is None and loaded.caches.engine is None
    store.close()


def run_cycle_stub(state):
    """A CycleResult with no decisions around a hand-made state."""
    from maui_py.core.cycle import CycleResult
    return CycleResult(state.last_now, state.iteration, [], {}, state)


def canonical(decisions):
    """Decisions with each allocation in node order (the planner may list the same nodes in
    another order when its table was rebuilt: the reservation is the same)."""
    return [dataclasses.replace(d, allocation=tuple(sorted(d.allocation, key=lambda a: a[0])))
            if hasattr(d, "allocation") else d for d in decisions]


@pytest.mark.parametrize("policy", ["CURRENTHIGHEST", "HIGHEST"])
def test_a_restarted_daemon_decides_what_the_running_one_would(tmp_path, monkeypatch, policy):
    """Continue from the loaded state or from the one in memory: same decisions, and the
    queue policy's lasting data (here a usage count) carries on from where it was. The state
    holds priority reservations, start counts of refused starts (whose nodes another job
    took meanwhile) and pending starts."""
    monkeypatch.setitem(queues.POLICIES, "MAUI", lambda cfg: CountingPolicy())
    cfg = parse_config(f"RESERVATIONDEPTH 2\nRESERVATIONPOLICY {policy}\nDEFERSTARTCOUNT 2\n"
                       "RESERVATIONRETRYTIME 100\n")
    store = Store.open(tmp_path / "s.db")
    jobs = WORKLOAD + [job("wide2", 16, 100, 5)]
    first = cycle(store, SchedulerState(), 10, jobs, cfg)
    [s1] = [s for s in first.starts() if s.job_id == "s1"]
    intruder = running("intruder", s1.nodes[0], 8, 11, 1000)
    state = cycle(store, first.state, 11, jobs + [intruder], cfg).state
    assert "wide" in state.reservations and state.pending and state.start_counts
    loaded = Store.open(tmp_path / "s.db").load_state()
    snap = ClusterSnapshot(12, NODES, tuple(jobs + [intruder]))
    a = run_cycle(snap, cfg, state)
    b = run_cycle(snap, cfg, loaded)
    assert canonical(a.decisions) == canonical(b.decisions)
    assert b.state.queue_policy.dump() == a.state.queue_policy.dump() == {"usage": {"alice": 7.5}}
    store.close()


# ------------------------------------------------- transactions and readers
WRITER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {root!r})
    from tests.unit.test_store import EASY, WORKLOAD, cycle
    from maui_py.core.state import SchedulerState
    from maui_py.store import AdminRequest, Store
    store = Store.open({path!r})
    state = cycle(store, SchedulerState(), 10, WORKLOAD, EASY).state
    def inside():
        print("inside", flush=True)
        time.sleep(60)
    cycle(store, state, 20, WORKLOAD[1:] + [WORKLOAD[0]], EASY,
          requests_done=[AdminRequest(1, "note", {{}}, "root", 0.0, "done", "ok")], before_commit=inside)
""")


def r_never_waits(reader: StoreReader) -> None:
    """Make the reader fail at once ("database is locked") instead of waiting for a lock: a
    read that then succeeds was not blocked by the writer, whatever the machine's load (the
    wall-clock bounds this replaces failed under load)."""
    reader.conn.execute("PRAGMA busy_timeout = 0")


def test_a_writer_killed_inside_its_transaction_leaves_the_previous_cycle_whole(tmp_path):
    path = tmp_path / "s.db"
    Store.open(path).close()
    p = subprocess.Popen([sys.executable, "-c", WRITER.format(root=str(ROOT), path=str(path))],
                         stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "inside"
        with StoreReader.open(path) as r:                # read while the writer is mid-transaction
            r_never_waits(r)
            last = r.last_cycle()
            assert last.info.iteration == 1
        os.kill(p.pid, signal.SIGKILL)
    finally:
        p.wait(10)
    expected = run_cycle(ClusterSnapshot(10, NODES, tuple(WORKLOAD)), EASY, SchedulerState())
    with StoreReader.open(path) as r:
        last = r.last_cycle()
        assert last.info.iteration == 1 and last.snapshot.jobs == tuple(WORKLOAD)
        assert last.reports == expected.reports
        assert {e.cycle for e in r.journal()} == {1}
        assert r.requests() == []                      # recorded with the cycle, or not at all
        assert [c.iteration for c in r.cycles()] == [1]
        state = r.load_state()
    assert state.iteration == 1 and set(state.pending) == set(expected.state.pending)
    store = Store.open(path)                             # the daemon carries on from there
    assert store.load_state().iteration == 1
    store.close()


def test_a_reader_is_never_blocked_by_the_writer(tmp_path):
    path = tmp_path / "s.db"
    store = Store.open(path)
    state = cycle(store, SchedulerState(), 10, WORKLOAD, EASY).state
    seen = []

    def read_inside():
        with StoreReader.open(path) as r:
            r_never_waits(r)
            seen.append((r.cycle_info().iteration, r.load_state().iteration))

    cycle(store, state, 11, WORKLOAD, EASY, before_commit=read_inside)
    assert seen == [(1, 1)]
    with StoreReader.open(path) as r:
        assert r.cycle_info().iteration == 2
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            r.conn.execute("DELETE FROM journal")
    store.close()


def test_a_failed_save_keeps_nothing_of_the_cycle(tmp_path):
    store = Store.open(tmp_path / "s.db")
    state = cycle(store, SchedulerState(), 10, WORKLOAD, EASY).state

    def boom():
        raise OSError("disk full")

    with pytest.raises(OSError):
        cycle(store, state, 11, WORKLOAD[:2], EASY, before_commit=boom)
    assert store.cycle_info().iteration == 1 and len(store.last_cycle().snapshot.jobs) == len(WORKLOAD)
    cycle(store, store.load_state(), 12, WORKLOAD[:2], EASY)    # and the next save is whole
    assert [j.id for j in store.last_cycle().snapshot.jobs] == ["long", "wide"]
    store.close()


# --------------------------------------------------------------------- codec
def _every(cls, **overrides):
    """builds() that also draws every optional field (floats without NaN)."""
    kw = {f.name: ... for f in dataclasses.fields(cls) if f.init and f.name not in overrides}
    return st.builds(cls, **kw, **overrides)


FLOAT = st.floats(allow_nan=False)
NAME = st.text(min_size=1, max_size=8)
RES = st.builds(Resources, st.integers(), st.integers(),
                st.lists(st.tuples(NAME, st.integers()), max_size=3).map(tuple))
ALLOC = st.lists(st.tuples(NAME, RES), max_size=3).map(tuple)
REQUEST = _every(JobRequest, per_task=RES)
JOB = _every(Job, request=REQUEST, allocation=ALLOC)
NODE = _every(Node, resources=RES, load=FLOAT, speed=FLOAT)
RESV = _every(Reservation, allocation=ALLOC, per_task=st.none() | RES)
SNAP = _every(ClusterSnapshot, nodes=st.lists(NODE, max_size=2).map(tuple),
              jobs=st.lists(JOB, max_size=2).map(tuple), reservations=st.lists(RESV, max_size=2).map(tuple),
              delta=st.none() | _every(SnapshotDelta))
DECISION = st.one_of(_every(Start, allocation=ALLOC), _every(Reserve, allocation=ALLOC), _every(Defer),
                     _every(Hold), _every(ReleaseHold))
FLOATS = st.dictionaries(NAME, FLOAT, max_size=3)
BREAKDOWN = _every(Breakdown, priority=FLOAT, components=FLOATS, subfactors=FLOATS, weighted=FLOATS)


@settings(max_examples=60, deadline=None)
@given(SNAP, _every(JobReport), BREAKDOWN, DECISION,
       _every(KeptReservation, allocation=ALLOC), _every(PendingStart, allocation=ALLOC), _every(DeferRecord))
def test_the_codec_round_trips_every_model_object(snap, report, breakdown, decision, kept, pending, defer):
    for cls, obj in ((ClusterSnapshot, snap), (JobReport, report), (Breakdown, breakdown),
                     (KeptReservation, kept), (PendingStart, pending), (DeferRecord, defer)):
        text = dumps(obj)
        assert loads(cls, text) == obj
        assert dumps(loads(cls, text)) == text                  # same object, same text
    assert decode_decision(encode_decision(decision)) == decision


def test_the_codec_leaves_defaults_out_and_keeps_enums_readable():
    j = job("1", 2, 60, state=JobState.IDLE, holds=frozenset({HoldType.USER, HoldType.BATCH}))
    assert dumps(j) == ('{"holds":["Batch","User"],"id":"1","request":{"tasks":2},"submit_time":0,'
                        '"user":"alice","wallclock":60}')
    n = Node("n1", Resources.of(8), state=NodeState.DOWN)
    assert loads(Node, dumps(n)) == n and '"state":"Down"' in dumps(n)
