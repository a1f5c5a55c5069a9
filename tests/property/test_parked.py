"""Jobs a throttling limit stops are parked out of the fair-share order between cycles
(core/parked.py, switch parked.PARK) and the cycles decide as the definition, which ranks
and walks every job: the same decisions, order (the parked jobs merged back in) and
persisted maps, bypass counts included, at every cycle, with soft and hard limits that
bind (MAXJOB, MAXPROC, a QOS override, limits on users and groups), NOBF jobs, depth 1 to
3, several fair-share set-ups, arrivals, ends (wake-ups), holds, releases and copies;
each side's planner and fair-share tails checked. A parking that misses a wake-up fails
it (the mutant test below)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core import parked
from maui_py.core.cycle import run_cycle
from maui_py.model import ClusterSnapshot, Job, JobRequest, JobState, Node, Resources, Start

from .on_off import limited_arrivals, replay_on_off
from .test_backfill_in_order import LIMITS

MORE_LIMITS = LIMITS + ["QOSCFG[long] MAXJOB=1 PRIORITY=-100\nUSERCFG[u0] MAXPROC=2\n",
                        "QOSCFG[long] MAXPROC=2,3\nGROUPCFG[g0] MAXJOB=2\n"]
FAIR = ["FSPOLICY DEDICATEDPS\nFSINTERVAL 300\nFSDEPTH 3\nFSDECAY 0.5\nFSWEIGHT 1\n"
        "FSUSERWEIGHT 10\nUSERCFG[DEFAULT] FSTARGET=30-\nUSERCFG[u2] FSTARGET=40\n",
        "FSPOLICY DEDICATEDPS\nFSINTERVAL 120\nFSDEPTH 2\nFSDECAY 0.8\nFSWEIGHT 1\n"
        "FSUSERWEIGHT 5\nFSGROUPWEIGHT 3\nUSERCFG[u0] FSTARGET=20+\nUSERCFG[u1] FSTARGET=50\n"
        "GROUPCFG[g1] FSTARGET=30\n",
        "FSPOLICY DEDICATEDPS\nFSINTERVAL 600\nFSDEPTH 4\nFSDECAY 0.7\nFSWEIGHT 1\n"
        "FSUSERWEIGHT 10\nUSERCFG[DEFAULT] FSTARGET=10\nUSERCFG[u1] PRIORITY=30\nCREDWEIGHT 1\n"
        "USERWEIGHT 1\n"]
MAPS = ("deferred", "batch_holds", "queue_time", "reservations", "bypass")


@st.composite
def scenarios(draw):
    nodes = tuple(Node(f"n{i}", Resources(procs=draw(st.sampled_from([2, 4])), mem=4000))
                  for i in range(draw(st.integers(1, 3))))
    text = (f"RESERVATIONDEPTH {draw(st.sampled_from([1, 2, 3]))}\n"
            f"BACKFILLPOLICY {draw(st.sampled_from(['FIRSTFIT', 'FIRSTFIT', 'BESTFIT']))}\n"
            "DEFERTIME 60\nDEFERCOUNT 2\nQUEUETIMEWEIGHT 1\n"
            + draw(st.sampled_from(MORE_LIMITS)) + draw(st.sampled_from(FAIR)))
    kinds = ["arrive", "arrive", "arrive", "end", "end", "hold", "release", "copy", "tick"]
    steps = [(draw(st.sampled_from(kinds)), draw(st.integers(0, 10_000)))
             for _ in range(draw(st.integers(6, 28)))]
    return nodes, text, steps


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_parking_limit_stopped_jobs_decides_as_ranking_every_job(sc):
    real = parked.settle

    def checked(c, kept, rows, creds):     # the groups as recorded, before and after
        kept.check(c.state.queue_time)
        out = real(c, kept, rows, creds)
        kept.check(c.state.queue_time)
        return out
    parked.settle = checked
    try:
        replay_on_off(parked, "PARK", sc, limited_arrivals, maps=MAPS)
    finally:
        parked.settle = real


CFG = ("RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\nQUEUETIMEWEIGHT 1\n"
       "QOSCFG[long] MAXJOB=1 PRIORITY=-100\n" + FAIR[0])
ONE = JobRequest(tasks=1, per_task=Resources(1, 0))


def _queue(now: int) -> tuple:
    """One QOS long job running (MAXJOB 1 reached), three more queued behind it, and a
    job of another QOS; four processors."""
    run = Job("r", "u0", ONE, 600, 100, qos="long", state=JobState.RUNNING, start_time=100,
              allocation=(("n0", Resources(procs=1, mem=0)),))
    longs = tuple(Job(f"l{i}", f"u{i % 3}", ONE, 3000, 200 + i, qos="long") for i in range(3))
    return run, longs, Job("x", "u1", JobRequest(tasks=4, per_task=Resources(1, 0)), 300, 300)


def _three_cycles(nodes, cfg):
    """The queue of _queue at 1000 and 1030, then at 1060 with the running job ended:
    (the second cycle's order, its parked jobs' ids and the passes' order ids, the
    third cycle's result)."""
    run, longs, wide = _queue(0)
    state = None
    for now in (1000, 1030):
        res = run_cycle(ClusterSnapshot(now, nodes, (run, *longs, wide)), cfg, state,
                        explain=False)
        state = res.state
    sel = state.caches.selection
    ids = {j.id for j in longs if sel.parked is not None and id(j) in sel.parked.ids}
    seen = (list(res.order), ids, [e[0].id for e in sel.order])
    return seen, run_cycle(ClusterSnapshot(1060, nodes, (*longs, wide)), cfg, state,
                           explain=False)


def test_stopped_jobs_are_parked_and_woken_when_the_limit_frees(monkeypatch):
    """The queued long jobs are parked (left out of the passes' order) while the long
    job runs, still listed in the result's order; once it ends one of them starts, the
    one that starts with parking off."""
    nodes = (Node("n0", Resources(procs=4, mem=4000)),)
    cfg = parse_config(CFG)
    (order, ids, passes), third = _three_cycles(nodes, cfg)
    assert ids == {"l0", "l1", "l2"} and passes == ["x"]    # parked: the passes got x
    assert sorted(order) == ["l0", "l1", "l2", "x"]
    started = [d.job_id for d in third.decisions if isinstance(d, Start)]
    monkeypatch.setattr(parked, "PARK", False)
    (order_off, ids_off, passes_off), third_off = _three_cycles(nodes, cfg)
    assert not ids_off and sorted(passes_off) == ["l0", "l1", "l2", "x"]
    assert order == order_off
    assert started == [d.job_id for d in third_off.decisions if isinstance(d, Start)]
    assert started and started[0].startswith("l")


def test_a_parking_that_misses_a_wake_up_is_caught(monkeypatch):
    """The mutant: a parked plan is never woken (its parked jobs always count as
    stopped). The comparison of on against off fails once the running long job ends."""
    real, real_settle, seen = parked._stopped, parked.settle, []

    def settle(c, kept, rows, creds):       # notes the parked jobs the cycle settles
        seen[:] = [kept]
        return real_settle(c, kept, rows, creds)

    def never_woken(c, job):
        return bool(seen) and id(job) in seen[0].ids or real(c, job)
    monkeypatch.setattr(parked, "settle", settle)
    monkeypatch.setattr(parked, "_stopped", never_woken)
    nodes = (Node("n0", Resources(procs=4, mem=4000)),)
    run, longs, wide = _queue(0)

    def arrivals(k, pick, now):
        return {j.id: j for j in (run, *longs, wide)} if k == 0 else {}
    steps = [("arrive", 0), ("tick", 0), ("tick", 0), ("end", 0), ("tick", 0), ("tick", 0)]
    with pytest.raises(AssertionError):
        replay_on_off(parked, "PARK", (nodes, CFG, steps), arrivals, maps=MAPS)
    monkeypatch.setattr(parked, "_stopped", real)
    replay_on_off(parked, "PARK", (nodes, CFG, steps), arrivals, maps=MAPS)
