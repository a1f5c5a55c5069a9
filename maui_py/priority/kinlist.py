"""The ranked order kept as a kinetic list across cycles (issue 33).

Under QUEUETIME + XFACTOR priorities (priority/kinetic.py) a cycle from what changed
(core/changes.py) whose kept order's date had passed re-ranked the whole queue: every
priority now, `ranked`, a sort when the order moved and `until` again, O(Q) in Python per
passed date, though only the neighbours' pairs whose dates passed can have crossed. Here
each neighbours' pair's date is kept in a heap across cycles (lazy deletion) and a passed
date costs only its pairs: `settle` pops the entries dated before now, compares each pair
still standing side by side at now (the engine's floats, order_key's ties), swaps a
crossed one and compares the swapped jobs' new neighbours (a bubble step: each swap takes
one inversion out), and dates each pair it finds in order (kinetic.pair_date). Arrivals
ranked after the order (extend) date their pairs; one ranked inside it, or a heap grown
past a few entries a job, re-ranks in full and makes the heap anew (date_all).

**Invariant** (KINLIST on; `Kin.t` is the date core/changes.run gave the order it kept,
its ChangeCache.until, and `Kin.ids` that order's ids as the heap last saw it): each
neighbours' pair (a, b) of `Kin.ids` has an entry (d, a.id, b.id), d at or after the
instant it was dated, with a before b at every instant up to d (kinetic.py's invariant);
`t` is at most the least date; a pair-memo entry of the current generation (engine.pair_dates,
four items) has its entry in the heap. The order a later cycle keeps is `Kin.ids` less
the jobs taken out since (starts): by transitivity it stays ranked up to `t`, and at a
later instant `now` only the pairs of entries dated before now and the pairs the taking
out made can be out of order; once settle has compared (or found a current memo entry
for) each of them, every neighbours' pair is in order at now, so the list is sorted by
order_key at now: what core/changes.run's sort of the priorities now gives (ids differ,
so that order is unique). O((popped + taken out + swaps) x (log H + a place found in C))
a passed date, instead of O(Q) in Python. `check` is the structure's _check().
"""

from __future__ import annotations

from heapq import heapify, heappop, heappush

from . import kinetic
from .engine import order_key

KINLIST = True
"""Keep the ranked order as a kinetic list (settle, extend, date_all); False: a passed
date re-ranks the whole queue (kinetic.until), the definition
tests/property/test_kinetic_list.py compares against. Applies only with kinetic.KINETIC
and kinetic.PAIR_MEMO on."""


class _Swapped:
    """The type of SWAPPED (truthy: the order changed)."""

    def __repr__(self) -> str:
        return "SWAPPED"


SWAPPED = _Swapped()
"""settle's verdict for an order it changed by swaps alone: sorted already, and dated."""


class Kin:
    """The pair dates' heap of one order, its date, its ids and the memo generation."""

    __slots__ = ("heap", "t", "ids", "gen")

    def __init__(self) -> None:
        self.heap: list[tuple[int, str, str]] = []
        self.t = -1
        self.ids: list[str] = []
        self.gen = 0


def on() -> bool:
    """Does the kinetic list apply (its switch and those of kinetic.py it rests on)?"""
    return KINLIST and kinetic.KINETIC and kinetic.PAIR_MEMO


def _kin(engine) -> Kin:
    kin = engine.kin
    if kin is None:
        kin = engine.kin = Kin()
    return kin


def date_all(engine, jobs: list, ps: list[float], now: int, queue_time) -> int:
    """kinetic.until(engine, jobs, ps, now, queue_time), `jobs` ranked at now with the
    engine's priorities `ps`; with the list on, every neighbours' pair is dated (none left
    out after one dated now) and the heap made anew of them, in a new generation. The
    same date as until. O(len(jobs))."""
    if not on():
        return kinetic.until(engine, jobs, ps, now, queue_time)
    kin = _kin(engine)
    kin.heap, kin.gen = [], kin.gen + 1
    if engine.xf_terms is None or queue_time:
        kin.t = -1
        return -1
    if len(engine.pair_dates) > 4 * len(jobs) + 50_000:
        engine.pair_dates.clear()
    t = _date_run(engine, kin, jobs, ps, now, kin.heap.append)
    heapify(kin.heap)
    kin.ids = [j.id for j in jobs]
    kin.t = t
    return t


