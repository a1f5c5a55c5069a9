"""BACKFILLPOLICY helpers: the metric BESTFIT and GREEDY maximise, and GREEDY's search.

BESTFIT needs no search of its own: within one backfill pass resources only shrink, so
"start the fitting job with the largest metric, repeat" is first-fit over the candidates
sorted by metric (ties keep priority order). The cycle does exactly that.
"""

from __future__ import annotations

from typing import Sequence

from ..model import Job


def metric(job: Job, kind: str) -> float:
    """BACKFILLMETRIC: PROCS (and NODES, as 3.3.1), PROCSECONDS, SECONDS."""
    if kind == "PROCSECONDS":
        return float(job.procs * job.wallclock)
    if kind == "SECONDS":
        return float(job.wallclock)
    return float(job.procs)


def greedy_pick(cands: Sequence[tuple], procs: int, kind: str, max_schedules: int) -> list[tuple]:
    """The subset of (pos, job, ...) candidates with the largest total metric whose
    processors fit in `procs`: depth-first search with backtracking over at most
    `max_schedules` partial schedules (BACKFILLMAXSCHEDULES), best bound first.
    Returns the chosen candidates in priority (input) order. O(max_schedules)."""
    items = sorted(range(len(cands)), key=lambda i: -metric(cands[i][1], kind))
    values = [metric(cands[i][1], kind) for i in items]
    sizes = [cands[i][1].procs for i in items]
    suffix = [0.0] * (len(items) + 1)
    for k in range(len(items) - 1, -1, -1):
        suffix[k] = suffix[k + 1] + values[k]
    best_val, best_set = 0.0, []
    visited = 0
    stack = [(0, procs, 0.0, [])]
    while stack and visited < max_schedules:
        k, room, val, chosen = stack.pop()
        visited += 1
        if val > best_val:
            best_val, best_set = val, chosen
        if k >= len(items) or val + suffix[k] <= best_val:
            continue
        stack.append((k + 1, room, val, chosen))
        if sizes[k] <= room:
            stack.append((k + 1, room - sizes[k], val + values[k], chosen + [items[k]]))
    return [cands[i] for i in sorted(best_set)]
