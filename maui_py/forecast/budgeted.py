"""A forecast within a time budget (mauid's forecasts, issue 36): the K replays of
engine.forecast run one at a time, each through the engine's public `forecast` with one
sample and a seed of its own, until K are done or the deadline has passed; then each job's
p10 / p50 / p90 over the replays done (at least one). A replay under way is not stopped (the
daemon kills a worker that overruns by far); `cut` says the budget ended it early.
Cost: the replays done, each as engine.forecast's one; what each job may draw is worked
out once (engine.choices), not per replay.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable, Collection, Mapping, Sequence

from ..cfg import SchedulerConfig
from ..core.state import SchedulerState
from ..model import Job
from .engine import Forecast, ForecastOptions, Moment, choices, forecast, quantile


@dataclass(frozen=True, slots=True)
class Budgeted:
    forecasts: dict[str, Forecast]
    done: int
    """Replays done (every job forecast got this many)."""
    cut: bool
    """The deadline stopped it before options.samples replays."""


def forecast_within(moment: Moment, cfg: SchedulerConfig, state: SchedulerState, history: Mapping,
                    options: ForecastOptions, deadline: float, *, clock: Callable[[], float] = time.monotonic,
                    targets: Collection[str] | None = None,
                    plan: Callable[[Job], int | None] | None = None, recent: Sequence[Job] = ()) -> Budgeted:
    """Replays until options.samples are done or clock() >= deadline (checked before each
    replay but the first). Replay k draws with seed options.seed * MAX + k, so the first k
    replays are the same whatever the budget; with options.arrivals, arrivals are drawn from
    `recent` (engine.forecast). `state` is not changed."""
    opt = options.bounded()
    starts: dict[str, list[int]] = {}
    late: dict[str, int] = {}
    done, cut = 0, False
    menu = choices(moment, history, opt.window)        # the same for every replay
    for k in range(opt.samples):
        if k > 0 and clock() >= deadline:
            cut = True
            break
        one = forecast(moment, cfg, state, history, replace(opt, samples=1, seed=opt.seed * 1000 + k), targets,
                       recent=recent, menu=menu)
        for jid, f in one.items():
            starts.setdefault(jid, []).append(f.p50)
            late[jid] = late.get(jid, 0) + f.late
        done += 1
    queued = {j.id: j for j in moment.jobs}
    out = {jid: Forecast(jid, quantile(v, 0.1), quantile(v, 0.5), quantile(v, 0.9), len(v), late[jid],
                         plan(queued[jid]) if plan is not None else None)
           for jid, v in sorted(starts.items())}
    return Budgeted(out, done, cut)
