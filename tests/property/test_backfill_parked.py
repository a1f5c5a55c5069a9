"""FIRSTFIT in priority order under throttling limits leaves the jobs a soft limit stops
from the start out of its soft walk and asks their plans once for the hard pass
(policy/backfill._parted, _parked_passes, switch backfill.PARK_STOPPED) and decides as the
definition, which walks every job: the same decisions (and positions, so bypass counts),
order, priorities and persisted maps at every cycle, with soft and hard limits that bind
(MAXJOB, MAXPROC, soft below hard, QOS overrides), NOBF jobs, depth 1 to 3, fair share or
not, on the node table; each side's planner checked (`_check()`).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from maui_py.cfg import parse_config
from maui_py.core.cycle import run_cycle
from maui_py.model import ClusterSnapshot, Job, JobRequest, JobState, Node, Resources, Start
from maui_py.policy import backfill

from .on_off import limited_arrivals, replay_on_off
from .test_backfill_in_order import scenarios

MAPS = ("deferred", "batch_holds", "queue_time", "reservations", "bypass")


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_backfill_leaving_stopped_jobs_out_of_its_walk_decides_as_one_walking_all(sc):
    replay_on_off(backfill, "PARK_STOPPED", sc, limited_arrivals, priorities=True, maps=MAPS)


@pytest.mark.parametrize("nobf", [False, True])
@pytest.mark.parametrize("park", [True, False])
def test_a_parked_job_under_its_hard_limit_starts_in_the_hard_pass(park, nobf, monkeypatch):
    """QOS long MAXJOB 1 soft, 3 hard, one running, the node full (a job that then ends):
    next cycle the queued long jobs are parked (a
    soft limit stops them from the start), the wide job reserves, and the hard pass
    starts two of them behind it (the hard limit's room), in order, as BACKFILL; under
    QFLAGS=NOBF none (backfill leaves them out, parked or not); the parting is the one
    taken when switched on."""
    parts = []
    real = backfill._parted
    monkeypatch.setattr(backfill, "_parted",
                        lambda c, order, first: parts.append(real(c, order, first)) or parts[-1])
    monkeypatch.setattr(backfill, "PARK_STOPPED", park)
    cfg = parse_config("RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\nQUEUETIMEWEIGHT 1\n"
                       "QOSCFG[long] MAXJOB=1,3" + (" QFLAGS=NOBF\n" if nobf else "\n"))
    nodes = (Node("n0", Resources(procs=8, mem=4000)),)
    one = JobRequest(tasks=1, per_task=Resources(1, 0))
    run = Job("r", "u0", one, 5000, 900, qos="long", state=JobState.RUNNING, start_time=950,
              allocation=(("n0", Resources(procs=1, mem=0)),))
    wide = Job("w", "u1", JobRequest(tasks=8, per_task=Resources(1, 0)), 600, 955)
    longs = [Job(f"l{i}", "u2", one, 300, 960 + i, qos="long") for i in range(4)]
    big = Job("b", "u3", JobRequest(tasks=7, per_task=Resources(1, 0)), 100, 900,
              state=JobState.RUNNING, start_time=950, allocation=(("n0", Resources(procs=7, mem=0)),))
    state = run_cycle(ClusterSnapshot(1000, nodes, (run, big, wide, *longs)), cfg,
                      explain=False).state      # full: nothing starts; the plans are kept
    res = run_cycle(ClusterSnapshot(1030, nodes, (run, wide, *longs)), cfg, state,
                    explain=False)
    starts = [(d.job_id, d.kind.name) for d in res.decisions if isinstance(d, Start)]
    assert starts == ([] if nobf else [("l0", "BACKFILL"), ("l1", "BACKFILL")])
    if park:
        assert [e[1].id for e in parts[-1][1]] == ([] if nobf else ["l0", "l1", "l2", "l3"])
    else:
        assert not parts
