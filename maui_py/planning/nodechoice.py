"""NODEALLOCATIONPOLICY: which of the feasible nodes a job gets (Maui 5.2, spec §3.8).

The planner hands over the feasible nodes at the chosen start t in two parts: `fast`, a
set of nodes idle and untouched over the whole window (each holds its capacity class's
fit), and `fits`, other nodes with the tasks they can hold. Each policy orders candidates
by a key; nodes are taken in that order until the request is covered. Fast nodes are
generated lazily in key order, so a job needing 4 of 10,000 idle nodes costs O(4), not
O(10,000), for FIRSTAVAILABLE, MINRESOURCE and LASTAVAILABLE.

Policies: FIRSTAVAILABLE (resource-manager order), LASTAVAILABLE (best fit in time: least
idle time before the start, then least before the next use after the end, then the
smallest node that fits, which keeps later reservations from being fragmented),
MINRESOURCE (fewest configured resources), CPULOAD (most unused CPU power now; MINRESOURCE
for future starts, as Maui does), PRIORITY (highest NODECFG PRIORITY), FASTEST (highest
speed). The other policies Maui names (CONTIGUOUS, MAXBALANCE, LOCAL, ...) are read as
LASTAVAILABLE, with a warning, by the configuration loader (cfg/params.py).
"""

from __future__ import annotations

import heapq
from heapq import heapify, heappop
from bisect import bisect_left, bisect_right
from itertools import islice, repeat
from typing import TYPE_CHECKING, Iterator

from ..cfg.choices import NodeAllocation
from . import maui33, maui33_alloc
from .api import FOREVER
from .bitset import first_members, iter_members, members
from .maui33 import Maui33Order

if TYPE_CHECKING:
    from .api import Compiled
    from .timeline import Timeline as ReservationTable

_SMALL_GROUP = 64
_SORT_ALL = 64
"""Up to this many keys, _best sorts them all rather than run heapq.nsmallest."""
_SWEEP_LIMIT = 128
"""Change points examined after a job's end to rank idle nodes by their next use; nodes
not reached by then rank as equally far, in index order. Bounds LASTAVAILABLE at O(1)
big-int operations per choice on tables with thousands of change points."""


def _fast_by_index(fast: int, cr: "Compiled") -> Iterator[tuple[tuple, int, int]]:
    fit_of = _fit_lookup(cr)
    for i in iter_members(fast):
        yield (i,), i, fit_of(i)


def _fit_lookup(cr: "Compiled"):
    classes = cr.classes
    if len(classes) == 1:
        kc = classes[0][1]
        return lambda i: kc

    def look(i: int) -> int:
        for cm, kc in classes:
            if (cm >> i) & 1:
                return kc
        return 0
    return look


def _fast_minresource(table: "ReservationTable", fast: int, cr: "Compiled"):
    for cap, cm in table.cap_classes:
        m = fast & cm
        if m:
            fit = next(kc for mm, kc in cr.classes if mm & m)
            for i in iter_members(m):
                yield (cap, i), i, fit


def _fast_lastavailable(table: "ReservationTable", fast: int, cr: "Compiled", t: int, w: int):
    """Fast nodes in (gap before t, gap after t+w, fit, index) order, lazily."""
    fit_of = _fit_lookup(cr)
    single = cr.classes[0][1] if len(cr.classes) == 1 else None
    keys, chgs = table.points.times, table.points.chg
    end = t + w
    rest = fast
    k = bisect_right(keys, t) - 1
    while rest and k >= 0 and t > table.origin:
        g = rest & chgs[k]
        if g:
            rest ^= g                   # g is a subset of rest: no negative int
            yield from _by_gap_after(table, g, t - keys[k], end, fit_of, single)
        k -= 1
    if rest:
        yield from _by_gap_after(table, rest, t - table.origin, end, fit_of, single)


