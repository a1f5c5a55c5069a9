"""Forecasts calibrated by how earlier ones turned out (split-conformal, per side).

The replays' range is too narrow when what they leave out matters (later arrivals that
backfill ahead, runtimes the history has not seen yet), and their p50 is biased the same
way. What has happened tells by how much: for each job forecast earlier whose real start is
known by now, its wait y against the forecast's waits, on a log scale of minutes
(L(w) = log(1 + w / 60): an error of ten minutes matters on a one-hour wait, not on a
day's). With u = L(y) - L(w90) (how far past p90) and l = L(w10) - L(y) (how far before
p10), a new forecast's p90 moves by the 90th percentile of u and its p10 by that of l, each
over the last `window` such jobs: the split-conformal adjustment of Romano, Patterson and
Candes (Conformalized Quantile Regression, NeurIPS 2019), one side at a time so that early
and late misses can differ. The p50 stays the replays' own (kept inside the new range):
moving it by the median of its log error made its absolute error worse on KTH
(docs/simulator.md, "Start forecasts").
Only what is known at the forecast's own moment is read: a job counts once it has started
(`add` is called then), so a replay's calibration never looks ahead.

Cost: add O(1) amortised; adjust O(window log window) the first time after an add (the
two quantiles are kept until the next add), O(1) after.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, replace

from .engine import Forecast

WINDOW = 128
"""The last started jobs the adjustment reads."""
MIN_JOBS = 32
"""Fewer started jobs than this: forecasts are left as the replays made them."""
MAX_WINDOW = 100_000


def _log(wait: int) -> float:
    return math.log1p(max(0, wait) / 60.0)


def _unlog(x: float) -> int:
    return max(0, int(round(math.expm1(max(0.0, x)) * 60.0)))


@dataclass(frozen=True, slots=True)
class Shifts:
    """The log-scale moves of p10 (down) and p90 (up) a forecast gets."""

    low: float
    high: float


class Calibration:
    """The scores of the last `window` forecast jobs that started after their forecast."""

    __slots__ = ("window", "min_jobs", "low", "high", "_shifts")

    def __init__(self, window: int = WINDOW, min_jobs: int = MIN_JOBS):
        self.window = max(1, min(int(window), MAX_WINDOW))
        self.min_jobs = max(1, int(min_jobs))
        self.low: deque[float] = deque(maxlen=self.window)
        self.high: deque[float] = deque(maxlen=self.window)
        self._shifts: Shifts | None = None

    def add(self, at: int, f: Forecast, start: int) -> None:
        """A job forecast at `at` started at `start`; one that started at once is left out
        (accuracy.py counts only those that waited). O(1)."""
        if start <= at:
            return
        y = _log(start - at)
        self.low.append(_log(f.p10 - at) - y)
        self.high.append(y - _log(f.p90 - at))
        self._shifts = None

    def shifts(self) -> Shifts | None:
        """The moves the scores give, None while fewer than min_jobs are known."""
        if len(self.high) < self.min_jobs:
            return None
        if self._shifts is None:
            # the split-conformal rank: ceil((n + 1) q) of n, for 80 % between the sides
            n = len(self.high)
            q = min(1.0, math.ceil((n + 1) * 0.9) / n)
            self._shifts = Shifts(quantile_f(self.low, q), quantile_f(self.high, q))
        return self._shifts

    def adjust(self, at: int, f: Forecast) -> Forecast:
        """`f`, made at `at`, moved by the shifts (unchanged while there are none); the
        order p10 <= p50 <= p90 is kept and no start is before `at`."""
        s = self.shifts()
        if s is None:
            return f
        p10 = at + _unlog(_log(f.p10 - at) - s.low)
        p90 = max(p10, at + _unlog(_log(f.p90 - at) + s.high))
        return replace(f, p10=p10, p50=min(max(f.p50, p10), p90), p90=p90)

    def _check(self) -> None:
        assert len(self.low) == len(self.high) <= self.window
        assert all(math.isfinite(v) for d in (self.low, self.high) for v in d)


def quantile_f(values, p: float) -> float:
    """The nearest-rank p-quantile of non-empty float `values` (engine.quantile's rule)."""
    s = sorted(values)
    k = max(1, math.ceil(p * len(s) - 1e-9))
    return s[min(k, len(s)) - 1]
