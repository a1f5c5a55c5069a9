"""Figures of a replay: wait, bounded slowdown, utilization, backfill share, per class, QOS,
user and job size; the time series and the size x length grid the report plots.

Bounded slowdown of a job = max(1, (wait + run) / max(run, 10)): the usual threshold of
10 s keeps very short jobs from dominating the mean (Feitelson et al.). Utilization =
delivered processor-seconds / (machine processors x (last end - first submission)).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from ..model import StartKind
from .rm import SimRecord

BSLD_THRESHOLD = 10


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list (0 <= q <= 100)."""
    if not sorted_values:
        return 0.0
    k = min(len(sorted_values) - 1, max(0, int(round(q / 100.0 * len(sorted_values) + 0.5)) - 1))
    return float(sorted_values[k])


@dataclass
class Figures:
    jobs: int = 0
    finished: int = 0
    makespan: int = 0
    utilization: float = 0.0
    wait_mean: float = 0.0
    wait_p50: float = 0.0
    wait_p90: float = 0.0
    wait_p99: float = 0.0
    wait_max: float = 0.0
    bsld_mean: float = 0.0
    bsld_max: float = 0.0
    backfill_share: float = 0.0
    killed: int = 0
    work: int = 0
    """Processor-seconds delivered (finished jobs)."""
    predicted: int = 0
    """Finished jobs planned with a runtime prediction (PREDICTIONPOLICY); the pred_* figures
    are over them: mean absolute error (s), the shares under-predicted (ran longer) and
    over-predicted (ran shorter), and the corrections made when one outlived its plan."""
    pred_mae: float = 0.0
    pred_under: float = 0.0
    pred_over: float = 0.0
    corrections: int = 0

    def as_row(self) -> dict[str, float]:
        return dict(self.__dict__)


@dataclass
class Summary:
    total: Figures
    by_class: dict[str, Figures] = field(default_factory=dict)
    by_qos: dict[str, Figures] = field(default_factory=dict)
    unfinished: int = 0
    by_user: dict[str, Figures] = field(default_factory=dict)
    by_size: dict[str, Figures] = field(default_factory=dict)
    """Keyed by size_bucket label, smallest first."""


def figures(records: Iterable[SimRecord], machine_procs: int, span: tuple[int, int] | None = None) -> Figures:
    """Figures over finished jobs. O(n log n) (sorting the waits)."""
    recs = [r for r in records]
    done = [r for r in recs if r.end is not None and r.start is not None]
    f = Figures(jobs=len(recs), finished=len(done))
    if not done:
        return f
    waits = sorted(r.start - r.job.submit_time for r in done)
    bslds = [_bsld(r) for r in done]
    first = min(r.job.submit_time for r in done) if span is None else span[0]
    last = max(r.end for r in done) if span is None else span[1]
    work = sum(r.job.procs * (r.end - r.start) for r in done)
    f.makespan = last - first
    f.utilization = work / (machine_procs * f.makespan) if f.makespan > 0 and machine_procs else 0.0
    f.wait_mean = sum(waits) / len(waits)
    f.wait_p50, f.wait_p90, f.wait_p99 = (percentile(waits, q) for q in (50, 90, 99))
    f.wait_max = float(waits[-1])
    f.bsld_mean = sum(bslds) / len(bslds)
    f.bsld_max = max(bslds)
    f.backfill_share = sum(1 for r in done if r.kind is StartKind.BACKFILL) / len(done)
    f.killed = sum(1 for r in done if r.killed)
    f.work = work
    _prediction_figures(f, [r for r in done if r.estimate is not None])
    return f


def _prediction_figures(f: Figures, recs: list[SimRecord]) -> None:
    """The pred_* figures of `f` over finished jobs that had a prediction. O(n)."""
    f.predicted = len(recs)
    if not recs:
        return
    errors = [(r.end - r.start) - r.estimate for r in recs]
    f.pred_mae = sum(abs(e) for e in errors) / len(errors)
    f.pred_under = sum(1 for e in errors if e > 0) / len(errors)
    f.pred_over = sum(1 for e in errors if e < 0) / len(errors)
    f.corrections = sum(r.corrections for r in recs)


def size_bucket(procs: int) -> tuple[int, str]:
    """(order, label) of a job size: 1, 2, 3-4, 5-8, ... (powers of two)."""
    if procs <= 1:
        return 0, "1"
    hi = 1 << (procs - 1).bit_length()
    return hi.bit_length() - 1, ("2" if hi == 2 else f"{hi // 2 + 1}-{hi}")


LENGTH_BUCKETS: tuple[tuple[int, str], ...] = (
    (600, "< 10m"), (3600, "10m-1h"), (4 * 3600, "1h-4h"), (12 * 3600, "4h-12h"),
    (24 * 3600, "12h-24h"), (2**62, ">= 24h"))
"""Upper bounds (exclusive) and labels of the runtime buckets of the slowdown grid."""


def length_bucket(runtime: int) -> int:
    return next(k for k, (hi, _label) in enumerate(LENGTH_BUCKETS) if runtime < hi)


def _bsld(r: SimRecord) -> float:
    return max(1.0, (r.end - r.job.submit_time) / max(r.end - r.start, BSLD_THRESHOLD))