def _by_gap_after(table, group: int, gap_before: int, end: int, fit_of, single: int | None = None):
    """The nodes of `group` in (gap before, gap after `end`, fit, index) order, lazily;
    `single`: the fit of every node, when the request has one capacity class."""
    if group.bit_count() <= _SMALL_GROUP:
        keyed = []
        tt = table.node_times
        for i in members(group):
            T = tt[i]
            k = bisect_right(T, end - 1)          # table.node_next_change(i, end - 1), inline
            nxt = T[k] if k < len(T) else FOREVER
            f = fit_of(i)
            keyed.append(((gap_before, nxt - end if nxt < FOREVER else FOREVER, f, i), i, f))
        keyed.sort()
        yield from keyed
        return
    pts = table.points
    keys, chgs = pts.times, pts.chg
    k = bisect_left(keys, end)
    stop = min(len(keys), k + _SWEEP_LIMIT)
    rest = group
    # the nodes the sweep will meet (it ends with them); none when no node of the group has
    # a change point at all, as idle nodes at the origin seldom do
    seen = rest & pts.or_range(k, stop)[0] if rest & table.later else 0
    while seen and k < stop:
        g = seen & chgs[k]
        if g:
            seen ^= g                   # g is a subset of seen (and of rest): no negative int
            rest ^= g
            gap = keys[k] - end
            if single is not None:      # one fit for all: (fit, index) order is index order
                yield from (((gap_before, gap, single, i), i, single) for i in iter_members(g))
            else:
                yield from sorted(((gap_before, gap, fit_of(i), i), i, fit_of(i))
                                  for i in members(g))
        k += 1
    if rest:                            # not reached: as far as the end of the sweep
        far = FOREVER if stop >= len(keys) else keys[stop] - end
        yield from (((gap_before, far, fit_of(i), i), i, fit_of(i)) for i in iter_members(rest))


def _key_first(table: "ReservationTable", i: int, fit: int, t: int, w: int) -> tuple:
    return (i,)


def _key_minresource(table: "ReservationTable", i: int, fit: int, t: int, w: int) -> tuple:
    return (table.cap[i], i)


def _key_cpuload(table: "ReservationTable", i: int, fit: int, t: int, w: int) -> tuple:
    if t > table.origin:
        return (table.cap[i], i)
    node = table.nodes[i]
    return (-(node.resources.procs - node.load), i)


def _key_priority(table: "ReservationTable", i: int, fit: int, t: int, w: int) -> tuple:
    return (-table.nodes[i].priority, i)


def _key_fastest(table: "ReservationTable", i: int, fit: int, t: int, w: int) -> tuple:
    return (-table.nodes[i].speed, i)


def _key_last(table: "ReservationTable", i: int, fit: int, t: int, w: int) -> tuple:
    last = table.last_change(i, t)
    nxt = table.node_next_change(i, t + w - 1)
    return (t - last if t > table.origin else 0, nxt - (t + w) if nxt < FOREVER else FOREVER,
            fit, i)


KEYS = {
    NodeAllocation.FIRSTAVAILABLE: _key_first,
    NodeAllocation.LASTAVAILABLE: _key_last,
    NodeAllocation.MINRESOURCE: _key_minresource,
    NodeAllocation.CPULOAD: _key_cpuload,
    NodeAllocation.PRIORITY: _key_priority,
    NodeAllocation.FASTEST: _key_fastest,
}
"""NODEALLOCATIONPOLICY -> the order key of a feasible node (table, node index, tasks it
holds, start, wallclock); the lazy generators below give idle nodes in the same order."""


def _key(table: "ReservationTable", policy: NodeAllocation, i: int, fit: int, t: int, w: int) -> tuple:
    return KEYS[policy](table, i, fit, t, w)


def _keyed_last(table: "ReservationTable", fits: dict[int, int] | None, t: int, w: int,
                limit: int | None = None, flat: list[tuple[int, int, int]] | None = None
                ) -> list[tuple[tuple, int, int]]:
    """(_key_last key, node, fit) of every node in `fits`, in one loop: the same keys
    without four calls per node (the cycle's start-now questions rank some 25 partly used
    nodes each). Sorted, and only the `limit` first when given. O(len(fits) log h).
    `flat`: for a start now (t at the origin), the nodes' (gap after the end, fit, node)
    triples already worked out (Compiling._keyed_now); `fits` is not read then."""
    tt, origin = table.node_times, table.origin
    end = t + w
    if t <= origin:     # a start now: no idle time before it, so (gap, fit, node) ranks
        e1 = end - 1    # as the key (0, gap, fit, node): flat triples, keys made for the kept
        if flat is None:
            flat = [((T[k] - end if T[k] < FOREVER else FOREVER)
                     if (k := bisect_right(T := tt[i], e1)) < len(T) else FOREVER, f, i)
                    for i, f in fits.items()]
        return [((0, g, f, i), i, f) for g, f, i in _best(flat, limit)]
    out = []
    for i, f in fits.items():
        T = tt[i]
        k = bisect_right(T, end - 1)
        nxt = T[k] if k < len(T) else FOREVER
        if t > origin:
            last = T[max(bisect_right(T, t) - 1, 0)]
            before = t - (last if last > origin else origin)
        else:
            before = 0
        out.append(((before, nxt - end if nxt < FOREVER else FOREVER, f, i), i, f))
    return _best(out, limit)


