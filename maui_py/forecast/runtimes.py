"""Runtimes drawn for a forecast's replay, from what the history says about the user.

The history is predict.predictors.History (user -> (runtime, request) pairs, oldest first),
the shape PREDICTIONPOLICY's per-user histories keep and predict.learn fills; a forecast
reads the last `window` pairs of the job's user as runtime/request ratios. A queued job runs
its request times one ratio drawn at random (its request when the user has no history); a
running job that has run `elapsed` s draws among the ratios that give more than that (it is
still running), else runs its request. Never above the request: the resource manager kills
there. Seeded by the caller's random.Random, so a replay is deterministic.

draw_recent leans toward the user's last jobs (the "recent" draw, the default): with
probability 1/2 among the last RECENT ratios, else among all of the window's. A user's next
runtime is most like their last ones (Tsafrir, Etsion and Feitelson, "Backfilling using
system-generated predictions rather than user runtime estimates", IEEE TPDS 2007: the mean
of the last two runtimes predicted well); half the weight stays on the longer window so that
one odd recent job does not decide every replay (docs/simulator.md, "Start forecasts").

draw_similar (the "similar" draw, the default) is draw_recent with the user's last RECENT
jobs that asked the very same wallclock limit in place of the user's last RECENT jobs, when
the user's last SAME_WINDOW jobs hold one: a user's jobs with the same request are most
often runs of the same application, and user and requested run time are among the job
attributes whose matches predict a runtime best (Smith, Foster and Taylor, "Predicting
application run times with historical information", JPDC 2004). same_request gives their
runtimes.
"""

from __future__ import annotations

import random
from typing import Mapping, Sequence

from ..predict.predictors import History

WINDOW = 32
"""The user's last completed jobs a draw looks at (a forecast's default)."""
MAX_WINDOW = 1000
"""The most a caller may ask for: a bound on the work per draw."""
RECENT = 4
"""The user's last jobs draw_recent draws among half the time."""
SAME_WINDOW = 256
"""The user's last completed jobs same_request looks through for jobs of the same request."""


def ratios(history: Mapping[str, Sequence[tuple[int, int]]] | History, user: str,
           window: int = WINDOW) -> tuple[float, ...]:
    """runtime/request of the user's last `window` completed jobs (with a request), oldest
    first. O(window)."""
    window = max(0, min(int(window), MAX_WINDOW))
    if window == 0:
        return ()
    past = history.get(user, ())
    return tuple(r / q for r, q in tuple(past)[-window:] if q > 0)


def spans(user_ratios: Sequence[float], request: int, elapsed: int = 0) -> tuple[int, ...]:
    """The runtimes a job asking `request` s that has run `elapsed` s (0 when queued) may
    draw: the request times each ratio, at least 1 s and at most the request, those above
    `elapsed`; (request,) when none is. O(len(user_ratios))."""
    request = max(int(request), 1)
    elapsed = max(int(elapsed), 0)
    if elapsed >= request:
        return (request,)
    out = tuple(s for s in (min(request, max(1, round(x * request))) for x in user_ratios) if s > elapsed)
    return out or (request,)


def same_request(history: Mapping[str, Sequence[tuple[int, int]]] | History, user: str, request: int,
                 window: int = SAME_WINDOW) -> tuple[int, ...]:
    """The runtimes of the user's last `window` completed jobs that asked exactly `request`
    s (oldest first), each at least 1 s and at most the request. O(window)."""
    window = max(0, min(int(window), MAX_WINDOW))
    request = int(request)
    if window == 0 or request <= 0:
        return ()
    past = tuple(history.get(user, ()))[-window:]
    return tuple(min(request, max(1, int(r))) for r, q in past if q == request)


def draw_runtime(rng: random.Random, user_ratios: Sequence[float], request: int,
                 elapsed: int = 0) -> int:
    """A runtime (seconds from the start) drawn uniformly among spans(user_ratios, request,
    elapsed). O(len(user_ratios))."""
    choices = spans(user_ratios, request, elapsed)
    return choices[rng.randrange(len(choices))] if len(choices) > 1 else choices[0]


def draw_recent(rng: random.Random, choices: Sequence[int], own: Sequence[int], elapsed: int = 0) -> int:
    """A runtime leaning toward the user's last jobs: `own` is the user's ratios as runtimes
    of this job's request, oldest first (engine.choices); `choices` its spans (what a uniform
    draw picks among). With probability 1/2, uniformly among the last RECENT of `own` above
    `elapsed` (when there is one), else uniformly among `choices`: of n >= RECENT choices of
    a queued job, each of the last RECENT weighs 1/(2 RECENT) + 1/(2n), an older one 1/(2n). One rng.random() a call, and one
    rng.randrange() when the pool has more than one runtime. O(RECENT)."""
    last = [s for s in own[-RECENT:] if s > elapsed]
    pool = last if rng.random() < 0.5 and last else choices
    return pool[rng.randrange(len(pool))] if len(pool) > 1 else pool[0]


def draw_similar(rng: random.Random, choices: Sequence[int], own: Sequence[int], same: Sequence[int],
                 elapsed: int = 0) -> int:
    """draw_recent leaning toward the user's jobs that asked this job's request: `same` is
    their runtimes, oldest first (same_request). With probability 1/2, uniformly among the
    last RECENT of `same` above `elapsed`, or when none is, among the last RECENT of `own`
    above it (draw_recent's lean); else uniformly among `choices`. The same calls on `rng`
    as draw_recent, so with no job of the same request it draws what draw_recent draws.
    O(RECENT)."""
    last = [s for s in same[-RECENT:] if s > elapsed] or [s for s in own[-RECENT:] if s > elapsed]
    pool = last if rng.random() < 0.5 and last else choices
    return pool[rng.randrange(len(pool))] if len(pool) > 1 else pool[0]
