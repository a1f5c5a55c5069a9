"""How good forecasts turned out: the figures issue 36 asks for, from each job's forecast
and its real start, over the jobs that did not start when they were forecast (a job that
starts at once is easy for any estimate).

- coverage_80: the share of real starts within [p10, p90];
- mae_p50, mae_plan: the median absolute error, in seconds, of p50 and of the plan's point
  estimate (a job whose plan is unknown is left out of mae_plan only).
Medians of an even count are the lower middle value (integer seconds, no averaging).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from .engine import Forecast


@dataclass(frozen=True, slots=True)
class Accuracy:
    jobs: int
    coverage_80: float | None
    mae_p50: int | None
    mae_plan: int | None


def _median(values: list[int]) -> int | None:
    if not values:
        return None
    s = sorted(values)
    return s[(len(s) - 1) // 2]


def accuracy(forecasts: Iterable[tuple[int, Forecast]], starts: Mapping[str, int | None]) -> Accuracy:
    """Over (forecast time, forecast) pairs whose job started after the forecast time
    (`starts`: job id -> real start, None when it never started: left out). O(n log n)."""
    inside, n = 0, 0
    err50: list[int] = []
    errplan: list[int] = []
    for at, f in forecasts:
        s = starts.get(f.job_id)
        if s is None or s <= at:
            continue
        n += 1
        inside += f.p10 <= s <= f.p90
        err50.append(abs(f.p50 - s))
        if f.plan is not None:
            errplan.append(abs(f.plan - s))
    return Accuracy(n, inside / n if n else None, _median(err50), _median(errplan))
