"""A reservation kept from the last cycle whose job a start since has put over a soft limit
(a backfill of its user or group): a cycle with no memory blocks the job in the priority
pass and reserves nothing, so the cycle that kept its caches must drop the reservation too.
On the count planner kept._unmoved left it in place because nothing had come free (found by
the all-switches bug hunt, seed 12: tests/hunt/cases/count_kept_over_soft_limit.py)."""

from __future__ import annotations

import copy
from dataclasses import fields, replace

import pytest

from maui_py.cfg import parse_config
from maui_py.core.cycle import run_cycle
from maui_py.core.state import SchedulerState
from maui_py.model import ClusterSnapshot, Job, JobRequest, JobState, Node, Resources, Start


def _scratch(state: SchedulerState, cfg) -> SchedulerState:
    """What the store keeps of `state` (every cache empty)."""
    fresh = SchedulerState()
    for f in fields(SchedulerState):
        if f.name != "caches":
            setattr(fresh, f.name, copy.deepcopy(getattr(state, f.name), {id(cfg): cfg}))
    return fresh


def _job(jid: str, tasks: int, submit: int, mem: int) -> Job:
    return Job(jid, "u0", JobRequest(tasks=tasks, per_task=Resources.of(1, mem=mem)), 10,
               submit, group="g1")


@pytest.mark.parametrize("limit", ["GROUPCFG[g1] MAXJOB=2,3", "USERCFG[u0] MAXJOB=2,3",
                                   "USERCFG[u0] MAXPROC=5,8"])
@pytest.mark.parametrize("mem", [0, 64], ids=["count planner", "node table"])
def test_a_kept_reservation_over_a_soft_limit_is_dropped_as_from_scratch(limit, mem):
    cfg = parse_config("RESERVATIONPOLICY CURRENTHIGHEST\nRESERVATIONDEPTH 1\n"
                       f"BACKFILLPOLICY FIRSTFIT\nQUEUETIMEWEIGHT 1\n{limit}\n")
    nodes = tuple(Node(f"n{i}", Resources.of(1 + (limit.endswith("5,8")), mem=mem * 4))
                  for i in range(2))
    wide = 2 + 2 * limit.endswith("5,8")
    jobs = {j.id: j for j in (_job("j00", 1, 0, mem), _job("j01", wide, 0, mem),
                              _job("j02", 1, 0, mem))}
    first = run_cycle(ClusterSnapshot(0, nodes, tuple(jobs.values())), cfg, SchedulerState(),
                      explain=False)
    started = {d.job_id for d in first.decisions if isinstance(d, Start)}
    assert started == {"j00", "j02"} and set(first.state.reservations) == {"j01"}
    for d in first.decisions:           # j00 starts, j01 is reserved, j02 is backfilled
        if isinstance(d, Start):
            jobs[d.job_id] = replace(jobs[d.job_id], state=JobState.RUNNING, start_time=0,
                                     allocation=d.allocation)
    jobs["j07"] = _job("j07", 1, 1, mem)
    snap = ClusterSnapshot(1, nodes, tuple(jobs.values()))
    want = run_cycle(snap, cfg, _scratch(first.state, cfg), explain=False)
    got = run_cycle(snap, cfg, first.state, explain=False)
    assert not want.state.reservations          # j01 is over its soft limit now
    assert got.decisions == want.decisions
    assert {j: (r.start, r.end, r.allocation) for j, r in got.state.reservations.items()} == \
        {j: (r.start, r.end, r.allocation) for j, r in want.state.reservations.items()}
