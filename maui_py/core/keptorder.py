"""The order a cycle from what changed (core/changes.py) starts from: the last cycle's
order kept, checked or dated (order_now), and the lists it extends in place.

A cycle from what changed keeps the last cycle's priority order (ChangeCache.order) and
the ids of it (ChangeCache.ids). Both lists belong to the cache alone: the cache is
dropped when the cycle starts (st.caches.changes = None), a full cycle never reads it,
and remember() copies the ids it is given before it keeps them, so no CycleResult holds
the cache's own ids. The cycle may then extend them in place with its arrivals
(extended, IN_PLACE) instead of copying the queue into new lists twice a cycle.
"""

from __future__ import annotations

from operator import itemgetter

from ..planning import owners
from ..priority import kinetic
from ..priority.engine import order_key
from . import restarts

_MIXED = object()
_COMPILED = itemgetter(1)
_JOB = itemgetter(0)

IN_PLACE = True
"""Extend the dropped cache's own order and ids with the cycle's arrivals (extended)
instead of building new lists: O(arrivals) instead of O(queued) per cycle, in C either
way. False: new lists, the definition tests/property/test_kept_order.py compares against
(and checks that no earlier cycle's result saw its order change)."""


def extended(items: list, added: list, ids: bool = True) -> list:
    """`items` (a list of the dropped cache's own) followed by the ids of the jobs of
    `added` entries (job, request, priority), or by the entries themselves (ids False):
    `items` itself, extended, under IN_PLACE, else a new list. O(added) (else O(items))."""
    tail = [e[0].id for e in added] if ids else added
    if not IN_PLACE:
        return items + tail
    items.extend(tail)
    return items


def ends_only(table, now: int, ended) -> bool:
    """No hold ends by `now` but those of the jobs `ended` (a set): a hold that ends
    without its job's end needs the full sync. O(k log k), k holds ending by now."""
    return all(owners.job_of(o) in ended for o in table.ending_by(now))


def common_static(engine, entries, start=_MIXED) -> float | None:
    """The static priority part all `entries` share (and `start`, when given), else None;
    inf for no entries. O(len(entries))."""
    value = float("inf") if start is _MIXED else start
    if value is None:
        return None
    prefix = engine._prefix
    for e in entries:
        job = e[0]
        hit = prefix.get(job.id)
        v = hit[1] if hit is not None and hit[0] is job else engine.static_sum(job)
        if v != value:
            if value != float("inf"):
                return None
            value = v
    return value


def order_now(c, cache, new: list, quiet: bool) -> tuple | None:
    """For core/changes.run, with `cache` the last cycle's ChangeCache and `new` the jobs
    that arrived: (the kept jobs' entries now, the common static part, whether the order changed,
    quiet, (the date up to which the kept entries stay ranked, -1 unknown; the last one's
    job and priority now when jobs arrived)) or None (run in full). With one slope that
    never falls (order_fixed), one static part and queue time from submission, priority
    falls with the submit time at every instant: the order is (submit, id) and never
    changes, and each new job must go last. Else, before the cache's date (kinetic.py),
    the order stands and only the last job's priority is worked out; past it each
    priority is recomputed in O(1) and the order dated again. When the order changed it
    is sorted again by the priorities now, as the full cycle sorts it, and the passes run
    in full. O(new), or O(queued)."""
    st, now = c.state, c.now
    eng = c.engine
    serv, qt, bp = eng.serv_priority, st.queue_time, st.bypass
    static = common_static(eng, [(j,) for j in new], cache.static) if new else cache.static
    if (eng.order_fixed and static is not None and restarts.none_queued(qt, cache.order)
            and restarts.none_arrived(qt, new)):
        fresh = cache.order
        last = fresh[-1][0] if fresh else None
        for job in new:
            if last is not None and not ((last.submit_time, len(last.id), last.id)
                                         < (job.submit_time, len(job.id), job.id)):
                return None
        return fresh, static, False, quiet, (-1, None)
    fresh, t = cache.order, cache.until     # ranked up to t (priority/kinetic.py)
    dated = now <= t and not qt and kinetic.KINETIC
    reorder = False
    if not dated:
        jobs = list(map(_JOB, fresh))
        ps = eng.serv_priorities(jobs, now, qt, bp)
        fresh = list(zip(jobs, map(_COMPILED, fresh), ps))
        reorder = not kinetic.ranked(jobs, ps)
        t = -1 if reorder else kinetic.until(eng, jobs, ps, now, qt)
    last = None
    if fresh and new:
        j = fresh[-1][0]
        last = (j, serv(j, now, qt.get(j.id, j.submit_time), bp.get(j.id, 0)) if dated
                else fresh[-1][2])
        for job in new:
            key = order_key(job, serv(job, now, qt.get(job.id, job.submit_time), bp.get(job.id, 0)))
            if not order_key(*last) < key:
                reorder = True
    if reorder and dated:           # sorted again by the priorities now
        jobs = list(map(_JOB, fresh))
        fresh = list(zip(jobs, map(_COMPILED, fresh), eng.serv_priorities(jobs, now, qt, bp)))
    if reorder and quiet:
        quiet = False
        if not ends_only(cache.table, now, c.snap.delta.ended):
            return None
    return fresh, None, reorder, quiet, (-1 if reorder else t, last)
