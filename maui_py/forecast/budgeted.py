"""A forecast within a time budget (mauid's forecasts, issue 36): the K replays of
engine.forecast run one at a time (or, with Shortcuts.workers, that many at a time in forked
processes), each through the engine's public `forecast` with one sample and a seed of its
own, until K are done or the deadline has passed; then each job's p10 / p50 / p90 over the
replays done (at least one). A replay under way is not stopped (the daemon kills a worker
that overruns by far); `cut` says the budget ended it early.
Cost: the replays done, each as engine.forecast's one; what each job may draw is worked
out once (engine.choices), not per replay.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Collection, Mapping, Sequence

from ..cfg import SchedulerConfig
from ..core.state import SchedulerState
from ..model import Job
from .engine import Forecast, ForecastOptions, Moment, choices, forecast, quantile
from .shortcuts import ON, Shortcuts


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
                    plan: Callable[[Job], int | None] | None = None, recent: Sequence[Job] = (),
                    fast: Shortcuts = ON) -> Budgeted:
    """Replays until options.samples are done or clock() >= deadline (checked before each
    replay but the first is started). Replay k draws with seed options.seed * MAX + k, so
    the first k replays are the same whatever the budget; with options.arrivals, arrivals
    are drawn from `recent` (engine.forecast). With fast.workers > 1 (and fork available),
    that many replays run at once in forked processes, each started in replay order under
    the same deadline rule, so the replays done are again the first ones and give the same
    forecasts (shortcuts.py). The deadline is wall time (the caller's clock, time.monotonic
    by default), counted from whenever the caller took it. `state` is not changed."""
    opt, fast = options.bounded(), fast.bounded()
    menu = choices(moment, history, opt.window, fast.menu)        # the same for every replay

    def one(k: int) -> dict[str, tuple[int, int]]:
        got = forecast(moment, cfg, state, history, replace(opt, samples=1, seed=opt.seed * 1000 + k), targets,
                       recent=recent, menu=menu, fast=fast)
        return {jid: (f.p50, f.late) for jid, f in got.items()}

    if fast.workers > 1 and "fork" in mp.get_all_start_methods():
        runs = _forked(one, opt.samples, fast.workers, deadline, clock)
    else:
        runs = _in_turn(one, opt.samples, deadline, clock)
    starts: dict[str, list[int]] = {}
    late: dict[str, int] = {}
    for got in runs:
        for jid, (s, n) in got.items():
            starts.setdefault(jid, []).append(s)
            late[jid] = late.get(jid, 0) + n
    queued = {j.id: j for j in moment.jobs}
    out = {jid: Forecast(jid, quantile(v, 0.1), quantile(v, 0.5), quantile(v, 0.9), len(v), late[jid],
                         plan(queued[jid]) if plan is not None else None)
           for jid, v in sorted(starts.items())}
    return Budgeted(out, len(runs), len(runs) < opt.samples)


Replay = Callable[[int], dict[str, tuple[int, int]]]
"""Replay k -> each target's (start, 1 if late else 0)."""


def _in_turn(one: Replay, samples: int, deadline: float, clock: Callable[[], float]) -> list:
    """Replays 0, 1, ... in this process, each started while clock() < deadline (the first
    always). O(replays done)."""
    runs = []
    for k in range(samples):
        if k > 0 and clock() >= deadline:
            break
        runs.append(one(k))
    return runs


_FORKED: Replay | None = None
"""The replay a forked pool's processes run (inherited through fork, never pickled)."""


def _run_forked(k: int) -> dict[str, tuple[int, int]]:
    assert _FORKED is not None
    return _FORKED(k)


def _forked(one: Replay, samples: int, workers: int, deadline: float, clock: Callable[[], float]) -> list:
    """Replays in `workers` forked processes, started in replay order as _in_turn starts
    them (replay k > 0 only while clock() < deadline) whenever a process is free; every
    replay started is waited for, so those done are replays 0 .. d-1, and their results
    come back in that order. O(replays done) here, the replays in the processes."""
    global _FORKED
    _FORKED = one
    try:
        with mp.get_context("fork").Pool(min(workers, samples)) as pool:
            pending: dict[int, Any] = {}
            results: dict[int, dict] = {}
            k = 0
            while True:
                while k < samples and len(pending) < workers and (k == 0 or clock() < deadline):
                    pending[k] = pool.apply_async(_run_forked, (k,))
                    k += 1
                if not pending:
                    break
                ready = [i for i, r in pending.items() if r.ready()]
                if not ready:
                    pending[min(pending)].wait(0.02)
                for i in ready:
                    results[i] = pending.pop(i).get()
                if k < samples and len(pending) < workers and clock() >= deadline:
                    k = samples                     # the deadline passed: start no more
            return [results[i] for i in sorted(results)]
    finally:
        _FORKED = None
