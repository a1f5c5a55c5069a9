"""Kept reservations, a pass over the cycle context (core/cycle.Cycle): Maui's
MQueueScheduleRJobs (spec §3.5.3), run before the priority pass.
"""

from __future__ import annotations

from itertools import islice, takewhile
from operator import attrgetter

from ..cfg.choices import ReservationPolicy
from ..model import StartKind
from ..planning import memo, owners
from ..planning.api import Ability, Placement
from . import highest
from .limits import SOFT

REMAKES: dict[ReservationPolicy, bool] = {
    ReservationPolicy.HIGHEST: True,
    ReservationPolicy.CURRENTHIGHEST: False,
    ReservationPolicy.NEVER: False,
}
"""RESERVATIONPOLICY -> whether a priority reservation of an earlier cycle is re-made here at
its earliest start (HIGHEST) or dropped, for the priority pass to make again in order."""


_START = attrgetter("start")

MIN_REPLAN = 4
"""Fewer reservations than this are re-made one by one: building the re-plan's array of the
whole profile costs more than a few earliest-start scans (EASY has one)."""


def _positions(order, wanted) -> dict[str, int]:
    """Where the jobs in `wanted` stand in `order` (those that are in it): the scan stops at
    the last of them, which under priority order is near the front. O(position of the last)."""
    n = len(wanted)
    ids = [e[0].id for e in order[:n]]
    if ids == list(wanted):             # the common case: they head the order, in order
        return dict(zip(ids, range(n)))
    left = n
    index: dict[str, int] = {}
    for k, (job, _cr, _p) in enumerate(order):
        if job.id in wanted:
            index[job.id] = k
            left -= 1
            if not left:
                break
    return index


def _unmoved(c, order) -> set[str]:
    """The reservations of the first jobs in order, made in that same order (the
    dictionary keeps it), placed as a cycle with no memory would place them: as they are
    when nothing came free since they were made, else re-made in order on the count
    table (Planner.replan, Ability.REPLAN). Each was made at its earliest start around the ones before
    it and what held processors then; what came since was placed around all of them. One
    whose earliest start is now is left out, to be re-made (its hold already released): it
    fits now around the ones after it, which were placed around that start.
    O(reservations) plus the table's re-plan."""
    st, now, table = c.state, c.now, c.table
    if Ability.REPLAN not in table.abilities:
        return set()
    res = st.reservations
    freed = memo.epoch(table)
    stamp = st.caches.reserved_stamp
    request = not c.settings.predicting.on
    span = c.span
    m = 0                   # reservations seen with no retry hold
    odd = None              # the first whose span differs from its job's
    if c.kept_head and res and min(map(_START, res.values())) > now:
        m = len(res)        # every one: none starts by now (the rest is known)
    for (job, _cr, _p), (jid, kr) in zip(order, res.items()) if not m else ():
        if job.id != jid or kr.start <= now or (kr.retry_until is not None
                                                and kr.retry_until > now):
            break
        if odd is None:
            w = job.wallclock if request else int(span(job))
            if kr.end - kr.start != (w if w > 1 else 1):
                odd = m
        m += 1
    held = owners.priorities(islice(res, m))     # their holds' owners
    holds = table.holds
    if not all(map(holds.__contains__, held)):
        del held[sum(1 for _ in takewhile(holds.__contains__, held)):]
    n = len(held)
    if not n or stamp == freed:
        return set(islice(res, n))
    if n < MIN_REPLAN or c.access or c.limits.any_active or (
            m < len(res) and any(kr.retry_until is not None and kr.retry_until > now
                                 for kr in res.values())):
        return set()
    if odd is not None and odd < n:
        n = odd
    every = len(held) == len(res)           # and each of them holds (checked above)
    done, moves = table.replan(held if every else owners.priorities(res), n,
                               table.freed_until(stamp), all_held=every)
    keep = set(res) if done == len(res) else set(islice(res, done))
    cut = len(owners.priority(""))
    for o, t in moves:
        jid = o[cut:]
        if t > now:
            kr = res[jid]
            kr.end += t - kr.start
            kr.start = t
        else:
            keep.discard(jid)
    return keep


def reserved_jobs(c, order) -> None:
    """Reservations made in earlier cycles (Maui's MQueueScheduleRJobs).

    HIGHEST keeps every one and slides it forward (policy/highest.py). CURRENTHIGHEST
    and NEVER drop them, for the priority pass to make again in order, except those a
    cycle with no memory would make the same: under the count planner the reservations
    of the first jobs in order, made in that same order (the dictionary keeps it), as
    they are when nothing came free since they were made, else re-planned in order on
    one array, the table touched only for those that move (_unmoved). (On the node
    table they are dropped: a kept one would keep nodes a fresh choice, made after the
    backfill starts since, would not take, and a cycle with no memory must decide the
    same.) Retry holds (RESERVATIONRETRYTIME) try to start on their own resources.
    """
    st = c.state
    if not st.reservations:
        return
    if c.settings.res_policy is ReservationPolicy.HIGHEST:
        index = _positions(order, st.reservations)
        _drop_gone(c, index)
        highest.slide_forward(c, order, index, lambda jid: _retry(c, order, index[jid]))
        return
    keep = _unmoved(c, order)
    if len(keep) == len(st.reservations):
        return                      # every one is a job at the head of the order, in place
    index = _positions(order, st.reservations)
    _drop_gone(c, index)
    now = c.now
    retries = []
    for jid in [j for j in st.reservations if j not in keep]:
        kr = st.reservations[jid]
        if kr.retry_until is not None and kr.retry_until > now:
            retries.append(jid)
        else:
            c.table.release(owners.priority(jid))
            del st.reservations[jid]
    for jid in sorted(retries, key=index.__getitem__):
        _retry(c, order, index[jid])


def _drop_gone(c, index: dict[str, int]) -> None:
    """Release the reservations of jobs no longer in the order (held, deferred, gone)."""
    st = c.state
    if len(index) < len(st.reservations):
        for jid in [j for j in st.reservations if j not in index]:
            c.table.release(owners.priority(jid))
            del st.reservations[jid]


def _retry(c, order, k: int) -> None:
    """A job whose start failed keeps its resources for RESERVATIONRETRYTIME: it starts
    on them once its time has come and they are free, else holds them on."""
    job, _cr, _prio = order[k]
    kr = c.state.reservations[job.id]
    now = c.now
    if kr.start <= now and not c.limits.active_violation(job, c.usage, SOFT):
        c.table.release(owners.priority(job.id))
        if c.table.fits(kr.allocation, now, now + c.span(job)):
            c.start(job, Placement(now, now + c.span(job), kr.allocation), StartKind.RESERVED, k)
            return
        c.table.reserve(owners.priority(job.id), kr.start, kr.end, kr.allocation,
                        kind="priority", force=True)
