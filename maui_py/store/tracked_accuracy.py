"""How good mauid's forecasts turned out (issue 36, tracked accuracy), from the records the
store keeps (store/forecasts.Tracked): each job's first forecast, its plan estimate and its
real start. Read by showstart --accuracy, diagnose and the Prometheus metrics alike.

Over the jobs first forecast in the window that started after that forecast:
- coverage_80: the share of real starts within [p10, p90];
- mae_p50, mae_plan: the median absolute error, in seconds, of p50 and of the plan's point
  estimate (jobs without a plan estimate are left out of mae_plan only); the median of an
  even count is the lower middle value (integer seconds), as forecast/accuracy.py's.
Broken down by class (queue), QOS and size (SIZES, processors). O(rows log rows).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .forecasts import Tracked

SIZES: tuple[tuple[int, int, str], ...] = ((1, 1, "1"), (2, 4, "2-4"), (5, 16, "5-16"), (17, 64, "17-64"),
                                           (65, 256, "65-256"), (257, 1 << 62, "257+"))
"""Size classes by processors (lowest, highest, label)."""


@dataclass(frozen=True, slots=True)
class Figures:
    jobs: int
    inside: int
    coverage_80: float | None
    mae_p50: int | None
    mae_plan: int | None
    planned: int
    """Jobs with a plan estimate (what mae_plan is over)."""


def size_of(procs: int) -> str:
    return next((label for lo, hi, label in SIZES if lo <= procs <= hi), SIZES[0][2])


def _median(values: list[int]) -> int | None:
    if not values:
        return None
    s = sorted(values)
    return s[(len(s) - 1) // 2]


def figures(rows: Iterable[Tracked]) -> Figures:
    """The figures over the rows whose job started after its first forecast."""
    inside, n, err50, errplan = 0, 0, [], []
    for t in rows:
        if t.start is None or t.start <= t.first_at:
            continue
        n += 1
        inside += t.p10 <= t.start <= t.p90
        err50.append(abs(t.p50 - t.start))
        if t.plan is not None:
            errplan.append(abs(t.plan - t.start))
    return Figures(n, inside, inside / n if n else None, _median(err50), _median(errplan), len(errplan))


def breakdown(rows: Iterable[Tracked]) -> dict[tuple[str, str], Figures]:
    """("all", ""), ("class", name), ("qos", name), ("size", label) -> figures; a group
    only when at least one of its jobs counts. Names "" read as [NONE]."""
    rows = [t for t in rows if t.start is not None and t.start > t.first_at]
    groups: dict[tuple[str, str], list[Tracked]] = {("all", ""): rows}
    for t in rows:
        for key in (("class", t.class_ or "[NONE]"), ("qos", t.qos or "[NONE]"), ("size", size_of(t.procs))):
            groups.setdefault(key, []).append(t)
    order = {"all": 0, "class": 1, "qos": 2, "size": 3}
    sizes = {label: k for k, (_lo, _hi, label) in enumerate(SIZES)}
    keys = sorted(groups, key=lambda k: (order[k[0]], sizes.get(k[1], 0) if k[0] == "size" else 0, k[1]))
    return {k: figures(groups[k]) for k in keys}