def extend(engine, t: int, last: tuple | None, added: list, now: int, queue_time) -> int:
    """kinetic.extend: the date of an order ranked up to `t` with the entries `added` (job,
    request, priority at now) put at its end (`last`: its last job and priority at now);
    with the list on, their pairs are dated into the heap and `added` appended to its ids.
    When the heap is not this order's (its date is not `t`) the date is extend's and the
    heap is left for date_all to make anew. O(len(added) log H)."""
    if not on():
        return kinetic.extend(engine, t, last, added, now, queue_time)
    kin = _kin(engine)
    if kin.t != t:
        kin.t = -2                  # another order's heap: never taken (settle)
        return kinetic.extend(engine, t, last, added, now, queue_time)
    if t >= now and added:
        if engine.xf_terms is None or queue_time:
            t = -1
        else:
            jobs = ([last[0]] if last else []) + [e[0] for e in added]
            ps = ([last[1]] if last else []) + [e[2] for e in added]
            heap = kin.heap
            t = min(t, _date_run(engine, kin, jobs, ps, now, lambda x: heappush(heap, x)))
            kin.ids.extend(e[0].id for e in added)
    kin.t = t
    return t


def settle(engine, order: list, ids: list[str], now: int, t: int) -> tuple | None:
    """The kept `order` (entries (job, request, priority), `ids` their ids; ranked up to
    `t` < now) ranked at now by the heap: (the entries, sorted by order_key at now; their
    date; SWAPPED when they moved, else False), the lists given back when nothing moved.
    None when the list does not apply or its heap is not this order's: then the caller
    re-ranks in full and dates with date_all. The entries keep the priorities they had
    (only their order is read, as core/keptorder's dated orders). O(module docstring)."""
    kin = engine.kin
    n = len(order)
    if (not on() or kin is None or kin.t != t or t < 0 or engine.xf_terms is None
            or len(kin.heap) > 4 * n + 64):
        return None
    work = _taken_out(kin.ids, ids)
    if work is None:
        return None
    heap = kin.heap
    while heap and heap[0][0] < now:
        _d, a, b = heappop(heap)
        i = _place(ids, a)
        if 0 <= i < n - 1 and ids[i + 1] == b:
            work.append(i)
    moved = False
    if work:
        order, ids = order[:], ids[:]
        moved = _fix(engine, kin, order, ids, work, now)
        kin.ids = ids
    elif len(kin.ids) != n:
        kin.ids = ids[:]
    kin.t = heap[0][0] if heap else now + kinetic.HORIZON
    return order, kin.t, SWAPPED if moved else False


KEPT_IDS = True
"""ids_of gives the list's own ids (Kin.ids, copied in C) for an order it has just
ranked; False: the ids taken from the order entry by entry in Python (the definition
tests/property/test_kinetic_list.py compares against, and checks every cycle)."""

def ids_of(engine, order: list, t: int) -> list[str]:
    """The ids of `order`, the order core/changes.run has just ranked: sorted and dated
    by date_all, or settled (settle) and extended (extend), its date `t`. When the list
    applies and its heap is this order's (`Kin.t` is t >= 0: date_all and extend left it
    so only after setting `Kin.ids` to the ids of exactly the jobs they ranked, in order:
    date_all all of them, settle the kept ones and extend the arrivals after them), a
    copy of Kin.ids (the result must not move when the list does); else worked out.
    O(len(order)) in C, instead of in Python."""
    kin = engine.kin
    if KEPT_IDS and on() and kin is not None and t >= 0 and kin.t == t \
            and len(kin.ids) == len(order):
        return kin.ids[:]
    return [e[0].id for e in order]


def _taken_out(seen: list[str], ids: list[str]) -> list[int] | None:
    """The places in `ids` of the first job of each pair that taking jobs out of `seen`
    made (ids is seen less them), or None when `ids` is not such a subsequence. O(1) when
    nothing was taken out, else O(len(seen)) in C plus O(taken out x len(seen)) in C."""
    if len(seen) == len(ids):
        return [] if seen == ids else None
    gone = set(seen).difference(ids)
    if len(seen) - len(gone) != len(ids):
        return None
    work = []
    for jid in gone:
        k = seen.index(jid) - 1
        while k >= 0 and seen[k] in gone:
            k -= 1
        if k >= 0:
            i = _place(ids, seen[k])
            if i < 0:
                return None
            if i < len(ids) - 1:
                work.append(i)
    return work


def _place(ids: list[str], jid: str) -> int:
    try:
        return ids.index(jid)
    except ValueError:
        return -1


