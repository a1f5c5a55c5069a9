"""A store row that cannot be read is named and skipped, everything else read (issue 34): the
per-job and per-node rows (job_state, reservations, view_node, view_job) as the admin and
view reservation rows before them. mauid starts on such a store, and a job whose saved
state it skipped is taken, at its next cycle, as a new job from what the resource manager
reports: its holds kept, its priority made again as for a job it never saw.

The oracle of "as a new job" is a mauid started on an empty store with the same resource
manager at the same instant (it has, by definition, no saved state of any job)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cli import main as cli
from maui_py.daemon.loop import Daemon
from maui_py.model import ClusterSnapshot, HoldType, NodeState
from maui_py.store import StoreReader
from maui_py.store.state_rows import job_record
from tests.cli.test_admin_commands import CONFIG, FakeRM, cmd, home  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[2]
NOW = 1_800_000_000


class FixedRM(FakeRM):
    """The admin tests' resource manager at one fixed instant (priorities then compare exactly)."""

    def snapshot(self) -> ClusterSnapshot:
        return ClusterSnapshot(NOW, self.nodes, tuple(self.jobs.values()))


def started(home_dir: Path, rm: FakeRM) -> Daemon:
    d = Daemon(home_dir / "maui.cfg", adapter_factory=lambda cfg, name: rm, stderr=False, request_poll=0)
    d.start()
    return d


def test_mauid_takes_a_job_whose_state_row_it_skipped_as_a_new_job(home, capsys, tmp_path):
    """Job 4: a user hold (in the resource manager) and setspri 3; job 5: a batch hold (mauid's
    own, sethold -b); job 6: setspri 7. Their job_state rows are then damaged."""
    db = home / "maui-py.db"
    rm = FixedRM()
    d = started(home, rm)
    try:
        assert d.cycle()                                  # 1 and 2 run on the two nodes
        for argv in (("sethold", "4"), ("setspri", "3", "4"), ("sethold", "-b", "5"), ("setspri", "7", "6")):
            assert cmd(capsys, *argv, store=db)[0] == 0
        assert d.cycle()
    finally:
        d.close()
    with StoreReader.open(db) as r:
        state = r.load_state()
    assert state.system_priority == {"4": 3, "6": 7} and set(state.batch_holds) == {"5"}
    assert HoldType.USER in rm.jobs["4"].holds
    conn = sqlite3.connect(db)
    conn.execute("UPDATE job_state SET data = 'null' WHERE job_id = '4'")
    conn.execute("UPDATE job_state SET data = replace(data, '\"batch_holds\":', '\"batch_hold\":') WHERE job_id = '5'")
    conn.execute("UPDATE job_state SET data = '{\"system_priority\": \"7\"}' WHERE job_id = '6'")
    conn.commit()
    conn.close()

    rm.applied.clear()
    d = started(home, rm)                                 # starts on it: no StoreDamaged
    try:
        assert d.store.unreadable_names("job_state") == {"4", "5", "6"}
        assert d.state.system_priority == {} and d.state.batch_holds == {}
        assert d.cycle()
    finally:
        d.close()
    log = (home / "log" / "mauid.log").read_text()
    for key in ("4", "5", "6"):                           # named once each, in mauid's log
        assert log.count(f"{db}: job_state row '{key}' cannot be read") == 1, log
    assert "batch_hold" in log                            # what the row held is quoted: the admin sees the lost hold
    with StoreReader.open(db) as r:
        restarted, state = r.last_cycle(), r.load_state()
        assert r.unreadable == {}                         # the cycle wrote the rows again
    assert state.system_priority == {} and state.batch_holds == {}
    assert not [x for x in rm.applied if x.job_id in ("4", "5", "6")]

    # the same resource manager at the same instant, and a mauid that never saw these jobs
    fresh_home = tmp_path / "fresh"
    fresh_home.mkdir()
    (fresh_home / "maui.cfg").write_text(CONFIG)
    fresh_rm = FixedRM()
    fresh_rm.jobs = dict(rm.jobs)
    f = started(fresh_home, fresh_rm)
    try:
        assert f.cycle()
    finally:
        f.close()
    with StoreReader.open(fresh_home / "maui-py.db") as r:
        fresh = r.last_cycle()
    # the resource manager's hold is kept: job 4 stays held, as a new job would
    assert restarted.reports["4"].status.value == "held" and "User" in restarted.reports["4"].reason
    assert restarted.reports["4"] == fresh.reports["4"]
    for key in ("5", "6"):                                # priorities made again as for a new job
        assert restarted.priorities[key] == fresh.priorities[key]
        assert restarted.priorities[key].priority > 0
        assert restarted.reports[key].status == fresh.reports[key].status


# ----------------------------------------------------------- every row not corrupted
@pytest.fixture(scope="module")
def sim_store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("rows") / "good.db"
    assert cli.maui_sim_main(["--synthetic", "200", "-q", "-c", str(ROOT / "config" / "easy.cfg"),
                              "--store", str(path), "--store-at", "20000"]) == 0
    return path


ROWS = {"job_state": "job_id", "reservations": "job_id", "view_node": "name", "view_job": "job_id"}
PER_JOB = ("deferred", "batch_holds", "start_counts", "bypass", "queue_time", "pending", "failed",
           "system_priority", "predictions")