@dataclass
class Grid:
    """Mean bounded slowdown of finished jobs by size (rows) and runtime (columns)."""

    sizes: list[str]
    lengths: list[str]
    mean: list[list[float | None]]
    count: list[list[int]]


def slowdown_grid(records: Iterable[SimRecord]) -> Grid:
    """Size buckets that occur (smallest first) x every LENGTH_BUCKETS column. O(n)."""
    cells: dict[tuple[int, int], list[float]] = {}
    labels: dict[int, str] = {}
    for r in records:
        if r.start is None or r.end is None:
            continue
        order, label = size_bucket(r.job.procs)
        labels[order] = label
        cell = cells.setdefault((order, length_bucket(r.end - r.start)), [0.0, 0])
        cell[0] += _bsld(r)
        cell[1] += 1
    rows = sorted(labels)
    n = len(LENGTH_BUCKETS)
    count = [[int(cells.get((o, k), (0, 0))[1]) for k in range(n)] for o in rows]
    mean = [[cells[o, k][0] / cells[o, k][1] if (o, k) in cells else None for k in range(n)]
            for o in rows]
    return Grid([labels[o] for o in rows], [lb for _h, lb in LENGTH_BUCKETS], mean, count)


def binned_series(records: Iterable[SimRecord], machine_procs: int, bins: int = 240
                  ) -> tuple[list[int], list[float], list[float]]:
    """(bin start times, mean utilization, mean queue length) over `bins` equal slices of
    [first submission, last end]: time-weighted averages, so a plot reads at a glance
    whatever the trace's length. O(n log n + bins)."""
    ev: list[tuple[int, int, int]] = []
    for r in records:
        ev.append((r.job.submit_time, 0, 1))
        if r.start is not None:
            ev.append((r.start, r.job.procs, -1))
            if r.end is not None:
                ev.append((r.end, -r.job.procs, 0))
    if not ev:
        return [], [], []
    ev.sort()
    t0, t1 = ev[0][0], max(e[0] for e in ev)
    bins = max(1, min(bins, t1 - t0)) if t1 > t0 else 1
    width = max(1, t1 - t0) / bins
    busy_area = [0.0] * bins
    queue_area = [0.0] * bins
    busy = queue = 0
    last = t0

    def spread(a: int, b: int) -> None:
        """Add busy and queue x time over [a, b) to the bins it covers."""
        k = min(int((a - t0) / width), bins - 1)
        while a < b:
            edge = min(b, t0 + (k + 1) * width) if k < bins - 1 else b
            busy_area[k] += busy * (edge - a)
            queue_area[k] += queue * (edge - a)
            a = edge
            k += 1
    for t, dp, dq in ev:
        if t > last:
            spread(last, t)
            last = t
        busy += dp
        queue += dq
    procs = max(machine_procs, 1)
    starts = [int(t0 + k * width) for k in range(bins)]
    return starts, [a / (width * procs) for a in busy_area], [a / width for a in queue_area]


def smooth(values: list[float], window: int) -> list[float]:
    """Centred moving average over `window` points (fewer at the ends)."""
    half = max(window, 1) // 2
    sums = [0.0]
    for v in values:
        sums.append(sums[-1] + v)
    out = []
    for k in range(len(values)):
        lo, hi = max(0, k - half), min(len(values), k + half + 1)
        out.append((sums[hi] - sums[lo]) / (hi - lo))
    return out


def wait_cdf(records: Iterable[SimRecord], points: int = 200) -> list[tuple[int, float]]:
    """(wait seconds, fraction of started jobs waiting at most that), at most `points`
    points, always including the largest wait."""
    waits = sorted(r.start - r.job.submit_time for r in records if r.start is not None)
    if not waits:
        return []
    n = len(waits)
    step = max(1, n // points)
    idx = list(range(step - 1, n, step))
    if idx[-1] != n - 1:
        idx.append(n - 1)
    return [(waits[k], (k + 1) / n) for k in idx]


def summarize(records: dict[str, SimRecord], machine_procs: int) -> Summary:
    recs = list(records.values())
    done = [r for r in recs if r.end is not None]
    span = ((min(r.job.submit_time for r in done), max(r.end for r in done)) if done else None)
    s = Summary(figures(recs, machine_procs), unfinished=len(recs) - len(done))
    for attr, out in (("class_", s.by_class), ("qos", s.by_qos)):
        groups: dict[str, list[SimRecord]] = {}
        for r in recs:
            groups.setdefault(getattr(r.job, attr) or "-", []).append(r)
        if len(groups) > 1:
            for k in sorted(groups):
                out[k] = figures(groups[k], machine_procs, span)
    users: dict[str, list[SimRecord]] = {}
    sizes: dict[tuple[int, str], list[SimRecord]] = {}
    for r in recs:
        users.setdefault(r.job.user or "-", []).append(r)
        sizes.setdefault(size_bucket(r.job.procs), []).append(r)
    for u in sorted(users):
        s.by_user[u] = figures(users[u], machine_procs, span)
    for key in sorted(sizes):
        s.by_size[key[1]] = figures(sizes[key], machine_procs, span)
    return s
