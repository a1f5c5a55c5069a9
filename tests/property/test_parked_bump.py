"""The bypass counts of parked jobs added a group at a time (core/parked.bump, switch
parked.BUMP_AT_ONCE) equal those added one start and one job at a time: the same
decisions, order and persisted maps (bypass counts included) at every cycle, with the
random limits, QOS overrides, fair-share set-ups and queue edits of test_parked; a bump
that adds one per cycle instead of one per start fails (the mutant test below)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings

from maui_py.cfg import parse_config
from maui_py.core import parked
from maui_py.core.cycle import run_cycle
from maui_py.model import ClusterSnapshot, Job, JobRequest, JobState, Node, Resources, Start

from .on_off import limited_arrivals, replay_on_off
from .test_parked import MAPS, scenarios


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_bumping_a_group_at_once_counts_as_one_start_at_a_time(sc):
    replay_on_off(parked, "BUMP_AT_ONCE", sc, limited_arrivals, maps=MAPS)


CFG = ("RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\nQUEUETIMEWEIGHT 1\n"
       "QOSCFG[long] MAXJOB=1\nFSPOLICY DEDICATEDPS\nFSWEIGHT 1\nFSUSERWEIGHT 1\n"
       "USERCFG[DEFAULT] FSTARGET=100-\n")
ONE = JobRequest(tasks=1, per_task=Resources(1, 0))
NODES = (Node("n0", Resources(procs=8, mem=4000)),)
STEPS = [("arrive", 0), ("tick", 0), ("arrive", 1), ("tick", 0)]


def _arrivals(k: int, pick: int, now: int) -> dict:
    """First one QOS long job running (MAXJOB 1 reached) and three queued long jobs, older
    than any job after them; with `pick`, two one-processor jobs, which both start as
    backfill (a parked long job waits before them)."""
    if k == 0:
        run = Job("r", "u0", ONE, 90_000, 100, qos="long", state=JobState.RUNNING,
                  start_time=100, allocation=(("n0", Resources(procs=1, mem=0)),))
        longs = [Job(f"l{i}", f"u{i}", ONE, 3000, 200 + i, qos="long") for i in range(3)]
        return {j.id: j for j in (run, *longs)}
    return {f"{x}{k}": Job(f"{x}{k}", u, ONE, 600, now) for x, u in (("a", "u1"), ("b", "u2"))
            } if pick else {}


def _replay() -> tuple[dict, set]:
    """STEPS with the switch as set: the last bypass map, and the ids parked before the
    cycle with the two arrivals."""
    cfg, state, jobs, ids = parse_config(CFG), None, {}, set()
    for k, (_kind, pick) in enumerate(STEPS):
        now = 1000 + 30 * (k + 1)
        jobs.update(_arrivals(k, pick, now))
        sel = state.caches.selection if state is not None else None
        if pick:
            ids = {j for j, job in jobs.items() if sel is not None
                   and sel.parked is not None and id(job) in sel.parked.ids}
        res = run_cycle(ClusterSnapshot(now, NODES, tuple(jobs.values())), cfg, state,
                        explain=False)
        state = res.state
        for d in res.decisions:
            if isinstance(d, Start):
                jobs[d.job_id] = replace(jobs[d.job_id], state=JobState.RUNNING,
                                         start_time=now, allocation=d.allocation)
    return dict(state.bypass), ids


def test_two_backfill_starts_add_two_to_each_parked_job(monkeypatch):
    """By definition each backfill start adds one to the bypass count of every waiting
    job ranked before it: the three parked long jobs rank before both new jobs, so each
    gets two, with the switch on and off."""
    on, parked_ids = _replay()
    monkeypatch.setattr(parked, "BUMP_AT_ONCE", False)
    off, _ = _replay()
    assert parked_ids == {"l0", "l1", "l2"}
    assert on == off
    assert {j: on.get(j) for j in ("l0", "l1", "l2")} == {"l0": 2, "l1": 2, "l2": 2}


def test_a_bump_of_one_per_cycle_is_caught(monkeypatch):
    """The mutant: a group bumped at once gets one per cycle, not one per start. The
    replay of on against off fails at the cycle with two backfill starts."""
    real = parked.repeat
    monkeypatch.setattr(parked, "repeat", lambda x, *n: real(min(x, 1), *n))
    with pytest.raises(AssertionError):
        replay_on_off(parked, "BUMP_AT_ONCE", (NODES, CFG, STEPS), _arrivals, maps=MAPS)
    monkeypatch.setattr(parked, "repeat", real)
    replay_on_off(parked, "BUMP_AT_ONCE", (NODES, CFG, STEPS), _arrivals, maps=MAPS)


SPLIT_CFG = CFG + "CREDWEIGHT 1\nUSERWEIGHT 1\nUSERCFG[ub] PRIORITY=8\n"
SPLIT_STEPS = [("arrive", 0), ("tick", 0), ("arrive", 1), ("tick", 0)]


def _split_arrivals(k: int, pick: int, now: int) -> dict:
    """One QOS long job running (MAXJOB 1 reached) and two queued long jobs of one user,
    so one parked group: l0 waiting since 0 (about 17 minutes at the arrivals, priority
    17), l1 since now (priority 0); then one job of user ub (static priority 8) that
    starts as backfill between them in the order: it passes l0, not l1."""
    if k == 0:
        run = Job("r", "u0", ONE, 90_000, 100, qos="long", state=JobState.RUNNING,
                  start_time=100, allocation=(("n0", Resources(procs=1, mem=0)),))
        longs = [Job("l0", "u1", ONE, 3000, 0, qos="long"),
                 Job("l1", "u1", ONE, 3000, now, qos="long")]
        return {j.id: j for j in (run, *longs)}
    return {"b": Job("b", "ub", ONE, 600, now)} if pick else {}


def test_a_group_split_by_a_start_is_not_bumped_whole(monkeypatch):
    """A parked group whose older job ranks before a backfill start and whose younger one
    does not: only the older one's count grows, with the switch on as off; the mutant
    that takes every group as wholly before the first start (parked._wholly all True)
    bumps the younger one too, and the replay of on against off fails."""
    scenario = (NODES, SPLIT_CFG, SPLIT_STEPS)
    replay_on_off(parked, "BUMP_AT_ONCE", scenario, _split_arrivals, maps=MAPS)
    real = parked._wholly
    monkeypatch.setattr(parked, "_wholly", lambda v, tails, px: [True] * len(v.groups))
    with pytest.raises(AssertionError):
        replay_on_off(parked, "BUMP_AT_ONCE", scenario, _split_arrivals, maps=MAPS)
    monkeypatch.setattr(parked, "_wholly", real)
