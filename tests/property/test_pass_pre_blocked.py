"""The priority pass visits only the jobs whose limit plan no soft limit stops at its start
(policy/priority_pass.pre_blocked, switch PRE_BLOCKED) and decides as the definition, which
visits every position: the same decisions (starts as IMMEDIATE or BACKFILL: `waiting`),
order, priorities and persisted maps at every cycle, with soft and hard limits that bind
(MAXJOB, MAXPROC, QOS overrides), NOBF jobs, depth 1 to 3, fair share or not; each side's
planner checked (`_check()`) and the limits' kept plans (`check_plans()`, plan_of
included).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from maui_py.cfg import parse_config
from maui_py.core.cycle import run_cycle
from maui_py.model import ClusterSnapshot, Job, JobRequest, JobState, Node, Resources, Start
from maui_py.policy import priority_pass

from .on_off import limited_arrivals, replay_on_off
from .test_backfill_in_order import scenarios

MAPS = ("deferred", "batch_holds", "queue_time", "reservations", "bypass")


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_a_pass_visiting_only_jobs_not_blocked_from_its_start_decides_as_one_visiting_all(sc):
    replay_on_off(priority_pass, "PRE_BLOCKED", sc, limited_arrivals, priorities=True,
                  maps=MAPS)


def _cycles(cfg_text: str, queued_after: list, nodes, running, first: list):
    """A first cycle (which makes the plans), then one with `queued_after` queued."""
    cfg = parse_config(cfg_text)
    state = run_cycle(ClusterSnapshot(1000, nodes, (*running, *first)), cfg, explain=False).state
    res = run_cycle(ClusterSnapshot(1030, nodes, (*running, *queued_after)), cfg, state,
                    explain=False)
    res.state.caches.engine.limits.check_plans()
    return res


@pytest.mark.parametrize("pre", [True, False])
def test_blocked_jobs_are_passed_over_and_the_next_job_starts_as_backfill(pre, monkeypatch):
    """Five queued jobs of QOS long (MAXJOB 1, one running) head the order: with the
    switch on the pass visits only the job behind them (pre_blocked returns its position
    alone), which starts as BACKFILL all the same (a blocked job waits before it)."""
    monkeypatch.setattr(priority_pass, "PRE_BLOCKED", pre)
    seen = []
    real = priority_pass.pre_blocked
    monkeypatch.setattr(priority_pass, "pre_blocked",
                        lambda c, order, first: seen.append(real(c, order, first)) or seen[-1])
    text = ("RESERVATIONDEPTH 1\nBACKFILLPOLICY NONE\nQUEUETIMEWEIGHT 1\n"
            "QOSCFG[long] MAXJOB=1\n")
    nodes = (Node("n0", Resources(procs=4, mem=4000)),)
    one = JobRequest(tasks=1, per_task=Resources(1, 0))
    run = Job("r", "u0", one, 5000, 900, qos="long", state=JobState.RUNNING, start_time=950,
              allocation=(("n0", Resources(procs=1, mem=0)),))
    longs = [Job(f"l{i}", "u1", one, 600, 960 + i, qos="long") for i in range(5)]
    other = Job("x", "u2", one, 300, 990)
    res = _cycles(text, [*longs, other], nodes, [run], longs)
    starts = [d for d in res.decisions if isinstance(d, Start)]
    assert [(d.job_id, d.kind.name) for d in starts] == [("x", "BACKFILL")]
    if pre:
        assert seen[-1] == ([5], 0)
    else:
        assert seen[-1] == (None, None)


def _count_arrivals(k: int, pick: int, now: int) -> dict[str, Job]:
    """limited_arrivals without memory: plain one-processor tasks, so that identical
    nodes plan with processor counts, whose kept reservations reach the pass (a job
    holding one whose plan a limit now stops takes the reservation branch)."""
    return {jid: Job(jid, j.user, JobRequest(tasks=j.request.tasks, per_task=Resources(1, 0)),
                     j.wallclock, now, group=j.group, qos=j.qos)
            for jid, j in limited_arrivals(k, pick, now).items()}


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_on_the_count_planner_too(sc):
    nodes, text, steps = sc
    same = tuple(Node(f"n{i}", Resources(procs=4, mem=4000)) for i in range(len(nodes)))
    replay_on_off(priority_pass, "PRE_BLOCKED", (same, text, steps), _count_arrivals,
                  priorities=True, maps=MAPS)


def test_jobs_started_reserved_or_run_now_are_visited_even_when_their_plan_is_stopped():
    """pre_blocked on a cycle object holding only what it reads: plan A stopped, plan B
    not; the A jobs already started, holding a reservation or run-now are visited (they
    take other branches first), the other A jobs passed over, B and planless jobs
    visited; the first passed-over position is returned."""
    from types import SimpleNamespace
    plan_a, plan_b = (("MAXJOB", "A"),), (("MAXJOB", "B"),)
    jobs = [SimpleNamespace(id=f"j{k}") for k in range(8)]
    plans = [plan_b, plan_a, plan_a, None, plan_a, plan_a, plan_a, plan_b]
    plan_of = {id(j): p for j, p in zip(jobs, plans) if p}
    limits = SimpleNamespace(plan_of=plan_of,
                             active_violation=lambda job, usage, level: plan_of[id(job)] is plan_a)
    c = SimpleNamespace(limits=limits, usage=None, started={"j2"},
                        state=SimpleNamespace(reservations={"j4": 1}, run_now={"j6"}))
    order = [(j, None, 0.0) for j in jobs]
    assert priority_pass.pre_blocked(c, order, 0) == ([0, 2, 3, 4, 6, 7], 1)
    assert priority_pass.pre_blocked(c, order, 2) == ([2, 3, 4, 6, 7], 5)
    limits.active_violation = lambda job, usage, level: False
    assert priority_pass.pre_blocked(c, order, 0) == (None, None)
