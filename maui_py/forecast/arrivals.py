"""Arrivals drawn for a forecast's replay from the recent arrival stream (an option: with a
priority other than FCFS a later job can go ahead, and under any priority a backfilled
arrival can delay the jobs behind the first).

The stream after `now` repeats the recent one at random: each gap between two arrivals is
one of the recent stream's gaps, each job a copy of one of its jobs (user, size, request,
class ...) with an id of its own, running a runtime drawn from its user's ratios
(runtimes.py). Bounded by MAX_ARRIVALS a replay and by the replay's horizon.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Mapping, Sequence

from ..model import Job, JobState
from ..sim.swf import SimJob
from .runtimes import draw_runtime, ratios

MAX_ARRIVALS = 1000
"""Arrivals drawn for one replay at most."""


def draw_arrivals(rng: random.Random, recent: Sequence[Job], now: int, until: int,
                  history: Mapping, window: int, limit: int = MAX_ARRIVALS) -> list[SimJob]:
    """Jobs arriving in (now, until], drawn from `recent` (the jobs submitted lately, in
    submission order); none from fewer than two. O(limit + len(recent))."""
    if len(recent) < 2:
        return []
    times = [j.submit_time for j in recent]
    gaps = [max(0, b - a) for a, b in zip(times, times[1:])]
    out: list[SimJob] = []
    t = now
    while len(out) < min(limit, MAX_ARRIVALS):
        t += gaps[rng.randrange(len(gaps))]
        if t > until:
            break
        t = max(t, now + 1)
        src = recent[rng.randrange(len(recent))]
        job = replace(src, id=f"{src.id}~{len(out) + 1}", submit_time=t, state=JobState.IDLE,
                      start_time=None, allocation=())
        out.append(SimJob(job, draw_runtime(rng, ratios(history, src.user, window), src.wallclock)))
    return out
