"""The decision journal: what each cycle changed, one entry per change.

A cycle's entries come from comparing what the state held before the cycle (`capture`)
with what the cycle decided (`cycle_entries`):
  start              a Start decision (written BEFORE it is pushed: the intent)
  start-confirmed    a pending start whose job the resource manager now runs
  start-failed       a pending start whose job is idle again (refused)
  start-gone         a pending start whose job has already left the queue
                     (a start is pending from its cycle until one of these three; while
                     the resource manager reports the job Starting, nothing is written)
  start-unconfirmed  after a restart: a start whose job is idle; it was perhaps never
                     pushed, and the job is scheduled again (written by the daemon)
  reserve            a new priority reservation
  reserve-moved      a kept reservation that now starts elsewhere or at another time
  reserve-dropped    a reservation that is gone without its job starting
  defer, hold, release   Defer, Hold, ReleaseHold decisions
The daemon adds its own events (daemon-start, daemon-stop, config-reload, config-error,
rm-error, rm-ok, request). A reservation that stays where it was is not journaled again,
so the journal grows with what happens, not with the number of cycles.

Cost: O(decisions + pending starts + reservations) per cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from ..model import ClusterSnapshot, Defer, Hold, JobState, ReleaseHold, Reserve, Start
from .codec import encode

START = "start"
START_CONFIRMED = "start-confirmed"
START_FAILED = "start-failed"
START_GONE = "start-gone"
START_UNCONFIRMED = "start-unconfirmed"
RESERVE = "reserve"
RESERVE_MOVED = "reserve-moved"
RESERVE_DROPPED = "reserve-dropped"
DEFER = "defer"
HOLD = "hold"
RELEASE = "release"
REQUEST = "request"


@dataclass(frozen=True, slots=True)
class JournalEntry:
    event: str
    job_id: str = ""
    reason: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)
    cycle: int | None = None
    at: float | None = None
    id: int | None = None


@dataclass(frozen=True, slots=True)
class Before:
    """What the state held before a cycle, as far as the journal needs it."""

    reservations: Mapping[str, tuple[int, int, tuple[str, ...]]]
    """job id -> (start, end, sorted node names)."""
    pending: Mapping[str, Any]
    failed: Mapping[str, str]


def capture(state) -> Before:
    """Take before run_cycle: the cycle changes the state in place. O(reservations + pending)."""
    return Before({jid: _where(kr) for jid, kr in state.reservations.items()},
                  dict(state.pending), dict(state.failed))


def _where(r) -> tuple[int, int, tuple[str, ...]]:
    """(start, end, nodes in name order): a reservation rebuilt after a restart may list
    the same nodes in another order, which is no move."""
    return r.start, r.end, tuple(sorted(n for n, _ in r.allocation))


def _nodes(allocation) -> list[str]:
    return [n for n, _ in allocation]


def decision_entries(decisions, reports: Mapping[str, Any], cycle: int | None) -> list[JournalEntry]:
    """Entries for Start, Defer, Hold and ReleaseHold decisions (reasons from `reports`)."""
    out = []
    for d in decisions:
        report = reports.get(d.job_id)
        why = report.reason if report is not None else ""
        if isinstance(d, Start):
            out.append(JournalEntry(START, d.job_id, why, {"kind": d.kind.value, "nodes": list(d.nodes),
                                                          "allocation": encode(d.allocation)}, cycle))
        elif isinstance(d, Defer):
            out.append(JournalEntry(DEFER, d.job_id, d.reason, {"until": d.until}, cycle))
        elif isinstance(d, Hold):
            out.append(JournalEntry(HOLD, d.job_id, d.reason, {"hold": d.hold.value}, cycle))
        elif isinstance(d, ReleaseHold):
            out.append(JournalEntry(RELEASE, d.job_id, d.reason, {"hold": d.hold.value}, cycle))
    return out


def cycle_entries(before: Before, result, snapshot: ClusterSnapshot) -> list[JournalEntry]:
    """The journal entries of one cycle (see the module docstring)."""
    cycle = result.iteration
    jobs = {j.id: j for j in snapshot.jobs}
    out: list[JournalEntry] = []

    def add(event: str, job_id: str, reason: str = "", **detail: Any) -> None:
        out.append(JournalEntry(event, job_id, reason, detail, cycle))

    for jid, p in before.pending.items():
        job = jobs.get(jid)
        if job is None or job.state.finished:
            add(START_GONE, jid, "the job left the queue before the next cycle")
        elif job.state is JobState.STARTING:
            continue
        elif job.state.active:
            add(START_CONFIRMED, jid, f"{job.state.value} on {','.join(job.nodes)}",
                nodes=list(job.nodes), state=job.state.value)
        else:
            add(START_FAILED, jid, before.failed.get(jid) or "still idle after the start was pushed",
                nodes=_nodes(p.allocation))
    out += decision_entries(result.decisions, result.reports, cycle)
    started = {d.job_id for d in result.decisions if isinstance(d, Start)}
    reserved = {d.job_id: d for d in result.decisions if isinstance(d, Reserve)}
    for jid, r in reserved.items():
        now = _where(r)
        old = before.reservations.get(jid)
        if old == now:
            continue
        detail: dict[str, Any] = {"start": r.start, "end": r.end, "nodes": _nodes(r.allocation)}
        if old is None:
            add(RESERVE, jid, f"reserved at {r.start}", **detail)
        else:
            add(RESERVE_MOVED, jid, f"moved from {old[0]} to {r.start}", **detail,
                was={"start": old[0], "end": old[1], "nodes": list(old[2])})
    for jid in before.reservations:
        if jid not in reserved and jid not in started:
            report = result.reports.get(jid)
            add(RESERVE_DROPPED, jid, report.reason if report is not None else "the job left the queue")
    return out
