"""Defer and retry, a pass over the cycle context (core/cycle.Cycle; spec §3.5.3).

A start the resource manager did not carry out counts against DEFERSTARTCOUNT and may keep a
retry hold on its resources for RESERVATIONRETRYTIME; a job that cannot run is deferred for
DEFERTIME and batch-held after DEFERCOUNT defers; expired defers are released. The
reservations and defer records are the cycle's SchedulerState (core/state.py).
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import and_, attrgetter, gt, le

from ..cfg.choices import AccrualPolicy
from ..core.records import DeferRecord, KeptReservation, PendingStart
from ..model import Defer, Hold, HoldType, Job, ReleaseHold
from ..model.report import ReportStatus
from ..planning import owners


_UNTIL = attrgetter("until")

QUICK_PICK = True
"""release_defers picks the records whose until lies in (0, now] in C; False: a Python
pass over every record (the definition tests/unit/test_release_defers.py compares
against)."""

ACCRUAL_RESETS: dict[AccrualPolicy, frozenset[str] | None] = {
    AccrualPolicy.ALWAYS: frozenset(),
    AccrualPolicy.QUEUEPOLICY: frozenset({"limit"}),
    AccrualPolicy.FULLPOLICY: None,
}
"""JOBPRIOACCRUALPOLICY -> the reasons a job is held back ("limit", "hold", "dependency")
that restart its queue time; None: every reason."""


def reset_accrual(c, job_id: str, why: str) -> None:
    """JOBPRIOACCRUALPOLICY: queue-time priority restarts while a job is held back."""
    resets = ACCRUAL_RESETS[c.settings.accrual]
    if resets is None or why in resets:
        c.state.queue_time[job_id] = c.now


def settle_starts(c) -> None:
    """Last cycle's starts: each is done with, and one whose job is still queued failed
    (start_failed), with the reason the resource manager gave if any. O(starts)."""
    st, by_id = c.state, c.by_id
    pending, st.pending = st.pending, {}
    failed = st.failed
    for jid, p in pending.items():
        job = by_id.get(jid)
        if job is None or job.state.active:
            continue
        c.table.release(owners.job(jid))
        st.caches.plan.running.pop(jid, None)
        start_failed(c, job, p, failed.get(jid) or "still idle after the start was pushed")
    failed.clear()


def start_failed(c, job: Job, p: PendingStart, reason: str) -> None:
    st = c.state
    n = st.start_counts.get(job.id, 0) + 1
    st.start_counts[job.id] = n
    if n >= c.settings.defer_starts:
        defer(c, job, f"start failed {n} time(s): {reason}")
        return
    kept = st.reservations.get(job.id)
    if c.settings.retry_time > 0:
        until = kept.retry_until if kept and kept.retry_until else p.at + c.settings.retry_time
        if until > c.now:
            # placed around running jobs only, as a cycle with no table would place it:
            # the other reservations are re-made after (_reserved_jobs)
            for jid in st.reservations:
                c.table.release(owners.priority(jid))
            c.table.release(owners.priority(job.id))
            try:
                c.table.reserve(owners.priority(job.id), c.now, c.now + c.span(job),
                                p.allocation, kind="priority")
            except ValueError:
                st.reservations.pop(job.id, None)
                return
            st.reservations[job.id] = KeptReservation(
                job.id, c.now, c.now + c.span(job), p.allocation,
                c.groups.group(job.qos) or 0, c.now, until)


def defer(c, job: Job, reason: str) -> None:
    """Maui's defer: hold the job for DEFERTIME; after DEFERCOUNT defers, batch hold."""
    st = c.state
    c.pass_defers = c.pass_defers or c.in_passes
    st.reservations.pop(job.id, None)
    c.table.release(owners.priority(job.id))
    if c.settings.defer_time <= 0:
        c.report(job.id, ReportStatus.BLOCKED, reason)
        return
    c.settled.add(job.id)
    rec = st.deferred.setdefault(job.id, DeferRecord())
    rec.count += 1
    rec.until = c.now + c.settings.defer_time
    rec.reason = reason
    c.decisions.append(Defer(job.id, reason, rec.until))
    if c.settings.defer_count > 0 and rec.count > c.settings.defer_count:
        why = f"deferred {rec.count} times, last: {reason}"
        st.batch_holds[job.id] = why
        rec.until = 0
        c.decisions.append(Hold(job.id, HoldType.BATCH, why))
        c.report(job.id, ReportStatus.HELD, f"batch hold: {why}")
    else:
        c.report(job.id, ReportStatus.DEFERRED, f"deferred until {rec.until}: {reason}")


def release_defers(c) -> None:
    """Release every defer record that runs out by now (0 < until <= now): its until back
    to 0, the job's queue time restarted, a ReleaseHold decision, in the records' order.
    A record stays after its defer ran out (until 0: the DEFERCOUNT count), so most
    records are done with: those that run out are picked in C (QUICK_PICK), in the
    records' order, and only they are walked. O(records) in C plus O(released)."""
    recs, now = c.state.deferred, c.now
    if QUICK_PICK:
        untils = list(map(_UNTIL, recs.values()))
        due = list(compress(recs, map(and_, map(gt, untils, repeat(0)),
                                      map(le, untils, repeat(now)))))
    else:
        due = [jid for jid, rec in recs.items() if 0 < rec.until <= now]
    for jid in due:
        recs[jid].until = 0
        c.state.queue_time[jid] = now
        c.decisions.append(ReleaseHold(jid, HoldType.DEFER, "defer time elapsed"))