def _best(keyed: list, limit: int | None) -> list:
    """`keyed` sorted, only its `limit` first when given: the same list as
    sorted(keyed)[:limit] (keys are unique: each ends with its node), made by min() for one
    (most start-now questions take one node), by sorting a short list, else by
    heapq.nsmallest (whose pure-Python heap loop costs more than sorting some 60 keys)."""
    if limit is not None and limit < len(keyed):
        if limit == 1:
            return [min(keyed)]
        if len(keyed) > _SORT_ALL:
            return heapq.nsmallest(limit, keyed)
        keyed.sort()
        return keyed[:limit]
    keyed.sort()
    return keyed


def candidates(table: "ReservationTable", cr: "Compiled", t: int, w: int, fast: int,
               fits: dict[int, int], policy: NodeAllocation, prefer: int = 0,
               limit: int | None = None) -> Iterator[tuple[tuple, int, int]]:
    """Feasible nodes as (key, node index, tasks it holds), best first; nodes in `prefer`
    (those of reservations the job may use) before all others. A Maui33Order
    (MAUICOMPAT 3.3) orders them as Maui 3.3 does (planning/maui33.py). `limit`: the
    caller takes at most that many: only the `limit` best of the partly used nodes are
    ranked (heapq.nsmallest, = sorted()[:limit]), the rest never being reached."""
    if type(policy) is maui33_alloc.ReserveOrder:     # a reservation under MAUICOMPAT 3.3
        return maui33_alloc.candidates(table, _fit_lookup(cr), t, fast, fits, policy,
                                       (w, cr.tasks))
    if type(policy) is Maui33Order:
        inner = maui33.candidates(table, _fit_lookup(cr), t, fast, fits, policy,
                                   (w, cr.tasks))
        if not prefer:
            return inner
        return iter(sorted(((0 if (prefer >> i) & 1 else 1,) + k, i, f) for k, i, f in inner))
    if type(policy) is not NodeAllocation:   # an Enum call costs ~10 us
        policy = NodeAllocation(policy)
    if prefer:
        inner = candidates(table, cr, t, w, fast, fits, policy)
        return iter(sorted(((0 if (prefer >> i) & 1 else 1,) + k, i, f) for k, i, f in inner))
    if policy == NodeAllocation.LASTAVAILABLE:
        others = _keyed_last(table, fits, t, w, limit)
    else:
        others = _best([(_key(table, policy, i, f, t, w), i, f) for i, f in fits.items()],
                       limit)
    if not fast:
        return iter(others)
    if policy == NodeAllocation.FIRSTAVAILABLE:
        lazy = _fast_by_index(fast, cr)
    elif (policy == NodeAllocation.MINRESOURCE
          or (policy == NodeAllocation.CPULOAD and t > table.origin)):
        lazy = _fast_minresource(table, fast, cr)
    elif policy == NodeAllocation.LASTAVAILABLE:
        if t == table.origin:
            lazy = _by_gap_after(table, fast, 0, t + w, _fit_lookup(cr),
                                 cr.classes[0][1] if len(cr.classes) == 1 else None)
        else:
            lazy = _fast_lastavailable(table, fast, cr, t, w)
    else:
        fit_of = _fit_lookup(cr)
        lazy = iter(sorted((_key(table, policy, i, fit_of(i), t, w), i, fit_of(i))
                           for i in members(fast)))
    return _merge(lazy, others)


def _merge(lazy: Iterator[tuple[tuple, int, int]], others: list[tuple[tuple, int, int]]
           ) -> Iterator[tuple[tuple, int, int]]:
    """heapq.merge(lazy, others) for a sorted list `others` whose keys differ from every
    key of `lazy` (the two hold different nodes and a key ends with its node): the same
    sequence, without a heap. A start-now question merges some 25 partly used nodes with
    the idle ones and takes the first few. O(1) per item taken."""
    j, n = 0, len(others)
    nxt = others[0] if n else None
    for x in lazy:
        while nxt is not None and nxt < x:
            yield nxt
            j += 1
            nxt = others[j] if j < n else None
        yield x
    if nxt is not None:
        yield from others[j:]


