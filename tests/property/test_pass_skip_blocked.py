"""The priority pass passes over a job whose limit plan a soft limit stopped earlier in
the same pass without asking again (policy/priority_pass.SKIP_BLOCKED) and decides as the
definition, which asks every job: the same decisions, order and persisted maps at every
cycle, with soft and hard limits that bind (MAXJOB, MAXPROC, QOS overrides), NOBF jobs,
depth 1 to 3, fair share or not; each side's planner checked (`_check()`)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from maui_py.cfg import parse_config
from maui_py.core.cycle import run_cycle
from maui_py.model import ClusterSnapshot, Job, JobRequest, JobState, Node, Resources, Start
from maui_py.policy import limits, priority_pass

from .on_off import limited_arrivals, replay_on_off
from .test_backfill_in_order import scenarios


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_a_pass_skipping_still_blocked_plans_decides_as_one_asking_every_job(sc):
    replay_on_off(priority_pass, "SKIP_BLOCKED", sc, limited_arrivals,
                  maps=("deferred", "batch_holds", "queue_time", "reservations", "bypass"))


@pytest.mark.parametrize("skip", [True, False])
def test_jobs_of_a_blocked_plan_are_asked_once_and_the_next_job_starts_as_backfill(skip,
                                                                                 monkeypatch):
    """Five queued jobs of QOS long (MAXJOB 1, one running) share one plan: with the skip
    the pass asks it once (from the second cycle on, the plans kept), without it five
    times; the job of another QOS behind them starts all the same, as BACKFILL (a blocked
    job waits before it)."""
    asked = []
    real = limits.Limits.active_violation
    monkeypatch.setattr(limits.Limits, "active_violation",
                        lambda self, job, usage, level=limits.HARD:
                        asked.append(job.id) or real(self, job, usage, level))
    monkeypatch.setattr(priority_pass, "SKIP_BLOCKED", skip)
    cfg = parse_config("RESERVATIONDEPTH 1\nBACKFILLPOLICY NONE\nQUEUETIMEWEIGHT 1\n"
                       "QOSCFG[long] MAXJOB=1\n")
    nodes = (Node("n0", Resources(procs=4, mem=4000)),)
    one = JobRequest(tasks=1, per_task=Resources(1, 0))
    run = Job("r", "u0", one, 5000, 900, qos="long", state=JobState.RUNNING, start_time=950,
              allocation=(("n0", Resources(procs=1, mem=0)),))
    longs = [Job(f"l{i}", "u1", one, 600, 960 + i, qos="long") for i in range(5)]
    other = Job("x", "u2", one, 300, 990)
    state = run_cycle(ClusterSnapshot(1000, nodes, (run, *longs)), cfg, explain=False).state
    asked.clear()                       # the plans are kept per job from the first cycle
    res = run_cycle(ClusterSnapshot(1030, nodes, (run, *longs, other)), cfg, state,
                    explain=False)
    starts = [d for d in res.decisions if isinstance(d, Start)]
    assert [d.job_id for d in starts] == ["x"]
    assert starts[0].kind.name == "BACKFILL"
    assert sum(1 for j in asked if j.startswith("l")) == (1 if skip else 5)
