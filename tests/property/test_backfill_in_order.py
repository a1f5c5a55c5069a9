"""FIRSTFIT backfill in priority order under throttling limits walks the order itself
(policy/backfill._in_order_limited, switch backfill.IN_ORDER_LIMITS) and decides as the
definition, which builds a candidate list of the whole order and runs the soft and the
hard pass over it: the same decisions, order and persisted maps at every cycle, with
soft and hard limits that bind (MAXJOB, MAXPROC, a QOS override), NOBF jobs, kept
reservations at depth 1 to 3, fair share or not; each side's planner checked (`_check()`).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core.cycle import run_cycle
from maui_py.model import ClusterSnapshot, Job, JobRequest, JobState, Node, Resources, Start
from maui_py.policy import backfill

from .on_off import limited_arrivals, replay_on_off

LIMITS = ["USERCFG[u0] MAXJOB=1,2 MAXPROC=3\nUSERCFG[DEFAULT] MAXPROC=2,5\n",
          "QOSCFG[long] MAXJOB=1,2 QFLAGS=NOBF\nGROUPCFG[g1] MAXJOB=2,3\n",
          "USERCFG[DEFAULT] MAXJOB=1,3\nQOSCFG[long] OMAXJOB=2\n",
          "QOSCFG[long] MAXJOB=2 PRIORITY=-100\nQOSWEIGHT 1\nUSERCFG[u1] MAXPROC=2,4\n"]
FAIR = ["", "FSPOLICY DEDICATEDPS\nFSINTERVAL 300\nFSDEPTH 3\nFSDECAY 0.5\nFSWEIGHT 1\n"
            "FSUSERWEIGHT 10\nUSERCFG[DEFAULT] FSTARGET=30-\nUSERCFG[u2] FSTARGET=40\n"]


@st.composite
def scenarios(draw):
    nodes = tuple(Node(f"n{i}", Resources(procs=draw(st.sampled_from([2, 4])), mem=4000))
                  for i in range(draw(st.integers(1, 3))))
    text = (f"RESERVATIONDEPTH {draw(st.sampled_from([1, 2, 3]))}\nBACKFILLPOLICY FIRSTFIT\n"
            "DEFERTIME 60\nDEFERCOUNT 2\nQUEUETIMEWEIGHT 1\n"
            + draw(st.sampled_from(LIMITS)) + draw(st.sampled_from(FAIR)))
    kinds = ["arrive", "arrive", "arrive", "end", "end", "hold", "release", "copy", "tick"]
    steps = [(draw(st.sampled_from(kinds)), draw(st.integers(0, 10_000)))
             for _ in range(draw(st.integers(6, 28)))]
    return nodes, text, steps


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_firstfit_in_order_under_limits_decides_as_over_a_candidate_list(sc):
    replay_on_off(backfill, "IN_ORDER_LIMITS", sc, limited_arrivals,
                  maps=("deferred", "batch_holds", "queue_time", "reservations"))


@pytest.mark.parametrize("in_order", [True, False])
def test_the_in_order_walk_is_taken_under_limits_and_the_hard_pass_starts_a_job(in_order,
                                                                              monkeypatch):
    """u0 (MAXJOB 1 soft, 2 hard) runs one job; its next queued job is stopped by the
    soft limit in the soft pass and started by the hard pass, behind a reservation for a
    wide job; the walk is the one taken when switched on (else the comparison above would
    compare the definition with itself)."""
    walks = []
    real = backfill._in_order_limited
    monkeypatch.setattr(backfill, "_in_order_limited",
                        lambda c, order, first: walks.append(1) or real(c, order, first))
    monkeypatch.setattr(backfill, "IN_ORDER_LIMITS", in_order)
    cfg = parse_config("RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\nQUEUETIMEWEIGHT 1\n"
                       "USERCFG[u0] MAXJOB=1,2\n")
    nodes = (Node("n0", Resources(procs=4, mem=4000)),)
    one = JobRequest(tasks=1, per_task=Resources(1, 0))
    run = Job("r", "u0", one, 5000, 900, state=JobState.RUNNING, start_time=950,
              allocation=(("n0", Resources(procs=1, mem=0)),))
    wide = Job("w", "u1", JobRequest(tasks=4, per_task=Resources(1, 0)), 600, 960)
    small = Job("s", "u0", one, 300, 970)
    res = run_cycle(ClusterSnapshot(1000, nodes, (run, wide, small)), cfg, explain=False)
    starts = [d.job_id for d in res.decisions if isinstance(d, Start)]
    assert starts == ["s"]
    assert "w" in res.state.reservations
    assert bool(walks) == in_order
