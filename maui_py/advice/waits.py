"""What a queued job waits for, from the cycle's own report on it and the table it left.

In the order the cycle looks (core/cycle.Cycle.select): a hold, a defer, a dependency, a
throttling limit (recomputed with policy/limits, so that the line says how much of the
limit is in use: "user limit MAXPROC 64 reached: 60 in use"), then the resources: the
priority reservation that keeps it from starting now (the first, by start, whose absence
on the table lets it start now: "behind the reservation of job 4711"), else the running
jobs. Cost: a few planner questions, one per reservation looked at (at most MAX_LOOKED).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Job
from ..model.report import ReportStatus
from ..model.times import duration
from ..planning import owners
from ..policy.limits import HARD, Limits
from .guide import Guide

MAX_LOOKED = 16
"""Priority reservations tried one by one as the one in the job's way."""


@dataclass(frozen=True)
class Wait:
    """One thing the job waits for: `what` (hold, deferred, dependency, limit, reservation,
    resources, blocked), until when if known (epoch seconds), and the sentence."""

    what: str
    until: int | None
    reason: str


def limit_wait(cfg, job: Job, running: list[Job], now: int) -> Wait | None:
    """The active-job limit the job would cross, with what its credential has in use."""
    limits = Limits(cfg)
    usage = limits.active.usage(now, running)
    v = limits.active_violation(job, usage, HARD)
    if v is None:
        return None
    counter = v.limit[4:] if v.limit.startswith("OMAX") else v.limit[3:]
    used = usage.get(v.kind, v.name, counter)
    shown = duration(used) if counter == "WC" else str(used)
    label = "QOS" if v.kind == "qos" else v.kind
    return Wait("limit", None, f"{label} limit {v.limit} {duration(v.value) if counter == 'WC' else v.value}"
                f" reached: {shown} in use ({v.kind} {v.name})")


def blocker(guide: Guide, job: Job, reservations: dict, now: int) -> Wait | None:
    """The priority reservation in the job's way now, when removing one is enough."""
    others = sorted((kr.start, jid, kr) for jid, kr in reservations.items()
                    if jid != job.id and kr.start < now + job.wallclock and kr.end > now)
    if not others:
        return None
    every = tuple(owners.priority(jid) for _s, jid, _kr in others)
    if guide.earliest(job, until=now, ignore=every) is None:
        return None
    for start, jid, kr in others[:MAX_LOOKED]:
        if guide.earliest(job, until=now, ignore=(owners.priority(jid),)) is not None:
            return Wait("reservation", kr.end, f"behind the reservation of job {jid}"
                        f" (reserved at {start} for {duration(kr.end - start)})")
    names = ", ".join(jid for _s, jid, _kr in others[:5]) + (", ..." if len(others) > 5 else "")
    return Wait("reservation", None, f"behind the reservations of jobs {names}")


def waits(report, job: Job, cfg, moment, guide: Guide, reservations: dict) -> list[Wait]:
    """What `job` waits for, given the cycle's `report` on it (core/result.JobReport)."""
    now = moment.now
    status = report.status if report is not None else None
    reason = report.reason if report is not None else ""
    if status is ReportStatus.HELD:
        return [Wait("hold", None, f"held: {reason}")]
    if status is ReportStatus.DEFERRED:
        return [Wait("deferred", None, reason)]
    if not job.depends_satisfied:
        return [Wait("dependency", None, "for the job it depends on")]
    running = [j for j in moment.jobs if j.state.active]
    got = limit_wait(cfg, job, running, now)
    if got is not None:
        return [got]
    if status is ReportStatus.BLOCKED and reason.startswith("blocked: "):
        return [Wait("blocked", None, reason)]
    out = []
    own = reservations.get(job.id)
    b = blocker(guide, job, reservations, now)
    if b is not None:
        out.append(b)
    elif guide.earliest(job, until=now, ignore=tuple(owners.priority(j) for j in reservations)) is None:
        up = sum(n.resources.procs for n in moment.nodes if n.state.usable)
        free = max(0, up - sum(j.procs for j in running))
        out.append(Wait("resources", None, f"for running jobs to end: needs {job.procs}"
                        f" procs, {free} free now"))
    if own is not None:
        out.append(Wait("reserved", own.start, f"for its reservation: reserved at {own.start}"
                        f" (in {duration(own.start - now)})"))
    return out
