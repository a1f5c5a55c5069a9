"""Issue 13: a resource manager that answers with errors or nothing is an outage; node states
it does not know yet defer nothing; a job over its class's MAX.WCLIMIT is held, not deferred.

The daemon parts use test_daemon's in-memory FakeRM; the cycle parts call run_cycle on
hand-built snapshots; the command parts run showq against the store the daemon wrote.
"""

from __future__ import annotations

import argparse
import io
import logging

from maui_py.cfg.loader import parse_config
from maui_py.cli import showq
from maui_py.core.cycle import run_cycle
from maui_py.core.state import SchedulerState
from maui_py.daemon.loop import RM_BACKOFF_MAX
from maui_py.model import (ClusterSnapshot, Defer, Hold, HoldType, Job, JobRequest, Node,
                           NodeState, Resources, Start)
from maui_py.rm.protocol import RMError, RMOutage, check_answer
from maui_py.store import StoreReader
from maui_py.store.rm_status import rm_down

import pytest

from .test_daemon import FakeRM, events, home, make  # noqa: F401  (home: fixture)

NOW = 1_000_000


class OutageRM(FakeRM):
    """FakeRM whose snapshot raises RMOutage while `down` is set."""

    down = False

    def snapshot(self):
        if self.down:
            self.snapshots += 1
            raise RMOutage("squeue --json: Slurm reported 1 error(s), first: slurm_load_jobs")
        return super().snapshot()


def showq_text(store) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="showq")
    showq.add_arguments(parser)
    out, err = io.StringIO(), io.StringIO()
    rc = showq.run(parser.parse_args(["--store", str(store)]), out, err)
    return rc, out.getvalue(), err.getvalue()


# ------------------------------------------------------------------ protocol
def test_no_nodes_after_a_view_with_nodes_is_an_outage_but_a_first_empty_view_is_not():
    check_answer("sinfo", 0, 0)                  # a cluster still being set up
    check_answer("sinfo", 3, 4)                  # a node removed from slurm.conf
    with pytest.raises(RMOutage, match="no nodes listed"):
        check_answer("sinfo", 0, 4)
    assert issubclass(RMOutage, RMError)


# -------------------------------------------------------------------- daemon
def test_an_outage_runs_no_cycle_logs_one_error_backs_off_and_marks_the_store_stale(home, caplog):
    rm = OutageRM()
    d = make(home, rm)
    d.start()
    try:
        with caplog.at_level(logging.INFO, logger="maui_py"):
            assert d.cycle()                                  # a good cycle: the jobs start
            running = {j for j, job in rm.jobs.items() if job.state.active}
            assert running == {"1", "2", "3"}
            applied = len(rm.applied)
            rm.down = True
            delays = []
            for _ in range(5):
                assert not d.cycle()                          # no cycle on an outage
                delays.append(d.retry_delay())
            assert len(rm.applied) == applied                 # nothing pushed
            assert delays == [100, 200, 400, 400, 400] and 400 == 100 * RM_BACKOFF_MAX
            down = rm_down(d.store.conn)
            assert down is not None and "slurm_load_jobs" in down["error"]
            rc, out, err = showq_text(home / "maui-py.db")
            assert rc == 0 and "data is stale: resource manager unreachable since" in err
            assert "slurm_load_jobs" in err
            assert "Active Jobs: 3" in out                    # the last good view, not an empty one
            rm.down = False
            assert d.cycle()
            assert d.retry_delay() == 100
            assert rm_down(d.store.conn) is None
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == 1 and "resource manager unreachable" in errors[0].getMessage()
    finally:
        d.close()
    rc, _out, err = showq_text(home / "maui-py.db")
    assert rc == 0 and "stale" not in err
    assert [e.event for e in events(home, "rm-error")] == ["rm-error"]
    assert len(events(home, "rm-ok")) == 1
    with StoreReader.open(home / "maui-py.db") as r:
        gone = r.journal(events=("start-gone",))
    assert not gone                                           # no running job taken for gone