def _fix(engine, kin: Kin, order: list, ids: list[str], work: list[int], now: int) -> bool:
    """Compare the pairs at the places `work` (each k: order[k], order[k + 1]) at now, swap
    each crossed one and compare its new neighbours, date each in order (memo and heap).
    True when something moved. O((work + swaps) log H), a bubble step per swap.

    Invariant: every pair of `order` not in `work` is in order at now (its entry's date is
    not past, or it was compared or found in the memo since its jobs last moved)."""
    memo, gen, heap = engine.pair_dates, kin.gen, kin.heap
    got: dict[str, float] = {}
    n, moved = len(order), False
    while work:
        i = work.pop()
        a, b = order[i][0], order[i + 1][0]
        h = memo.get(a.id)
        if h is not None and h[1] is b and h[0] is a and h[2] >= now:
            if h[3:] != (gen,):     # an older generation's: not in this heap
                memo[a.id] = (a, b, h[2], gen)
                heappush(heap, (h[2], a.id, b.id))
            continue
        pa, pb = _at(engine, a, now, got), _at(engine, b, now, got)
        if order_key(a, pa) < order_key(b, pb):
            d = (now if a.submit_time > now or b.submit_time > now else
                 kinetic.pair_date(kinetic.moving(engine, a, pa), kinetic.moving(engine, b, pb),
                                   now))
            memo[a.id] = (a, b, d, gen)
            heappush(heap, (d, a.id, b.id))
            continue
        order[i], order[i + 1] = order[i + 1], order[i]
        ids[i], ids[i + 1] = ids[i + 1], ids[i]
        moved = True
        work.append(i)
        if i:
            work.append(i - 1)
        if i + 2 < n:
            work.append(i + 1)
    return moved


def _at(engine, job, now: int, got: dict[str, float]) -> float:
    """serv_priorities' float of `job` at now with no queue-time restart (the same
    expression, the same operations in the same order), kept in `got`. O(1)."""
    p = got.get(job.id)
    if p is None:
        wq, wx, cw, _xm = engine.xf_terms
        h = engine.xf_const(job)
        q = now - job.submit_time
        if q < 0:
            q = 0
        p = got[job.id] = h[1] + cw * ((0.0 + wq * (q / 60.0)) + wx * ((q + h[2]) / h[3]))
    return p


def _date_run(engine, kin: Kin, jobs: list, ps: list[float], now: int, put) -> int:
    """Date each neighbours' pair of `jobs` (ranked at now, priorities `ps`) as
    kinetic.until does (a pair's memo entry not past taken again; a pair with a job whose
    wait is clipped at 0 dated now), memo it in the current generation and put its entry;
    the least date, now when a job's wait is clipped, else at most now + HORIZON (until's
    date). O(len(jobs))."""
    memo, gen = engine.pair_dates, kin.gen
    t = now + kinetic.HORIZON
    prev = pp = pm = None
    for j, p in zip(jobs, ps):
        if j.submit_time > now:
            t = now
        if prev is not None:
            h = memo.get(prev.id)
            if h is not None and h[1] is j and h[0] is prev and h[2] >= now:
                d, cur = h[2], None
            elif j.submit_time > now or prev.submit_time > now:
                d, cur = now, None
            else:
                cur = kinetic.moving(engine, j, p)
                d = kinetic.pair_date(pm or kinetic.moving(engine, prev, pp), cur, now)
            memo[prev.id] = (prev, j, d, gen)
            put((d, prev.id, j.id))
            if d < t:
                t = d
            pm = cur
        prev, pp = j, p
    return t


def check(engine, order: list, now: int, t: int) -> None:
    """_check() of the kinetic list after a cycle from what changed that kept `order`
    (ChangeCache.order) ranked up to `t`: when the list applies, `order` is sorted by
    order_key at now (the engine's floats), and at `t`; its ids are `Kin.ids` less some
    jobs; each neighbours' pair of Kin.ids still in `order` has an entry in the heap, in
    order at its least date; t is at most the least date; each current-generation memo entry not
    past has its entry. O(Q + H) priorities."""
    kin = engine.kin
    if not on() or t < 0 or kin is None or kin.t != t:
        return
    jobs = [e[0] for e in order]
    for at in (now, t):
        ps = engine.serv_priorities(jobs, at, {}, {})
        keys = [order_key(j, p) for j, p in zip(jobs, ps)]
        assert all(x < y for x, y in zip(keys, keys[1:])), at
    ids = [j.id for j in jobs]
    assert _taken_out(kin.ids, ids) is not None, "not a subsequence of Kin.ids"
    assert not kin.heap or kin.heap[0][0] >= t, (kin.heap[0], t)
    least: dict[tuple[str, str], int] = {}
    for d, a, b in kin.heap:
        assert d >= now, (d, now)
        least[a, b] = min(d, least.get((a, b), d))
    byid = {j.id: j for j in jobs}
    for a, b in zip(kin.ids, kin.ids[1:]):
        if a in byid and b in byid:
            assert (a, b) in least, (a, b)
            pa, pb = engine.serv_priorities([byid[a], byid[b]], least[a, b], {}, {})
            assert order_key(byid[a], pa) < order_key(byid[b], pb), (a, b, least[a, b])
    for h in engine.pair_dates.values():
        if h[3:] == (kin.gen,) and h[2] >= now:
            assert least.get((h[0].id, h[1].id), h[2] + 1) <= h[2], h
