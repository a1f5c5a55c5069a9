"""Kept reservations, a pass over the cycle context (core/cycle.Cycle): Maui's
MQueueScheduleRJobs (spec §3.5.3), run before the priority pass.
"""

from __future__ import annotations

from ..cfg.choices import ReservationPolicy
from ..model import StartKind
from ..planning.counts import CountTable
from ..planning import owners
from ..planning.table import Placement
from . import deferral
from .limits import SOFT

REMAKES: dict[ReservationPolicy, bool] = {
    ReservationPolicy.HIGHEST: True,
    ReservationPolicy.CURRENTHIGHEST: False,
    ReservationPolicy.NEVER: False,
}
"""RESERVATIONPOLICY -> whether a priority reservation of an earlier cycle is re-made here at
its earliest start (HIGHEST) or dropped, for the priority pass to make again in order."""


def _positions(order, wanted) -> dict[str, int]:
    """Where the jobs in `wanted` stand in `order` (those that are in it): the scan stops at
    the last of them, which under priority order is near the front. O(position of the last)."""
    left = len(wanted)
    index: dict[str, int] = {}
    for k, (job, _cr, _p) in enumerate(order):
        if job.id in wanted:
            index[job.id] = k
            left -= 1
            if not left:
                break
    return index


def reserved_jobs(c, order) -> None:
    """Reservations made in earlier cycles (Maui's MQueueScheduleRJobs).

    Under the count planner the reservations of the first jobs in order, made in that
    same order (the dictionary keeps it), stay exactly as they are when nothing came
    free since they were made: re-making them would find
    the same start, each having been placed around only the ones before it, and they
    name no nodes. (On the node table they are re-made: a kept one would keep nodes a
    fresh choice, made after the backfill starts since, would not take, and a cycle
    with no memory must decide the same.) The others are all released first, so that
    each is re-made around the jobs before it only, as a cycle with no memory would make
    them. Retry holds try to start on their own resources. HIGHEST re-makes every other
    one at its earliest start, depth or not; CURRENTHIGHEST drops them, for the
    priority pass to make again in order.
    (Re-planning in place, keeping the old nodes when the start is unchanged, was
    tried: slower, and worse for backfill, since a fresh choice leaves the nodes that
    came free to backfill.)
    """
    st, now = c.state, c.now
    if not st.reservations:
        return
    index = _positions(order, st.reservations)
    keep = set()
    made = iter(st.reservations)
    for job, _cr, _p in (order if isinstance(c.table, CountTable) else ()):
        kr = st.reservations.get(job.id)
        if (kr is None or next(made) != job.id
                or kr.stamp != c.table.freed or kr.start <= now
                or owners.priority(job.id) not in c.table.holds
                or (kr.retry_until is not None and kr.retry_until > now)):
            break
        keep.add(job.id)
    for jid in [j for j in st.reservations if j not in index]:
        c.table.release(owners.priority(jid))
        del st.reservations[jid]
    redo = sorted((j for j in st.reservations if j not in keep), key=index.__getitem__)
    for jid in redo:
        kr = st.reservations[jid]
        if kr.retry_until is None or kr.retry_until <= now:
            c.table.release(owners.priority(jid))
    for jid in redo:
        kr = st.reservations[jid]
        k = index[jid]
        job, cr, _prio = order[k]
        if kr.retry_until is not None and kr.retry_until > now:
            if kr.start <= now and not c.limits.active_violation(job, c.usage, SOFT):
                c.table.release(owners.priority(jid))
                if c.table.fits(kr.allocation, now, now + c.span(job)):
                    c.start(job, Placement(now, now + c.span(job), kr.allocation),
                            StartKind.RESERVED, k)
                    continue
                c.table.reserve(owners.priority(jid), kr.start, kr.end, kr.allocation,
                                kind="priority", force=True)
            continue
        if not REMAKES[c.res_policy]:
            del st.reservations[jid]
            continue
        ign = c.ignore(job)
        p = c.table.earliest_start(cr, c.span(job), now, policy=c.nap, ignore=ign)
        if not p:
            del st.reservations[jid]
            deferral.defer(c, job, "insufficient resources to start reserved job: "
                        + c.blocked_by(job, cr, p))
            continue
        why = c.past_standing(job, cr, p)
        if why:
            del st.reservations[jid]
            deferral.defer(c, job, why)
            continue
        if p.start <= now and not c.limits.active_violation(job, c.usage, SOFT):
            c.start(job, p, StartKind.RESERVED, k)
            continue
        c.table.reserve_placement(owners.priority(jid), p, kind="priority", inside=ign)
        kr.start, kr.end, kr.allocation = p.start, p.end, p.allocation