def test_a_stale_mark_left_by_a_killed_daemon_is_cleared_at_the_first_good_read(home):
    rm = OutageRM()
    rm.down = True
    d = make(home, rm)
    d.start()
    assert not d.cycle()
    d.store.conn.close()          # as if killed: close() would not run _rm_back either
    d.lock.release()
    d2 = make(home, OutageRM())
    d2.start()
    try:
        assert rm_down(d2.store.conn) is not None
        assert d2.cycle()
        assert rm_down(d2.store.conn) is None
    finally:
        d2.close()


# --------------------------------------------------------------------- cycle
CYCLE_CFG = """\
DEFERTIME        00:10:00
DEFERCOUNT       5
CLASSCFG[debug]  MAX.WCLIMIT=00:30:00
"""


def _snap(states, jobs):
    nodes = tuple(Node(f"n{i}", Resources.of(4, 4000), state=s) for i, s in enumerate(states))
    return ClusterSnapshot(NOW, nodes, tuple(jobs))


def _job(jid, procs=4, wall=600, cls="batch"):
    return Job(jid, "alice", JobRequest(procs), wall, NOW - 100, class_=cls)


@pytest.mark.parametrize("other, deferred", [(NodeState.UNKNOWN, False), (NodeState.DOWN, True)])
def test_a_job_that_needs_a_node_in_an_unknown_state_waits_and_is_not_deferred(other, deferred):
    cfg = parse_config(CYCLE_CFG)
    wide = _job("wide", procs=8)
    res = run_cycle(_snap([NodeState.IDLE, other], [wide, _job("small")]), cfg, SchedulerState(),
                    explain=True)
    assert [d.job_id for d in res.decisions if isinstance(d, Start)] == ["small"]
    assert bool([d for d in res.decisions if isinstance(d, Defer)]) is deferred
    assert ("wide" in res.state.deferred) is deferred
    if not deferred:
        assert "not known yet" in res.reports["wide"].reason


def test_every_node_unknown_defers_nothing():
    cfg = parse_config(CYCLE_CFG)
    res = run_cycle(_snap([NodeState.UNKNOWN] * 2, [_job("a"), _job("b", procs=8)]), cfg,
                    SchedulerState(), explain=True)
    assert res.decisions == [] or not [d for d in res.decisions if isinstance(d, (Defer, Start))]
    assert not res.state.deferred


def test_a_job_over_its_class_max_wclimit_is_held_at_once_and_never_started():
    cfg = parse_config(CYCLE_CFG + "CLASSCFG[DEFAULT] MAX.WCLIMIT=02:00:00\n")
    jobs = [_job("long", wall=3600, cls="debug"), _job("ok", wall=1800, cls="debug"),
            _job("default", wall=3 * 3600, cls="batch"), _job("fine", wall=3600, cls="batch")]
    state = SchedulerState()
    res = run_cycle(_snap([NodeState.IDLE] * 4, jobs), cfg, state, explain=True)
    holds = {d.job_id: d for d in res.decisions if isinstance(d, Hold)}
    assert set(holds) == {"long", "default"}
    assert all(h.hold is HoldType.BATCH for h in holds.values())
    assert "CLASSCFG[debug] MAX.WCLIMIT 00:30:00" in holds["long"].reason
    assert "CLASSCFG[DEFAULT] MAX.WCLIMIT 2:00:00" in holds["default"].reason
    assert sorted(d.job_id for d in res.decisions if isinstance(d, Start)) == ["fine", "ok"]
    assert not [d for d in res.decisions if isinstance(d, Defer)]
    assert "MAX.WCLIMIT" in res.state.batch_holds["long"]
    again = run_cycle(_snap([NodeState.IDLE] * 4, jobs[:1]), cfg, res.state, explain=True)
    assert not [d for d in again.decisions if isinstance(d, (Hold, Start))]   # held once
    assert again.reports["long"].status == "held"
