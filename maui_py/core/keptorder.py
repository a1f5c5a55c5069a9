"""The order a cycle from what changed (core/changes.py) starts from: the last cycle's
order kept as fixed, or checked and dated (order_now), with what it needs: the static
priority part the queue shares (common_static) and whether only the ended jobs' holds end
by now (ends_only). Out of changes.py for its size; no state of its own.
"""

from __future__ import annotations

from operator import itemgetter

from ..planning import owners
from ..priority import kinetic, kinlist
from ..priority.engine import order_key
from . import restarts

_MIXED = object()
_COMPILED = itemgetter(1)
_JOB = itemgetter(0)

QT_CARRIED = True
"""order_now takes "no job of the cache's order has a queue-time restart" as known when
the cache has a common static part (`static` is then not None only if cache.static is
not): remember() sets one only after checking it (a full cycle: restarts.none_queued over
the order it keeps) or for a cycle from what changed that checked it at its start for
the order and its arrivals; within such a cycle an entry is written (reset_accrual) only
for a job select() leaves out of the order (a hold, a dependency), release_defers runs
in full cycles, or in one from what changed only when each queued job it releases is left
out of the order again (core/deferouts.py), and nothing writes one between cycles.
False: check the order again each cycle, O(queued) in C, the definition
tests/property/test_kept_order.py compares against (and checks the fact after every
cycle)."""


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
    static_sum = engine.static_sum
    for e in entries:
        v = static_sum(e[0])
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
    in full (unless core/swapresume finds only swaps behind where the last priority pass
    stopped). O(new), or O(queued)."""
    st, now = c.state, c.now
    eng = c.engine
    serv, qt, bp = eng.serv_priority, st.queue_time, st.bypass
    static = common_static(eng, [(j,) for j in new], cache.static) if new else cache.static
    if (eng.order_fixed and static is not None
            and (QT_CARRIED or restarts.none_queued(qt, cache.order))
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
    kin = None if dated or qt else kinlist.settle(eng, fresh, cache.ids, now, t)
    if kin is not None:             # only the crossed pairs swapped (priority/kinlist.py)
        fresh, t, reorder = kin
        dated = True
    elif not dated:
        jobs = list(map(_JOB, fresh))
        ps = eng.serv_priorities(jobs, now, qt, bp)
        fresh = list(zip(jobs, map(_COMPILED, fresh), ps))
        reorder = not kinetic.ranked(jobs, ps)
        t = -1 if reorder else kinlist.date_all(eng, jobs, ps, now, qt)
    last = None
    if fresh and new:
        j = fresh[-1][0]
        last = (j, serv(j, now, qt.get(j.id, j.submit_time), bp.get(j.id, 0)) if dated
                else fresh[-1][2])
        for job in new:
            key = order_key(job, serv(job, now, qt.get(job.id, job.submit_time), bp.get(job.id, 0)))
            if not order_key(*last) < key:
                reorder = True
    if reorder is True and dated:   # sorted again by the priorities now
        jobs = list(map(_JOB, fresh))
        fresh = list(zip(jobs, map(_COMPILED, fresh), eng.serv_priorities(jobs, now, qt, bp)))
    if reorder and quiet:
        quiet = False
        if not ends_only(cache.table, now, c.snap.delta.ended):
            return None
    return fresh, None, reorder, quiet, (-1 if reorder is True else t, last)


def places(order: list, started: set[str], positions: list[int]) -> list[int] | None:
    """The places of the `started` jobs in `order`, last first, when `positions` (the
    cycle's start positions) names each of them once, else None. O(started)."""
    if len(set(positions)) != len(positions) or len(positions) != len(started):
        return None
    for k in positions:
        if not 0 <= k < len(order) or order[k][0].id not in started:
            return None
    return sorted(positions, reverse=True)


def drop(items: list, places: list[int]) -> list:
    """A copy of `items` without the ones at `places` (last first). O(len(items)), in C:
    cheaper than filtering every item by id."""
    out = items[:]
    for k in places:
        del out[k]
    return out
