"""Hunt case seed12-2476e75c.json, by hand: on the count planner under CURRENTHIGHEST and
a soft MAXJOB, a reservation made before a backfill start of the same group is left in
place by the next cycle (policy/kept._unmoved: `stamp == freed`, nothing came free),
while a cycle with no memory (the state as the store keeps it) finds the job over its
soft limit and reserves nothing. Run: python -m tests.hunt.cases.count_kept_over_soft_limit
(prints both; exit 1 while they differ)."""

from __future__ import annotations

import sys
from dataclasses import replace

from maui_py.cfg import parse_config
from maui_py.core.cycle import run_cycle
from maui_py.core.state import SchedulerState
from maui_py.model import ClusterSnapshot, Job, JobRequest, JobState, Node, Resources, Start

from ..all_switches import from_scratch

CFG = parse_config("RESERVATIONPOLICY CURRENTHIGHEST\nRESERVATIONDEPTH 1\n"
                   "BACKFILLPOLICY FIRSTFIT\nQUEUETIMEWEIGHT 1\nGROUPCFG[g1] MAXJOB=2,3\n")
NODES = (Node("n0", Resources.of(1)), Node("n1", Resources.of(1)))


def job(jid: str, tasks: int, submit: int) -> Job:
    return Job(jid, "u0", JobRequest(tasks=tasks, per_task=Resources.of(1)), 10, submit,
               group="g1")


def main() -> int:
    jobs = {j.id: j for j in (job("j00", 1, 0), job("j01", 2, 0), job("j02", 1, 0))}
    first = run_cycle(ClusterSnapshot(0, NODES, tuple(jobs.values())), CFG, SchedulerState(),
                      explain=False)
    for d in first.decisions:           # j00 starts, j01 reserved at 10, j02 backfilled
        if isinstance(d, Start):
            jobs[d.job_id] = replace(jobs[d.job_id], state=JobState.RUNNING, start_time=0,
                                     allocation=d.allocation)
    jobs["j07"] = job("j07", 1, 1)
    snap = ClusterSnapshot(1, NODES, tuple(jobs.values()))
    scratch = run_cycle(snap, CFG, from_scratch(first.state, CFG), explain=False)
    kept = run_cycle(snap, CFG, first.state, explain=False)
    got = {j: (kr.start, kr.end) for j, kr in kept.state.reservations.items()}
    want = {j: (kr.start, kr.end) for j, kr in scratch.state.reservations.items()}
    print(f"t=1 kept caches: {got}\nt=1 no caches:   {want}")
    return int(got != want)


if __name__ == "__main__":
    sys.exit(main())
