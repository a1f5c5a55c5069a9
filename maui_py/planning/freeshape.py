"""The free-shape index of the node table: node kinds and, per kind, what its nodes have
free at the origin, in aggregate, so that most start-now questions that fail are answered
without touching a node (issue 33).

A kind is the nodes alike in capacity, features, partitions and usability: a compiled
request's eligible set is a union of kinds, less a hostlist's cuts (a kind it meets only in
part is counted whole, which keeps the bound below an upper bound). Within a kind nodes are
bucketed by free processors at the origin, and each bucket keeps the multiset of its nodes'
free vectors (capacity minus usage at the origin) and, lazily, their componentwise maximum.

Why a "no" from it is exact: a node's usage over any window that starts at the origin is at
least its usage at the origin, so the tasks of per-task vector d it holds there are at most
tasks_in(d, free now) <= tasks_in(d, its bucket's maximum); an exclusive task fits only an idle
node, whose free vector is its capacity. Summed over the kinds a request meets, this bounds
what the node walk (ReservationTable.scan) can find at the origin; where the bound falls
short of the request, the walk's answer is "no" and the scan returns it unwalked. Otherwise
the walk decides and chooses the nodes. Holds of ignored owners free more than the origin
shows: the bound is not asked then.

Costs: a question O(kinds met x buckets), buckets <= distinct free processor counts; a
node whose usage at the origin changes O(1) (a bucket's maximum is recomputed, O(distinct
vectors in it), on the first question after a vector left it).

Room masks (`roomy`): per dimension, for each level of a ladder (1, 2, 3, 4, 6, 8, 12, ...,
up to the largest capacity), the set of nodes with at least that much free at the origin.
The nodes of the intersection, per dimension, of the highest level at or below what a node
must hold are a superset of those whose free vector at the origin holds it, so of those a
window from the origin has room on: the start-now walk (planning/firstnow.py) walks them
only, instead of every partly used node. A move costs O(dims x levels crossed) big-int
operations.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from operator import sub
from typing import Sequence

from ..model import Node
from .bitset import mask_of
from .steps import tasks_in


MET = 4096
"""Eligible sets whose kinds met FreeShapes keeps."""
LAZY = True
"""Single-node moves (a start, an end at the origin) are noted, one entry per node holding
its first and latest usage, and applied when the index is next read (flush): the index
is a function of each node's usage at the origin only, so applying a node's moves as one
from its first to its latest usage, and applying them late, leaves it as applying each at
once would, and no reader sees it before the flush. A first cycle starts thousands of jobs,
several on each node, while nothing reads the index (planning/lastnow.py's STREAK).
False: every move applied at once (the definition tests/property/test_lazy_shapes.py
compares against)."""


class FreeShapes:
    """Node kinds and per kind the free-shape buckets (the module docstring).

    Invariant (check): for every kind k and free processor count c, count[k][c] nodes of k
    have c processors free at the origin, shapes[k][c] maps each free vector they have to
    how many have it (no zero counts, no empty buckets), top[k][c], when present, is
    the componentwise maximum of shapes[k][c]'s vectors, and order[k] is count[k]'s keys
    ascending (cannot_start reads the buckets that can hold a task, from the top), and
    ktop[k], when not None, is the componentwise maximum of all kind k's free vectors;
    _met and _nz map eligible sets and per-task vectors to what they always make (the kinds
    met, the nonzero parts)."""

    def __init__(self, nodes: Sequence[Node], cap: Sequence[tuple[int, ...]], usable: int):
        """Every node idle (free = capacity). O(N)."""
        kinds: dict[tuple, list[int]] = {}
        for i, nd in enumerate(nodes):
            key = (cap[i], nd.features, nd.partitions, bool((usable >> i) & 1))
            kinds.setdefault(key, []).append(i)
        self.kind_of = [0] * len(nodes)
        self.masks: list[int] = []
        self._count: list[dict[int, int]] = []
        self._shapes: list[dict[int, dict[tuple[int, ...], int]]] = []
        self._tops: list[dict[int, tuple[int, ...]]] = []
        self._order: list[list[int]] = []
        self._ktop: list[tuple[int, ...] | None] = []
        self.by_cap: dict[tuple[int, ...], list[int]] = {}
        """Capacity -> its kinds (move's nodes share one capacity)."""
        self._met: dict[int, tuple[int, ...]] = {}
        """Eligible set -> the kinds it meets, ascending (kinds never change: kept, at most
        MET entries); cannot_start reads it instead of testing every kind's mask."""
        self._nz: dict[tuple[int, ...], tuple[tuple[int, int], ...]] = {}
        """Per-task vector -> its (position, amount) with amount > 0 (at most MET kept)."""
        self.pending: dict[int, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = {}
        """Single-node moves not applied yet (see LAZY): node -> (capacity, its usage at the
        origin the index holds, its usage now)."""
        for k, (key, ix) in enumerate(kinds.items()):
            for i in ix:
                self.kind_of[i] = k
            c = key[0]
            self.by_cap.setdefault(c, []).append(k)
            self.masks.append(mask_of(ix, len(nodes)))
            self._count.append({c[0]: len(ix)})
            self._shapes.append({c[0]: {c: len(ix)}})
            self._tops.append({c[0]: c})
            self._order.append([c[0]])
            self._ktop.append(c)
        dims = len(cap[0]) if cap else 0
        self.levels: list[list[int]] = [ladder(max(c[j] for c in cap)) for j in range(dims)]
        """Per dimension, the ladder of amounts room masks are kept for, ascending."""
        self._room: list[list[int]] = [[self._reaching(j, v) for v in lv]
                                      for j, lv in enumerate(self.levels)]
        """room[j][k]: the nodes with at least levels[j][k] of dimension j free at the
        origin (every node idle here: its capacity)."""

    # The index as the readers and the tests see it: pending moves applied first (LAZY).
    @property
    def count(self) -> list[dict[int, int]]:
        """Per kind: free processor count -> how many of its nodes have it."""
        self.flush()
        return self._count

    @property
    def shapes(self) -> list[dict[int, dict[tuple[int, ...], int]]]:
        """Per kind and free processor count: free vector -> how many nodes have it."""
        self.flush()
        return self._shapes

    @property
    def top(self) -> list[dict[int, tuple[int, ...]]]:
        """Per kind and free processor count: the bucket's maximum, when kept."""
        self.flush()
        return self._tops

    @property
    def ktop(self) -> list[tuple[int, ...] | None]:
        """Per kind: the maximum of its free vectors, when kept."""
        self.flush()
        return self._ktop

    @property
    def order(self) -> list[list[int]]:
        """Per kind: its free processor counts, ascending."""
        self.flush()
        return self._order

    @property
    def room(self) -> list[list[int]]:
        """Per dimension and ladder level: the nodes with that much free (roomy)."""
        self.flush()
        return self._room

    def _reaching(self, j: int, v: int) -> int:
        """The nodes whose capacity in dimension j is at least v: a union of kinds.
        O(kinds) big-int operations."""
        out = 0
        for k, kt in enumerate(self._ktop):
            if kt[j] >= v:
                out |= self.masks[k]
        return out

    def move(self, nodes: int, cap: tuple[int, ...], old: tuple[int, ...],
             new: tuple[int, ...]) -> None:
        """The nodes of set `nodes` (all of capacity `cap`) used `old` at the origin and
        use `new` now. O(kinds of that capacity) big-int operations, after a flush."""
        if self.pending:
            self.flush()
        was = tuple(map(sub, cap, old))
        now = tuple(map(sub, cap, new))
        self._room_move(nodes, was, now)
        masks = self.masks
        for k in self.by_cap[cap]:
            n = (nodes & masks[k]).bit_count()
            if n:
                self._take(k, was, n)
                self._put(k, now, n)

    def move_one(self, i: int, cap: tuple[int, ...], old: tuple[int, ...],
                 new: tuple[int, ...]) -> None:
        """move() for node i alone: with LAZY noted in `pending` (O(1)), else applied."""
        if LAZY:
            got = self.pending.get(i)
            self.pending[i] = (cap, old, new) if got is None else (cap, got[1], new)
            return
        if self.pending:
            self.flush()
        self._move_one(i, cap, old, new)

    def flush(self) -> None:
        """Apply the pending single-node moves, each node's from the usage the index holds
        to its usage now (LAZY). Every reader of the index calls it first. O(dims x levels
        crossed) big-int operations per node moved."""
        pending, self.pending = self.pending, {}
        for i, (cap, old, new) in pending.items():
            if old != new:
                self._move_one(i, cap, old, new)

    def _move_one(self, i: int, cap: tuple[int, ...], old: tuple[int, ...],
                  new: tuple[int, ...]) -> None:
        """move() for node i alone, applied. O(dims)."""
        k = self.kind_of[i]
        was, now = tuple(map(sub, cap, old)), tuple(map(sub, cap, new))
        self._room_move(1 << i, was, now)
        self._take(k, was, 1)
        self._put(k, now, 1)

    def _room_move(self, nodes: int, was: tuple[int, ...], now: tuple[int, ...]) -> None:
        """The room masks for the nodes of set `nodes`, whose free vector at the origin
        went from `was` to `now`. O(dims x levels crossed) big-int operations."""
        if was == now:
            return
        for j, lv in enumerate(self.levels):
            a, b = was[j], now[j]
            if a == b:
                continue
            ka, kb = bisect_right(lv, a), bisect_right(lv, b)
            room = self._room[j]
            if kb < ka:                 # levels kb..ka-1 no longer reached
                for k in range(kb, ka):
                    room[k] ^= room[k] & nodes
            else:
                for k in range(ka, kb):
                    room[k] |= nodes

    def roomy(self, v: tuple[int, ...]) -> int | None:
        """A superset of the nodes whose free vector at the origin holds `v` (every
        dimension at least v's), or None when v asks nothing (every node holds it).
        O(dims) big-int operations."""
        if self.pending:
            self.flush()
        out = None
        for j, x in enumerate(v):
            if x > 0:
                lv = self.levels[j]
                k = bisect_right(lv, x) - 1
                m = self._room[j][k] if k >= 0 else -1
                out = m if out is None else out & m
        return out

    def _take(self, k: int, free: tuple[int, ...], n: int) -> None:
        c = free[0]
        count, shapes = self._count[k], self._shapes[k]
        left = count[c] - n
        bucket = shapes[c]
        m = bucket[free] - n
        if left:
            count[c] = left
            if m:
                bucket[free] = m
            else:
                del bucket[free]
                self._tops[k].pop(c, None)
                self._ktop[k] = None
        else:
            del count[c], shapes[c]
            self._tops[k].pop(c, None)
            self._ktop[k] = None
            order = self._order[k]
            del order[bisect_left(order, c)]

    def _put(self, k: int, free: tuple[int, ...], n: int) -> None:
        c = free[0]
        kt = self._ktop[k]
        if kt is not None and kt != free:
            self._ktop[k] = tuple(map(max, kt, free))
        count = self._count[k]
        got = count.get(c)
        if got is None:
            insort(self._order[k], c)
            count[c] = n
            self._shapes[k][c] = {free: n}
            self._tops[k][c] = free
            return
        count[c] = got + n
        bucket = self._shapes[k][c]
        bucket[free] = bucket.get(free, 0) + n
        top = self._tops[k]
        t = top.get(c)
        if t is not None and t != free:
            top[c] = tuple(map(max, t, free))

    def bound(self, eligible: int, d: tuple[int, ...], per: int) -> tuple[int, int]:
        """(at most how many tasks of d, at most how many nodes holding `per` of them) the
        nodes of `eligible` hold over any window from the origin. O(kinds met x buckets)."""
        if self.pending:
            self.flush()
        tot = cnt = 0
        d0 = d[0]
        for k, m in enumerate(self.masks):
            if not eligible & m:
                continue
            top = self._tops[k]
            for c, n in self._count[k].items():
                if c < d0:
                    continue
                t = top.get(c)
                if t is None:
                    t = self._top(k, c)
                f = tasks_in(d, t)
                if f:
                    tot += n * f
                    if f >= per:
                        cnt += n
        return tot, cnt

    def cannot_start(self, eligible: int, d: tuple[int, ...], mode: str, per: int,
                     need: int, tasks: int) -> bool:
        """Is it sure, from the aggregates alone, that a request (Compiled's fields) finds
        no room at the origin? False ("ask the walk") as soon as the bound suffices.
        `bound` inlined, stopping early, reading only the buckets with processors free
        for a task (for `per` of them, tasks-per-node): the scan asks it on its hot path,
        and `bound` stays the definition the property tests compare with.
        O(kinds met x buckets read)."""
        if self.pending:
            self.flush()
        want_tot = tasks if mode != "tpn" else 0
        want_cnt = need if mode != "any" else 0
        tot = cnt = 0
        d0 = d[0]
        lo = d0 * per if mode == "tpn" else d0    # fewer processors free: no task counted
        nz = self._nz.get(d)
        if nz is None:
            if len(self._nz) >= MET:
                self._nz.clear()
            nz = self._nz[d] = tuple((j, x) for j, x in enumerate(d) if x > 0)
        met = self._met.get(eligible)
        if met is None:
            met = self._kinds_met(eligible)
        if not self._some_kind_holds(met, nz, per if mode == "tpn" else 1):
            return True
        for k in met:
            top, count, order = self._tops[k], self._count[k], self._order[k]
            for x in range(len(order) - 1, -1, -1):
                c = order[x]
                if c < lo:
                    break
                n = count[c]
                t = top.get(c)
                if t is None:
                    t = self._top(k, c)
                f = 1 << 40
                for j, x in nz:
                    q = t[j] // x
                    if q < f:
                        f = q
                if f > 0:
                    tot += n * f
                    if f >= per:
                        cnt += n
                    if tot >= want_tot and cnt >= want_cnt:
                        return False
        return True

    def _kinds_met(self, eligible: int) -> tuple[int, ...]:
        """The kinds whose nodes `eligible` meets, ascending, kept in _met. O(kinds)."""
        if len(self._met) >= MET:
            self._met.clear()
        met = self._met[eligible] = tuple(k for k, m in enumerate(self.masks) if eligible & m)
        return met

    def _some_kind_holds(self, met: tuple[int, ...], nz: tuple[tuple[int, int], ...],
                         per: int) -> bool:
        """Does the maximum free vector of some kind of `met` (ktop, a bound on each of its
        nodes' free vectors) hold `per` tasks of the per-task vector whose nonzero parts
        are `nz`? False: no node holds them, the question fails unread. O(kinds met), plus
        O(buckets) for a kind whose maximum is recomputed."""
        for k in met:
            t = self._ktop[k]
            if t is None:
                tops = [self._tops[k].get(c) or self._top(k, c) for c in self._count[k]]
                t = self._ktop[k] = tuple(map(max, *tops)) if len(tops) > 1 else tops[0]
            for j, x in nz:
                if t[j] < x * per:
                    break
            else:
                return True
        return False

    def _top(self, k: int, c: int) -> tuple[int, ...]:
        """Bucket c of kind k's componentwise maximum, recomputed and kept. O(vectors)."""
        b = self._shapes[k][c]
        t = self._tops[k][c] = tuple(map(max, *b)) if len(b) > 1 else next(iter(b))
        return t

    def check(self, cap: Sequence[tuple[int, ...]], used0: Sequence[tuple[int, ...]]) -> None:
        """Assert the invariant, recomputed from every node's capacity and usage at the
        origin (used0[i]). O(N + buckets)."""
        for i, (c, _old, new) in self.pending.items():
            assert c == cap[i] and new == used0[i], f"pending move of node {i} out of step"
        self.flush()
        count: list[dict[int, int]] = [{} for _ in self.masks]
        shapes: list[dict[int, dict[tuple[int, ...], int]]] = [{} for _ in self.masks]
        for i, k in enumerate(self.kind_of):
            assert (self.masks[k] >> i) & 1, f"node {i} outside its kind's mask"
            free = tuple(map(sub, cap[i], used0[i]))
            count[k][free[0]] = count[k].get(free[0], 0) + 1
            b = shapes[k].setdefault(free[0], {})
            b[free] = b.get(free, 0) + 1
        assert count == self._count, "free-shape counts out of step"
        assert len(self._met) <= MET and all(
            met == tuple(k for k, m in enumerate(self.masks) if e & m)
            for e, met in self._met.items()), "stale kinds met"
        assert self._order == [sorted(c) for c in count], "free-shape bucket order out of step"
        assert len(self._nz) <= MET and all(nz == tuple((j, x) for j, x in enumerate(d) if x > 0)
                                            for d, nz in self._nz.items()), "wrong nonzero parts"
        for k, kt in enumerate(self._ktop):
            vecs = [v for b in shapes[k].values() for v in b]
            assert kt is None or kt == (tuple(map(max, *vecs)) if len(vecs) > 1
                                        else vecs[0]), "stale kind maximum"
        assert shapes == self._shapes, "free-shape buckets out of step"
        for j, lv in enumerate(self.levels):
            assert lv == ladder(max(c[j] for c in cap)), "room ladder out of step"
            assert self._room[j] == [mask_of([i for i in range(len(cap))
                                             if cap[i][j] - used0[i][j] >= x], len(cap))
                                    for x in lv], "room masks out of step"
        for k, top in enumerate(self._tops):
            for c, t in top.items():
                assert t == tuple(map(max, *shapes[k][c])) if len(shapes[k][c]) > 1 \
                    else t == next(iter(shapes[k][c])), "stale free-shape maximum"


def ladder(top: int) -> list[int]:
    """The amounts 1, 2, 3, 4, 6, 8, 12, 16, ... (2^k and 3 x 2^(k-1)) up to `top`: room
    masks are kept at these, so a request meets one within a factor 1.5 below what it asks,
    and a move crosses O(log) of them. O(log top)."""
    out, x = [], 1
    while x <= top:
        out.append(x)
        if x >= 2 and x + x // 2 <= top:
            out.append(x + x // 2)
        x *= 2
    return out