BAD_TEXT = ["null", "[1,", "7", "\"x\"", "{\"bypass\": \"x\"}", "{\"name\": 5}", "{\"id\": []}", "[]"]


def everything(path: Path) -> tuple[dict, dict]:
    """What a reader gives of each row, by (table, key), and the rows it skipped."""
    with StoreReader.open(path) as r:
        state, last = r.load_state(), r.last_cycle()
        skipped = dict(r.unreadable)
    got: dict[tuple[str, str], object] = {}
    for jid in {j for name in PER_JOB for j in getattr(state, name)} | state.run_now:
        got[("job_state", jid)] = (tuple((name, repr(getattr(state, name)[jid])) for name in PER_JOB
                                         if jid in getattr(state, name)), jid in state.run_now)
    for jid, kr in state.reservations.items():
        got[("reservations", jid)] = kr
    for n in last.snapshot.nodes:
        got[("view_node", n.name)] = n
    for j in last.snapshot.jobs:
        got[("view_job", j.id)] = (j, last.reports.get(j.id), last.priorities.get(j.id))
    return got, skipped


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_row_not_corrupted_is_read_identically(sim_store, tmp_path_factory, data):
    before, skipped = everything(sim_store)
    assert skipped == {}
    conn = sqlite3.connect(sim_store)
    keys = sorted((t, k) for t, col in ROWS.items() for (k,) in conn.execute(f"SELECT {col} FROM {t}"))
    conn.close()
    chosen = data.draw(st.lists(st.sampled_from(keys), unique=True, max_size=12), label="rows")
    path = tmp_path_factory.mktemp("corrupt") / "c.db"
    shutil.copy(sim_store, path)
    conn = sqlite3.connect(path)
    for table, key in chosen:
        text = data.draw(st.sampled_from(BAD_TEXT), label=f"{table} {key}")
        conn.execute(f"UPDATE {table} SET data = ? WHERE {ROWS[table]} = ?", (text, key))
    conn.commit()
    conn.close()

    after, skipped = everything(path)
    corrupted = set(chosen)
    assert set(skipped) == corrupted                  # each corrupted row is named ...
    for k, value in before.items():
        if k not in corrupted:                        # ... and every other row reads as before
            assert after.get(k) == value, k
    for table, key in corrupted:
        if table == "view_node" and (table, key) in after:    # a stand-in: in use, takes no work
            assert after[(table, key)].state is NodeState.UNKNOWN
        else:
            assert (table, key) not in after


def test_job_record_refuses_what_is_not_one_jobs_state():
    assert job_record("5", {"bypass": 2, "run_now": True}) == {"bypass": 2, "run_now": True}
    for bad in (None, [], {"bypass": "2"}, {"run_now": 1},
                {"pending": {"job_id": "6", "allocation": [], "kind": "IMMEDIATE", "at": 0, "wallclock": 1}}):
        with pytest.raises((ValueError, TypeError, KeyError)):
            job_record("5", bad)
    with pytest.raises(ValueError):
        job_record(5, {"bypass": 2})
    json.dumps(job_record("5", {}))                   # an empty row is a job with nothing kept


def test_a_skipped_node_in_use_has_a_stand_in_and_showbf_plans_as_before(sim_store, tmp_path, capsys):
    """node017 (1 processor) runs job 2: without its row, a stand-in holds what job 2 uses there
    (state Unknown: nothing new goes on it), in its place; the backfill window is unchanged."""
    path = tmp_path / "node.db"
    shutil.copy(sim_store, path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE view_node SET data = 'null' WHERE name = 'node017'")
    conn.commit()
    conn.close()
    with StoreReader.open(sim_store) as r:
        good = r.last_cycle()
    with StoreReader.open(path) as r:
        last = r.last_cycle()
        assert r.unreadable_names("view_node") == {"node017"}
    job2 = dict(good.snapshot.job("2").allocation)
    at = [n.name for n in good.snapshot.nodes].index("node017")
    stand_in = last.snapshot.nodes[at]
    assert (stand_in.name, stand_in.resources, stand_in.state) == ("node017", job2["node017"], NodeState.UNKNOWN)
    assert last.snapshot.nodes[:at] + last.snapshot.nodes[at + 1:] == \
        good.snapshot.nodes[:at] + good.snapshot.nodes[at + 1:]
    outs = []
    for db in (sim_store, path):
        assert cli.showbf_main(["--store", str(db)]) == 0
        outs.append(capsys.readouterr())
    assert outs[1].out == outs[0].out
    assert f"showbf: warning: {path}: view_node row 'node017' cannot be read" in outs[1].err


def test_a_long_key_is_kept_whole_and_shown_short(sim_store, tmp_path, caplog):
    path = tmp_path / "key.db"
    shutil.copy(sim_store, path)
    key = "k" * 100_000
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO job_state VALUES (?, ?)", (key, "x" * 100_000))
    conn.commit()
    conn.close()
    with StoreReader.open(path) as r:
        r.load_state()
        assert r.unreadable_names("job_state") == {key}
        assert len(r.skipped()[0]["key"]) < 200 and len(r.skipped()[0]["why"]) < 500
    (message,) = [m for m in caplog.messages if "cannot be read" in m]
    assert len(message) < 800