def _take_by_gap_after(table: "ReservationTable", group: int, end: int, k: int) -> list[int]:
    """The k nodes of `group` used again soonest after `end` (index order among equals)."""
    pts = table.points
    keys, chgs = pts.times, pts.chg
    j = bisect_left(keys, end)
    stop = min(len(keys), j + _SWEEP_LIMIT)
    out: list[int] = []
    rest = group
    seen = rest & pts.or_range(j, stop)[0] if rest & table.later else 0   # as _by_gap_after
    while seen and j < stop and len(out) < k:
        g = seen & chgs[j]
        if g:
            seen ^= g                   # g is a subset of seen (and of rest): no negative int
            rest ^= g
            out.extend(first_members(g, k - len(out)))
        j += 1
    if len(out) < k:
        out.extend(first_members(rest, k - len(out)))
    return out


def _whole_groups(table: "ReservationTable", cr: "Compiled", t: int, w: int, fast: int,
                  policy: NodeAllocation, count: int) -> list[int] | None:
    """The `count` nodes the policy picks among idle nodes of one capacity class, chosen a
    group of equal keys at a time with big-int operations (the same nodes candidates()
    yields first). O(points swept + count). None when no shortcut applies."""
    if (policy in (NodeAllocation.FIRSTAVAILABLE, NodeAllocation.MINRESOURCE)
            or (policy == NodeAllocation.CPULOAD and t > table.origin)):
        return first_members(fast, count)
    if policy != NodeAllocation.LASTAVAILABLE:
        return None
    if t == table.origin:
        return _take_by_gap_after(table, fast, t + w, count)
    keys, chgs = table.points.times, table.points.chg
    out: list[int] = []
    rest = fast
    k = bisect_right(keys, t) - 1
    while rest and len(out) < count:
        g = (rest & chgs[k]) if k >= 0 else rest
        if g:
            rest ^= g                   # g is a subset of rest: no negative int
            left = count - len(out)
            if g.bit_count() <= left:
                out.extend(members(g))
            else:
                out.extend(sorted(_take_by_gap_after(table, g, t + w, left)))
        if k < 0:
            break
        k -= 1
    return out


