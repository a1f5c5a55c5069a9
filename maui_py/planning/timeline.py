"""The node table's timeline (a part of planning/table.py's ReservationTable).

Truth is kept per node: the holds on it (running jobs, reservations of any kind) and the
step function of its usage from the table's origin (now) on. A sorted index of change
points carries, for each point, four node sets (Python ints, see bitset.py):

    chg   nodes whose usage changes at that point
    idle  nodes of chg that hold nothing after it
    full  nodes of chg whose processors are all taken after it
    frees nodes of chg whose usage falls there in some dimension (only there can a start
          fit that did not fit at the point before)

plus the idle and full sets at the origin. Sweeping the index in time order therefore gives
the idle and full sets at any instant with a few big-int operations, and the OR of `chg`
over a window gives the nodes whose usage is constant across it. Most questions ("how many
nodes are idle for the whole of [t, t+w)?") are answered over all nodes at once this way;
only partly used nodes are examined one by one, and incrementally while scanning forward.

A second, sparser index (`_gpts`, with the origin set `gfull0`) does the same for generic
resources: per point, `chg` the nodes where some gres turns all taken or stops being so,
and `full` those where one turns all taken. A request that needs every gres the table knows
places no task on such a node while that lasts, so its scan sets those nodes aside with a
few big-int operations, as it does nodes whose processors are all taken (a first cycle's
GPU reservations, queued behind each other, otherwise re-evaluated every partly used GPU
node at each change point).

Splicing a hold in or out updates a node's step function and records what its change
points do to the sets (_record, _apply); windows and free spans are read from it.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from operator import add, sub
from typing import Iterable

from ..model import Resources
from . import endheap
from .api import FOREVER, NEVER, Window
from .bitset import mask_of, members
from .steps import category_moves, ever_full, gres_full, gres_marks, vsub

VECTORS = 4096
"""Resource shapes ReservationTable.vector() keeps by value."""


class Timeline:
    """Per node, the step function of its usage from the origin on, and the change-point
    indexes over all nodes (see the module docstring). A part of ReservationTable
    (planning/table.py), which owns the state; node choice (nodechoice.py) reads it
    through node_times, points, node_next_change and last_change."""

    @property
    def node_times(self) -> list[list[int]]:
        """Per node, its step function's breakpoints (T[0] = NEVER): read, never written."""
        return self._T

    @property
    def points(self):
        """The change-point index (planning/points.PointIndex): read, never written."""
        return self._pts

    # ----------------------------------------------------------------- vectors
    def vector(self, r: Resources) -> tuple[int, ...]:
        """Resources as this table's vector; KeyError for a gres no node has. O(dims)."""
        hit = self._vec_cache.get(id(r))
        if hit is not None and hit[0] is r:
            return hit[1]
        key = (r.procs, r.mem, r.gres)
        got = self._vec_by_value.get(key)
        if got is not None:
            return got
        v = [0] * len(self.dims)
        v[0] = r.procs
        if self.track_mem:
            v[1] = r.mem
        for name, count in r.gres:
            if count:
                v[self._gres_pos[name]] = count
        got = tuple(v)
        if len(self._vec_by_value) < VECTORS:
            self._vec_by_value[key] = got
        return got

    def resources(self, v: tuple[int, ...]) -> Resources:
        """The inverse of vector(), cached: placements reuse a handful of vectors. O(dims)."""
        r = self._res_cache.get(v)
        if r is None:
            mem = v[1] if self.track_mem else 0
            g = {name: v[p] for name, p in self._gres_pos.items() if v[p]}
            r = self._res_cache[v] = Resources.of(v[0], mem, g)
            self._vec_cache[id(r)] = (r, v)
        return r

    # ------------------------------------------------------------ node updates
    def holds_on(self, i: int) -> list[tuple[int, int, tuple[int, ...], str]]:
        """(start, end, vector, owner) of every hold on node i. O(H): for checks, not paths."""
        out = []
        for h in self.holds.values():
            v = h.vec.get(i)
            if v is not None:
                out.append((h.start, h.end, v, h.owner))
        return out

    def _steps_from(self, holds: Iterable[tuple[int, int, tuple[int, ...], str]]
                    ) -> tuple[list[int], list[tuple[int, ...]]]:
        """The step function (from the origin) of a node holding `holds`. O(h log h)."""
        origin = self.origin
        zero = self.zero
        ups: dict[int, tuple[int, ...]] = {}      # what starts at t, what ends at t
        downs: dict[int, tuple[int, ...]] = {}
        for s, e, v, _owner in holds:
            if s < origin:
                s = origin
            if e <= s:
                continue
            got = ups.get(s)
            ups[s] = v if got is None else tuple(map(add, got, v))
            got = downs.get(e)
            downs[e] = v if got is None else tuple(map(add, got, v))
        T = [NEVER]
        U = [zero]
        cur = zero
        for t in sorted(ups.keys() | downs.keys()):
            got = ups.get(t)
            if got is not None:
                cur = tuple(map(add, cur, got))
            got = downs.get(t)
            if got is not None:
                cur = tuple(map(sub, cur, got))
            if t == origin:
                U[0] = cur
            elif cur != U[-1]:
                T.append(t)
                U.append(cur)
        return T, U

    @staticmethod
    def _spliced(T: list[int], U: list[tuple[int, ...]], s: int, e: int, v: tuple[int, ...],
                 origin: int) -> tuple[list[int], list[tuple[int, ...]]]:
        """A new step function: T/U plus v over [s, e) (origin <= s < e). O(h)."""
        T, U = T[:], U[:]
        k = bisect_right(T, s) - 1
        if T[k] != s and s > origin:
            k += 1
            T.insert(k, s)
            U.insert(k, U[k - 1])
        j = bisect_left(T, e, k)
        if j == len(T) or T[j] != e:
            T.insert(j, e)
            U.insert(j, U[j - 1])
        for m in range(k, j):
            U[m] = tuple(map(add, U[m], v))
        if j < len(T) and U[j] == U[j - 1]:
            del T[j], U[j]
        if k > 0 and U[k] == U[k - 1]:
            del T[k], U[k]
        return T, U

    def _steps_without(self, i: int, exclude: Iterable[str]
                       ) -> tuple[list[int], list[tuple[int, ...]]]:
        """Node i's step function as if `exclude`d owners held nothing. O(x h)."""
        T, U = self._T[i], self._U[i]
        for owner in exclude:
            h = self.holds.get(owner)
            v = h.vec.get(i) if h is not None else None
            if v is not None and h.end > self.origin:
                T, U = self._spliced(T, U, max(h.start, self.origin), h.end,
                                     tuple(-x for x in v), self.origin)
        return T, U

    def _cat(self, i: int, u: tuple[int, ...]) -> int:
        """0 idle, 1 partly used, 2 processors all taken."""
        if u == self.zero:
            return 0
        return 2 if u[0] >= self.cap[i][0] else 1

    def _record(self, nodes: list[int], cap: tuple[int, ...], oldT, oldU, T, U, lo: int, hi: int,
                acc: dict[int, list[int]], acc0: list[int], gres: bool = False) -> None:
        """Give `nodes` (which shared oldT/oldU) the step function T/U, and record, as node
        sets, how their change points in [lo, hi] and their state at the origin moved, in
        both indexes (the gres one when `gres`: the change touched a generic resource). A
        later record for the same nodes overrides an earlier one. Slots of acc[t]: clr,
        chg, idle, full, frees of the main index, then clr, chg, full of the gres one; of
        acc0: clr, idle, full at the origin, then clr, full of the gres one.
        O(breakpoints in range)."""
        tt = self._T
        uu = self._U
        for i in nodes:
            tt[i] = T
            uu[i] = U
        m = 1 << nodes[0] if len(nodes) == 1 else mask_of(nodes, len(self.nodes))
        if len(oldT) == 1:
            if len(T) > 1:
                self.later |= m
        elif len(T) == 1:
            x = self.later
            self.later = x ^ (x & m)
        nf = ever_full(cap, U, self.zero)
        x = self.fills
        if nf or x & m:
            self.fills = (x ^ (x & m)) | (m if nf else 0)
        if oldU[0] != U[0]:
            if len(nodes) == 1:     # a start on one node: its kind, not a pass over kinds
                self.shapes.move_one(nodes[0], cap, oldU[0], U[0])
            else:
                self.shapes.move(m, cap, oldU[0], U[0])
            if oldU[0][0] != U[0][0]:     # one node: a shift, not a cluster-wide popcount
                self.free_now += (oldU[0][0] - U[0][0]) * (
                    (self.usable >> nodes[0]) & 1 if len(nodes) == 1
                    else (m & self.usable).bit_count())
        zero = self.zero
        oc = 0 if oldU[0] == zero else (2 if oldU[0][0] >= cap[0] else 1)
        nc = 0 if U[0] == zero else (2 if U[0][0] >= cap[0] else 1)
        # x ^ (x & m) is x & ~m without a negative int (several times dearer to work on)
        if oc != nc:
            acc0[0] |= m
            a1, a2 = acc0[1], acc0[2]
            acc0[1] = (a1 ^ (a1 & m)) | (m if nc == 0 else 0)
            acc0[2] = (a2 ^ (a2 & m)) | (m if nc == 2 else 0)
        lo = max(lo, self.origin + 1)
        if gres:
            gd = self._gdims
            go, gn = gres_full(oldU[0], cap, gd), gres_full(U[0], cap, gd)
            if go is not gn:
                acc0[3] |= m
                x = acc0[4]
                acc0[4] = (x ^ (x & m)) | (m if gn else 0)
            was = gres_marks(cap, gd, oldT, oldU, lo, hi)
            now = gres_marks(cap, gd, T, U, lo, hi)
            if was or now:
                for t in was.keys() | now.keys():
                    f = now.get(t)
                    if f is was.get(t):
                        continue
                    slot = acc.get(t)
                    if slot is None:
                        slot = acc[t] = [0, 0, 0, 0, 0, 0, 0, 0]
                    slot[5] |= m
                    x = slot[6]
                    slot[6] = (x ^ (x & m)) | (m if f is not None else 0)
                    x = slot[7]
                    slot[7] = (x ^ (x & m)) | (m if f else 0)
        for t, c in category_moves(cap, zero, oldT, oldU, T, U, lo, hi):
            slot = acc.get(t)
            if slot is None:
                slot = acc[t] = [0, 0, 0, 0, 0, 0, 0, 0]
            slot[0] |= m
            x = slot[1]
            slot[1] = (x ^ (x & m)) | (m if c >= 0 else 0)
            x = slot[2]
            slot[2] = (x ^ (x & m)) | (m if c == 0 or c == 3 else 0)
            x = slot[3]
            slot[3] = (x ^ (x & m)) | (m if c == 2 or c == 5 else 0)
            x = slot[4]
            slot[4] = (x ^ (x & m)) | (m if c >= 3 else 0)

    def _splice(self, items: Iterable[tuple[int, tuple[int, ...]]], s: int, e: int,
                sign: int, acc: dict[int, list[int]] | None = None,
                acc0: list[int] | None = None) -> None:
        """Add (sign=1) or remove (sign=-1) vector v over [s, e) on every (node, v).

        Nodes that share a step function (every node of one running job, every idle node)
        and get the same vector are updated together: O(groups x breakpoints) plus O(k)
        list operations, instead of a recomputation per node. With `acc` given, the index
        update is left to the caller (bulk loads).
        """
        origin = self.origin
        s = max(s, origin)
        if e <= s:
            return
        groups: dict[tuple, list[int]] = {}
        tt = self._T
        for i, v in items:
            key = (id(tt[i]), v, self.cap[i])
            g = groups.get(key)
            if g is None:
                groups[key] = [i]
            else:
                g.append(i)
        if self._now_order.nodes:       # the kept start-now order drops them (nowwalk.py)
            self._now_order.log.extend(groups.values())
        own = acc is None
        if own:
            acc, acc0 = {}, [0, 0, 0, 0, 0]
        gs, gz = self._gstart, self._gzero
        made: dict[tuple, tuple[list[int], list[tuple[int, ...]]]] = {}
        for (_a, v, cap), nodes in groups.items():
            oldT, oldU = tt[nodes[0]], self._U[nodes[0]]
            if sign < 0:
                v = tuple(-x for x in v)
            T, U = self._spliced(oldT, oldU, s, e, v, origin)
            if len(groups) > 1:     # groups that end up alike share one step function
                key = (tuple(T), tuple(U))
                shared = made.get(key)
                if shared is None:
                    made[key] = shared = (T, U)
                T, U = shared
            self._record(nodes, cap, oldT, oldU, T, U, s, e, acc, acc0, v[gs:] != gz)
        if own:
            self._apply(acc, acc0)

    def _apply(self, acc: dict[int, list[int]], acc0: list[int]) -> None:
        """Fold recorded node changes into the change-point index. O(points touched)."""
        c0 = acc0[0]
        if c0:
            i0, f0 = self.idle0, self.full0
            self.idle0 = (i0 ^ (i0 & c0)) | acc0[1]
            self.full0 = (f0 ^ (f0 & c0)) | acc0[2]
        c0 = acc0[3]
        if c0:
            g0 = self.gfull0
            self.gfull0 = (g0 ^ (g0 & c0)) | acc0[4]
        pts, gpts = self._pts, self._gpts
        for t, (clr, chg, idle, full, frees, gclr, gchg, gfull) in acc.items():
            if clr:
                k = pts.find(t)
                if k >= 0:
                    a, b, c, d = pts.chg[k], pts.idle[k], pts.full[k], pts.frees[k]
                    pts.put(t, (a ^ (a & clr)) | chg, (b ^ (b & clr)) | idle,
                            (c ^ (c & clr)) | full, (d ^ (d & clr)) | frees)
                else:
                    pts.put(t, chg, idle, full, frees)
            if gclr:
                k = gpts.find(t)
                if k >= 0:
                    a, c = gpts.chg[k], gpts.full[k]
                    gpts.put(t, (a ^ (a & gclr)) | gchg, 0, (c ^ (c & gclr)) | gfull)
                else:
                    gpts.put(t, gchg, 0, gfull)

    def _room(self, i: int, s: int, e: int, exclude: Iterable[str] | None = None
              ) -> tuple[int, ...]:
        """Node i's smallest free vector over [s, e). O(log h + segments in window); O(log h)
        from the origin (start-now questions), by the step function's prefix maxima."""
        return vsub(self.cap[i], self._used(i, s, e, exclude))

    def _used(self, i: int, s: int, e: int, exclude: Iterable[str] | None = None
              ) -> tuple[int, ...]:
        """Node i's largest usage vector over [s, e) (_room's complement, which the scan's
        fits read without building the free vector). Same cost as _room."""
        if exclude:
            T, U = self._steps_without(i, exclude)
        else:
            T, U = self._T[i], self._U[i]
            if s <= self.origin:
                return self._prefix_max(T, U)[bisect_left(T, e) - 1]
        k = max(bisect_right(T, s) - 1, 0)
        m = bisect_left(T, e, k)          # segments k..m-1 meet [s, e)
        if m - k == 1:
            return U[k]
        if m > k:
            return tuple(map(max, *U[k:m]))    # componentwise, all segments in one call
        return self.zero

    def _prefix_max(self, T: list[int], U: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
        """Componentwise running maximum of U: entry k is the most a node with this step
        function uses over [origin, T[k + 1]). O(h) the first time, O(1) after."""
        return self._from_origin(T, U)[2]

    def _from_origin(self, T: list[int], U: list[tuple[int, ...]]
                     ) -> tuple[list[int], list[tuple[int, ...]], list[tuple[int, ...]],
                                dict[tuple, int]]:
        """The cache entry of a step function: (T, U, running maxima of U, the fits
        _fit_now and _fit_between worked out on it). Cached per step function (the lists
        are never mutated, and the cache keeps T alive so that its id is not reused; a hit
        is checked by identity, so the stale keys of a deep copy are never used). O(h) the first
        time, O(1) after."""
        hit = self._pmax.get(id(T))
        if hit is not None and hit[0] is T:
            return hit
        out = [U[0]]
        for u in U[1:]:
            out.append(tuple(map(max, out[-1], u)))
        if len(self._pmax) > 4 * len(self.nodes) + 1024:
            self._pmax.clear()
        hit = self._pmax[id(T)] = (T, U, out, {})
        return hit

    # ---------------------------------------------------------------- views
    def free_at(self, node: str, t: int) -> Resources:
        """Free resources of a node at instant t. O(log h)."""
        i = self.index[node]
        T = self._T[i]
        k = max(bisect_right(T, t) - 1, 0)
        return self.resources(vsub(self.cap[i], self._U[i][k]))

    def node_next_change(self, i: int, t: int) -> int:
        """First change point of node i strictly after t (FOREVER if none). O(log h)."""
        T = self._T[i]
        k = bisect_right(T, t)
        return T[k] if k < len(T) else FOREVER

    def last_change(self, i: int, t: int) -> int:
        """Last change point of node i at or before t (the origin if none). O(log h)."""
        T = self._T[i]
        return max(T[max(bisect_right(T, t) - 1, 0)], self.origin)

    def change_points(self) -> list[int]:
        """Every change point after the origin, ascending. O(P)."""
        return list(self._pts.times)

    def windows(self, mask: int | None = None, min_duration: int = 0) -> list[Window]:
        """Free backfill windows from now, widest first, as showbf lists them.

        For each node with free processors now: how many, and until when that many stay
        free. Window k holds every node free for longer than window k-1's duration; its
        duration is the shortest among them. O(N log N) over the nodes considered.
        """
        m = self.usable if mask is None else mask & self.usable
        avail = []
        for i in members(m):
            free, until = self.free_span(i)
            if free > 0:
                avail.append((until - self.origin if until < FOREVER else FOREVER, free))
        out: list[Window] = []
        prev = 0
        avail.sort()
        while avail:
            dur = avail[0][0]
            if dur > prev:
                procs = sum(f for _, f in avail)
                if dur >= min_duration:
                    out.append(Window(procs, len(avail), dur))
                prev = dur
            avail = [a for a in avail if a[0] > dur]
        return out

    def free_span(self, i: int) -> tuple[int, int]:
        """(processors free on node i now, the instant from which fewer are free: FOREVER
        if never). O(change points of node i)."""
        T, U = self._T[i], self._U[i]
        u0 = U[0][0]
        for k in range(1, len(T)):
            if U[k][0] > u0:
                return self.cap[i][0] - u0, T[k]
        return self.cap[i][0] - u0, FOREVER

    def _check_steps(self) -> None:
        """Assert that each node's step function is the one its holds make, in order and
        within capacity, and that the end heap is the holds'. O(N h log h)."""
        n = len(self.nodes)
        per_node: dict[int, list] = {}
        for owner, h in self.holds.items():
            assert h.end > self.origin and h.end > h.start, f"expired hold {owner}"
            assert h.mask == mask_of([i for i, _ in h.alloc]) and h.vec == dict(h.alloc), owner
            for i, v in h.alloc:
                per_node.setdefault(i, []).append((h.start, h.end, v, owner))
        for i in range(n):
            T, U = self._steps_from(per_node.get(i, ()))
            assert (T, U) == (self._T[i], self._U[i]), f"node {i}: stale step function"
            assert T[0] == NEVER and all(a < b for a, b in zip(T, T[1:])), f"node {i}"
            assert len(T) == 1 or T[1] > self.origin, f"node {i}: change point before origin"
            assert all(U[k] != U[k + 1] for k in range(len(U) - 1)), f"node {i}: equal steps"
            if i not in self.overcommitted:
                for u in U:
                    assert all(0 <= x <= c for x, c in zip(u, self.cap[i])), (
                        f"node {self.nodes[i].name} over-allocated: {u} > {self.cap[i]}")
        endheap.check(self._ends, self.holds)

    def _check_index(self) -> None:
        """Assert that the change-point indexes (and the origin sets, later, fills and
        free_now) are those the step functions make. O(N h + P)."""
        n = len(self.nodes)
        expect: dict[int, list[int]] = {}
        idle0 = full0 = 0
        for i in range(n):
            c0 = self._cat(i, self._U[i][0])
            idle0 |= (c0 == 0) << i
            full0 |= (c0 == 2) << i
            U = self._U[i]
            for k, t in enumerate(self._T[i][1:], 1):
                p = expect.setdefault(t, [0, 0, 0, 0])
                c = self._cat(i, U[k])
                p[0] |= 1 << i
                p[1] |= (c == 0) << i
                p[2] |= (c == 2) << i
                p[3] |= any(b < a for a, b in zip(U[k - 1], U[k])) << i
        assert (idle0, full0) == (self.idle0, self.full0), "origin sets out of step"
        assert self.later == mask_of([i for i in range(n) if len(self._T[i]) > 1], n), (
            "nodes with change points out of step")
        assert self.fills == mask_of([i for i in range(n) if any(
            self._cat(i, u) == 2 for u in self._U[i][1:])], n), "nodes that fill out of step"
        assert self.free_now == sum(self.cap[i][0] - self._U[i][0][0] for i in range(n)
                                    if (self.usable >> i) & 1), "free_now out of step"
        pts = self._pts
        got = {t: [c, i, f, d] for t, c, i, f, d in zip(pts.times, pts.chg, pts.idle, pts.full,
                                                        pts.frees)}
        assert got == expect, "change-point index out of step"
        gd, gexpect, g0 = self._gdims, {}, 0
        for i in range(n):
            U, cap = self._U[i], self.cap[i]
            if gd and gres_full(U[0], cap, gd):
                g0 |= 1 << i
            for t, f in (gres_marks(cap, gd, self._T[i], U, NEVER, FOREVER) if gd else {}).items():
                p = gexpect.setdefault(t, [0, 0])
                p[0] |= 1 << i
                p[1] |= f << i
        assert g0 == self.gfull0, "gres origin set out of step"
        gpts = self._gpts
        assert {t: [c, f] for t, c, f in zip(gpts.times, gpts.chg, gpts.full)} == gexpect, (
            "gres index out of step")
        assert not any(gpts.idle) and not any(gpts.frees)
        assert set(gpts.times) <= set(pts.times), "a gres change point the index lacks"
        gpts.check()
        assert pts.times == sorted(pts.times)
        pts.check()
        for x in list(pts.times[:3]) + [pts.times[-1] + 1] if pts.times else []:
            a = b = 0
            for t, c, f in zip(pts.times, pts.chg, pts.full):
                if t < x:
                    a |= c
                    b |= f
            assert pts.or_before(x) == (a, b), "stale coarse index"
        idle, full = self.idle0, self.full0
        for k, (c, ia, fa) in enumerate(zip(pts.chg, pts.idle, pts.full)):
            if k % 7 == 0 or k > len(pts.times) - 3:
                assert pts.sets_before(k, idle, full) == (idle, full), "stale bucket sets"
            idle = (idle ^ (idle & c)) | ia
            full = (full ^ (full & c)) | fa
        assert pts.sets_before(len(pts.times), self.idle0, self.full0) == (idle, full)
