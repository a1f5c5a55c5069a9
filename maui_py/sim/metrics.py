"""Figures of a replay: wait, bounded slowdown, utilization, backfill share, per class/QOS.

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

    def as_row(self) -> dict[str, float]:
        return dict(self.__dict__)


@dataclass
class Summary:
    total: Figures
    by_class: dict[str, Figures] = field(default_factory=dict)
    by_qos: dict[str, Figures] = field(default_factory=dict)
    unfinished: int = 0


def figures(records: Iterable[SimRecord], machine_procs: int, span: tuple[int, int] | None = None) -> Figures:
    """Figures over finished jobs. O(n log n) (sorting the waits)."""
    recs = [r for r in records]
    done = [r for r in recs if r.end is not None and r.start is not None]
    f = Figures(jobs=len(recs), finished=len(done))
    if not done:
        return f
    waits = sorted(r.start - r.job.submit_time for r in done)
    bslds = [max(1.0, (r.end - r.job.submit_time) / max(r.end - r.start, BSLD_THRESHOLD))
             for r in done]
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
    return f


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
    return s