def select(table: "ReservationTable", cr: "Compiled", t: int, w: int, fast: int,
           fits: dict[int, int], policy: NodeAllocation, shortcut: bool = True, prefer: int = 0
           ) -> list[tuple[int, int]]:
    """(node index, tasks) for the request, in policy order. O(k log k) for k nodes taken,
    plus the sort of the partly used candidates; O(points swept + k) when only idle nodes of
    one capacity class qualify (the usual case on homogeneous clusters)."""
    if (type(policy) is not NodeAllocation
            and type(policy) not in (Maui33Order, maui33_alloc.ReserveOrder)):
        policy = NodeAllocation(policy)
    if shortcut and type(policy) is NodeAllocation and not fits and not prefer and len(cr.classes) == 1 and cr.mode != "nodes":
        kc = cr.classes[0][1]
        per = cr.per_node if cr.mode == "tpn" else kc
        count = cr.nodes_needed if cr.mode == "tpn" else -(-cr.tasks // kc)
        chosen = _whole_groups(table, cr, t, w, fast, policy, count)
        if chosen is not None:
            out, left = [], cr.tasks
            for i in chosen:
                take = min(per, left)
                out.append((i, take))
                left -= take
            return out
    limit = None                # how many candidates the loops below may take, at most
    if cr.mode == "tpn":
        limit = cr.nodes_needed
    elif cr.mode == "any" and (not fits or min(fits.values()) > 0):
        limit = cr.tasks        # each one taken holds a task or more
    cand = candidates(table, cr, t, w, fast, fits, policy, prefer if fits else 0, limit)
    if cr.mode != "nodes":
        return _take(cr, cand)
    n = cr.nodes_needed
    picked = list(islice(cand, n))
    total = sum(f for _, _, f in picked)
    if total < cr.tasks:
        rest = list(cand)
        while total < cr.tasks and rest:
            weak = min(range(n), key=lambda k: (picked[k][2], -k))
            deficit = cr.tasks - total
            pos = next((k for k, c in enumerate(rest) if c[2] - picked[weak][2] >= deficit),
                       None)
            if pos is None:
                pos = max(range(len(rest)), key=lambda k: (rest[k][2], -k))
                if rest[pos][2] <= picked[weak][2]:
                    break
            total += rest[pos][2] - picked[weak][2]
            picked[weak] = rest.pop(pos)
        picked.sort()
    alloc = {i: 1 for _, i, _ in picked}
    left = cr.tasks - n
    for _, i, f in picked:
        extra = min(f - 1, left)
        alloc[i] += extra
        left -= extra
    return list(alloc.items())


def _take(cr: "Compiled", cand: Iterator[tuple[tuple, int, int]]) -> list[tuple[int, int]]:
    """(node, tasks) a tasks-per-node or "any" request takes from candidates best first:
    per_node on each of the first nodes_needed, or each node's fit until the tasks are
    covered. O(nodes taken)."""
    if cr.mode == "tpn":
        return [(i, cr.per_node) for _, i, _ in islice(cand, cr.nodes_needed)]
    out = []
    left = cr.tasks
    for _, i, f in cand:
        take = min(f, left)
        out.append((i, take))
        left -= take
        if left <= 0:
            break
    return out


def take_last_now(table: "ReservationTable", cr: "Compiled", w: int, fast: int,
                  flat: list[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """select(table, cr, origin, w, fast, fits, LASTAVAILABLE) for a tasks-per-node or
    "any" request starting at the origin, when `flat` holds the (gap after the end, fit,
    node) triples (Compiling._keyed_now) of the nodes of `fits`, a nonempty dict of nodes
    each holding cr.per_node tasks or more: the same candidates (the `limit` best partly
    used nodes merged with the idle ones) taken the same way, without the dict.
    O(k + t log k) for the k partly used nodes of which t are popped (HEAP_TAKE; else
    O(k log k)), plus O(1) per idle node taken."""
    limit = cr.nodes_needed if cr.mode == "tpn" else cr.tasks
    if not HEAP_TAKE or not fast:
        return _take_sorted(table, cr, w, fast, flat, limit)
    popped: list[tuple[int, int, int]] = []
    if SKIP_IDLE and not fast & table.later:
        got, popped = _pop_take(cr, flat, limit, idle_gap(table, table.origin + w))
        if got is not None:
            return got
    else:
        heapify(flat)
    lazy = _by_gap_after(table, fast, 0, table.origin + w, _fit_lookup(cr),
                         cr.classes[0][1] if len(cr.classes) == 1 else None)
    return _take(cr, _merge_popping(lazy, popped, flat, min(limit - len(popped), len(flat))))


def _take_sorted(table: "ReservationTable", cr: "Compiled", w: int, fast: int,
                 flat: list[tuple[int, int, int]], limit: int) -> list[tuple[int, int]]:
    """take_last_now by its definition (HEAP_TAKE off): the `limit` best triples sorted
    and keyed (_keyed_last), taken alone or merged with the idle nodes."""
    others = _keyed_last(table, None, table.origin, w, limit, flat)
    if not fast:
        return _take(cr, iter(others))
    if SKIP_IDLE and not fast & table.later:
        got = _take_before(cr, others, idle_gap(table, table.origin + w))
        if got is not None:
            return got
    lazy = _by_gap_after(table, fast, 0, table.origin + w, _fit_lookup(cr),
                         cr.classes[0][1] if len(cr.classes) == 1 else None)
    return _take(cr, _merge(lazy, others))


SKIP_IDLE = True
"""take_last_now: when no idle candidate has a change point after the origin (none is in
table.later) and the partly used nodes cover the request with gaps (from the end to
their next change point) below idle_gap's bound, take them without ranking the idle
nodes (False: always merge with _by_gap_after's idle nodes, the definition
tests/property/test_last_now_properties.py compares against). Exact: such an idle node
has no change point at all, so _by_gap_after keys it (0, gap, fit, node) with gap FOREVER
(a small group) or the sweep's end (a large one), both at least idle_gap's bound; the
partly used keys taken, (0, smaller gap, ...), come first in the merge, which _take leaves
once the request is covered. Saves the lazy generator's first step (a popcount and a
write-out of a set as wide as the cluster) on most start-now questions."""


HEAP_TAKE = True
"""take_last_now: rank the partly used nodes' (gap, fit, node) triples by a heap (heapify,
then heappop while nodes are taken) instead of sorting them all (or heapq.nsmallest's
Python loop over them) and writing out a key per node (False: _keyed_last then
_take_before or _take, the definition tests/property/test_heap_take.py compares
against). Exact: the triples are unique (each ends with its node), so heappop yields
them in sorted order, and the definition takes a prefix of that order (sorted()[:limit]),
stopping where _pop_take stops; when it cannot take them alone, the triples popped and
the next ones up to `limit` are the definition's list. A start-now question takes one or
two of some 25 to 70 partly used nodes. Without idle candidates (no merge to make) the
definition's own path is kept: _keyed_last with its limit keeps only the nodes taken."""


def _pop_take(cr: "Compiled", flat: list[tuple[int, int, int]], limit: int, gap: int
              ) -> tuple[list[tuple[int, int]] | None, list[tuple[int, int, int]]]:
    """(_take_before(cr, others, gap) for others = the `limit` smallest triples of `flat`
    keyed as _keyed_last keys them; the triples popped from `flat`, a heap after the call,
    in order). O(n + k log n) for k nodes taken of n."""
    heapify(flat)
    popped: list[tuple[int, int, int]] = []
    out: list[tuple[int, int]] = []
    tpn = cr.mode == "tpn"
    left = cr.nodes_needed if tpn else cr.tasks     # nodes (tpn), else tasks
    for _ in range(min(limit, len(flat))):
        g, f, i = x = heappop(flat)
        popped.append(x)
        if g >= gap:
            return None, popped
        take = cr.per_node if tpn else min(f, left)
        out.append((i, take))
        left -= 1 if tpn else take
        if left <= 0:
            return out, popped
    return None, popped


def _merge_popping(lazy: Iterator[tuple[tuple, int, int]], popped: list[tuple[int, int, int]],
                   heap: list[tuple[int, int, int]], count: int
                   ) -> Iterator[tuple[tuple, int, int]]:
    """_merge(lazy, others) for others = the triples `popped` (in order) then the next
    `count` popped from `heap`, each keyed as _keyed_last keys a start now's, (0, gap, fit,
    node): popped and keyed only as far as the merge is read (HEAP_TAKE). O(1) per item
    taken, plus O(log n) per triple popped."""
    def others() -> Iterator[tuple[tuple, int, int]]:
        for g, f, i in popped:
            yield (0, g, f, i), i, f
        for g, f, i in map(heappop, repeat(heap, count)):
            yield (0, g, f, i), i, f
    rest = others()
    nxt = next(rest, None)
    for x in lazy:
        while nxt is not None and nxt < x:
            yield nxt
            nxt = next(rest, None)
        yield x
    if nxt is not None:
        yield nxt
        yield from rest


def idle_key(fast: int, gap: int) -> int:
    """The gap _by_gap_after keys every node of `fast` with when none has a change point
    after the origin, `gap` being idle_gap at the job's end: FOREVER for a small group
    (each node's own next change: none), the sweep's end otherwise. O(N/64)."""
    return FOREVER if fast.bit_count() <= _SMALL_GROUP else gap


def idle_nodes(cr: "Compiled", fast: int) -> Iterator[tuple[int, int]]:
    """(fit, node) for the nodes of `fast`, none with a change point after the origin, in
    _by_gap_after's order (their gap key is one for all, idle_key): by fit then node for
    a small group, by node otherwise. O(k log k) for a small group of k, else lazily
    O(N/64) per node for the first PEEL then O(1)."""
    fit_of = _fit_lookup(cr)
    if fast.bit_count() <= _SMALL_GROUP:
        return iter(sorted([(fit_of(i), i) for i in members(fast)]))
    return ((fit_of(i), i) for i in iter_members(fast))


def idle_gap(table: "ReservationTable", end: int) -> int:
    """A gap no idle node without change points is ranked below by _by_gap_after, for a
    job ending at `end`: its sweep's end (`far`), FOREVER when the sweep reaches the last
    change point. O(log P)."""
    keys = table.points.times
    stop = bisect_left(keys, end) + _SWEEP_LIMIT
    return FOREVER if stop >= len(keys) else keys[stop] - end


def _take_before(cr: "Compiled", others: list[tuple[tuple, int, int]], gap: int
                 ) -> list[tuple[int, int]] | None:
    """_take(cr, iter(others)) when every entry it takes has a key gap below `gap` and they
    cover the request; else None. O(nodes taken)."""
    if cr.mode == "tpn":
        need = cr.nodes_needed
        if len(others) < need or any(k[1] >= gap for k, _i, _f in others[:need]):
            return None
        return [(i, cr.per_node) for _k, i, _f in others[:need]]
    out = []
    left = cr.tasks
    for k, i, f in others:
        if k[1] >= gap:
            return None
        take = min(f, left)
        out.append((i, take))
        left -= take
        if left <= 0:
            return out
    return None
