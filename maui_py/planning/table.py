"""The time-indexed reservation table: what every node has free over time.

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

N nodes, P change points, h holds on a node, k nodes in a hold. Python-level costs are
given below; big-int operations cost O(N/64) machine words each and are counted as one.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from heapq import heapify, heappop, heappush
from operator import add
from typing import Iterable, Sequence

from ..cfg.choices import NodeAllocation
from ..model import JobRequest, Node, Resources
from . import endheap
from .api import (FOREVER, NEVER, Ability, Compiled, NoPlacement, OverAllocation, Placement,
                  Unsupported, Window)
from .bitset import mask_of, members
from .compiling import Compiling
from .credits import Credits
from .nodechoice import select
from .points import PointIndex
from .scan import Scanning
from .steps import (TableHold, _cat_moves, _category, _fills, _frees, _gres_full, _gres_marks,
                    _vadd, _vsub, index_nodes)

Hold = tuple[str, int, int, Iterable[tuple[str, Resources]], str]
"""(owner, start, end, allocation, kind), as load() takes them."""


def _points_of(T: list[int], U: list[tuple[int, ...]], c: tuple[int, ...],
               zero: tuple[int, ...], gd: tuple[int, ...] | None) -> tuple:
    """What a node of capacity c with step function (T, U) adds to the table's sets:
    (over-allocated, fills, [(point, category, frees)], (gres full at the origin, gres
    marks) when gd, else None)."""
    return (any(x > y for u in U for x, y in zip(u, c)), _fills(c, U, zero),
            [(T[k], _category(U[k - 1], U[k], zero, c[0]) % 3, _frees(U[k - 1], U[k]))
             for k in range(1, len(T))],
            (_gres_full(U[0], c, gd), _gres_marks(c, gd, T, U, NEVER, FOREVER))
            if gd is not None else None)


VECTORS = 4096
"""Resource shapes ReservationTable.vector() keeps by value."""


class ReservationTable(Compiling, Credits, Scanning):
    """Free resources of every node over time, and the earliest-start question on them."""

    abilities: frozenset[Ability] = frozenset()

    def __init__(self, nodes: Sequence[Node], origin: int):
        """An empty table (nothing held). O(N)."""
        self.origin = int(origin)
        self.nodes: tuple[Node, ...] = tuple(nodes)
        self.index = index_nodes(self.nodes)
        gres = sorted({k for n in self.nodes for k, _ in n.resources.gres})
        self.track_mem = any(n.resources.mem > 0 for n in self.nodes)
        self.dims: tuple[str, ...] = ("procs",) + (("mem",) if self.track_mem else ()) + tuple(gres)
        self._gres_pos = {g: i + (2 if self.track_mem else 1) for i, g in enumerate(gres)}
        self.zero: tuple[int, ...] = (0,) * len(self.dims)
        self._res_cache: dict[tuple[int, ...], Resources] = {}
        self._vec_cache: dict[int, tuple[Resources, tuple[int, ...]]] = {}
        self._vec_by_value: dict[tuple, tuple[int, ...]] = {}
        """vector() of resources seen before, by value: a snapshot's allocations repeat a
        few hundred shapes in distinct objects. At most VECTORS entries."""
        self.cap: list[tuple[int, ...]] = [self.vector(n.resources) for n in self.nodes]
        n = len(self.nodes)
        self.all_mask = (1 << n) - 1
        self.usable = mask_of([i for i, nd in enumerate(self.nodes) if nd.state.usable], n)
        classes: dict[tuple[int, ...], list[int]] = {}
        for i, c in enumerate(self.cap):
            classes.setdefault(c, []).append(i)
        self.cap_classes: list[tuple[tuple[int, ...], int]] = sorted(
            (c, mask_of(ix, n)) for c, ix in classes.items())
        shared_T: list[int] = [NEVER]
        shared_U: list[tuple[int, ...]] = [self.zero]
        self._T: list[list[int]] = [shared_T] * n
        self._U: list[list[tuple[int, ...]]] = [shared_U] * n
        """Step functions; nodes with equal ones share the lists, which are never mutated."""
        self._pts = PointIndex()
        self._gdims: tuple[int, ...] = tuple(self._gres_pos.values())
        """Positions of the generic resources in a vector (empty: no gres index kept), the
        last ones: v[_gstart:] != _gzero says whether v takes any."""
        self._gstart = len(self.dims) - len(self._gdims)
        self._gzero = self.zero[self._gstart:]
        self._gpts = PointIndex()
        """The gres index (module docstring): idle and frees unused."""
        self.gfull0 = 0
        """Nodes with some gres all taken at the origin."""
        self.idle0 = self.all_mask
        self.full0 = mask_of([i for i, c in enumerate(self.cap) if c[0] <= 0], n)
        self.later = 0
        """Nodes with a change point after the origin (the OR of every point's chg set): no
        run of points changes a node outside it, which node choice and the scan read
        without walking the points."""
        self.fills = 0
        """Nodes whose processors are all taken after some change point (the OR of every
        point's full set): no run of points fills a node outside it (scan)."""
        self.holds: dict[str, TableHold] = {}
        self._ends: list[tuple[int, str]] = []
        """Holds' ends (planning/endheap.py): a push costs O(log H) in C, where a sorted
        list's add cost some 4 us per start."""
        self._feature_masks: dict[str, int] = {}
        self._compiled: dict[tuple, Compiled | NoPlacement] = {}
        self._pmax: dict[int, tuple[list[int], list[tuple[int, ...]], list[tuple[int, ...]],
                                    dict[tuple, int]]] = {}
        """id(T) -> (T, U, running maxima of U, fits from the origin): see _from_origin."""
        self._flat_fits: dict[tuple, dict[int, tuple[list[int], int]]] = {}
        """(per-task vector, exclusive) -> node -> (its step function's T, fit): for nodes
        whose usage never rises above the origin's, whose fit from the origin is the same
        over any window (_fits_now reads it with one look-up while T is the node's)."""
        self._class_masks: dict[str, int] = {}
        self.overcommitted: set[int] = set()
        self.freed = 0
        self._floors: dict[tuple, list[tuple[int, int, int, Compiled]]] = {}
        self._floors_at: tuple[int, int] | None = None
        """Earliest starts found since the last release or origin move: see _floor."""
        self.credits_against: dict[str, set[str]] = {}
        """Reservation owner -> the credit holds jobs inside it have taken from it."""
        self.members_of: dict[str, set[str]] = {}
        """Reservation owner -> the holds placed inside it (see TableHold.inside)."""
        self.version = 0
        """Bumped by every change of the table (a Placement remembers the one it saw)."""
        """Bumped whenever resources come free earlier than planned (a hold released before
        its end) or a hold is forced in as reported: a reservation made while it had
        another value may no longer be the earliest. Unchanged means no start can move
        earlier, which lets the cycle keep reservations instead of re-making them."""
        self.free_now = sum(c[0] for i, c in enumerate(self.cap) if (self.usable >> i) & 1)
        """Processors free at the origin on usable nodes: the O(1) test backfill starts from."""

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
        ev: dict[int, tuple[int, ...]] = {}
        for s, e, v, _owner in holds:
            if s < origin:
                s = origin
            if e <= s:
                continue
            ev[s] = _vadd(ev[s], v) if s in ev else v
            neg = tuple(-x for x in v)
            ev[e] = _vadd(ev[e], neg) if e in ev else neg
        T = [NEVER]
        U = [zero]
        cur = zero
        for t in sorted(ev):
            cur = _vadd(cur, ev[t])
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
        nf = _fills(cap, U, self.zero)
        x = self.fills
        if nf or x & m:
            self.fills = (x ^ (x & m)) | (m if nf else 0)
        if oldU[0][0] != U[0][0]:
            self.free_now += (oldU[0][0] - U[0][0]) * (m & self.usable).bit_count()
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
            go, gn = _gres_full(oldU[0], cap, gd), _gres_full(U[0], cap, gd)
            if go is not gn:
                acc0[3] |= m
                x = acc0[4]
                acc0[4] = (x ^ (x & m)) | (m if gn else 0)
            was = _gres_marks(cap, gd, oldT, oldU, lo, hi)
            now = _gres_marks(cap, gd, T, U, lo, hi)
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
        for t, c in _cat_moves(cap, zero, oldT, oldU, T, U, lo, hi):
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
        return _vsub(self.cap[i], self._used(i, s, e, exclude))

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

    # ---------------------------------------------------------------- holds
    def _items(self, allocation: Iterable[tuple[str, Resources]]
               ) -> tuple[tuple[int, tuple[int, ...]], ...]:
        merged: dict[int, tuple[int, ...]] = {}
        index = self.index
        for name, res in allocation:
            i = index.get(name)
            if i is None:
                raise KeyError(f"unknown node {name!r}")
            v = self.vector(res)
            merged[i] = _vadd(merged[i], v) if i in merged else v
        return tuple(merged.items())

    def _register(self, owner: str, kind: str, start: int, end: int,
                  items: tuple[tuple[int, tuple[int, ...]], ...]) -> None:
        self.holds[owner] = TableHold(owner, kind, start, end, items,
                                 mask_of([i for i, _ in items], len(self.nodes)), dict(items))
        heappush(self._ends, (end, owner))


    def reserve(self, owner: str, start: int, end: int,
                allocation: Iterable[tuple[str, Resources]], kind: str = "job",
                force: bool = False, inside: Iterable[str] = (), procs: int | None = None,
                checked: bool = False) -> None:
        """Hold `allocation` over [start, end) for `owner`.

        Raises KeyError if the owner already holds something (release first) and
        OverAllocation if a node lacks room, unless `force` (running jobs reported by the
        resource manager are recorded as they are). O(groups x h + k) for k nodes in groups
        of nodes sharing a step function.

        `inside`: reservations whose resources this hold may use (the job is in their access
        lists). Where it overlaps them, a credit hold takes the overlap back from the
        reservation, so that usage is counted once: outsiders still see exactly the
        reservation's amount, other members (who ignore the reservation and its credits)
        still see this hold. Credits never exceed what the hold takes nor what the
        reservation holds (less other members' credits), at any instant (_take_credits).
        `procs` (a count on no nodes) is the count planner's (Unsupported); `checked`, its
        hint that the room was checked, is not needed here.
        """
        if procs is not None:
            raise Unsupported("the node table holds resources on named nodes only")
        if owner in self.holds:
            raise KeyError(f"{owner!r} already holds resources; release it first")
        items = self._items(allocation)
        s = max(start, self.origin)
        if end <= s or not items:
            return
        inside = tuple(o for o in inside if o in self.holds)
        exclude = self.with_credits(inside) if inside else None
        seen: dict[tuple, bool] = {}
        for i, v in items:
            key = (id(self._T[i]), v, self.cap[i])
            ok = seen.get(key)
            if ok is None:
                room = self._room(i, s, end, exclude)
                ok = seen[key] = all(a <= b for a, b in zip(v, room))
                if not ok and not force:
                    raise OverAllocation(
                        f"{owner}: node {self.nodes[i].name} lacks room for "
                        f"{self.resources(v)} over [{s}, {end}) (free {room})")
            if not ok:
                self.overcommitted.add(i)
        if force:
            self.freed += 1
        self._register(owner, kind, start, end, items)
        self._splice(items, start, end, 1)
        if inside:
            self._take_credits(owner, inside)
        self.version += 1

    def reserve_placement(self, owner: str, p: Placement, kind: str = "job",
                          inside: Iterable[str] = ()) -> None:
        """reserve() for a Placement this table just computed: when the table has not changed
        since, its node indices and vectors are used as they are and the room check is
        skipped (it was the scan's). O(groups x h + k)."""
        inside = tuple(inside)
        if p.version != self.version or not p.items:
            self.reserve(owner, p.start, p.end, p.allocation, kind, inside=inside)
            return
        if owner in self.holds:
            raise KeyError(f"{owner!r} already holds resources; release it first")
        self._register(owner, kind, p.start, p.end, p.items)
        self._splice(p.items, p.start, p.end, 1)
        inside = tuple(o for o in inside if o in self.holds)
        if inside:
            self._take_credits(owner, inside)
        self.version += 1


    def load(self, holds: Iterable[tuple[str, int, int, Iterable[tuple[str, Resources]], str]]
             ) -> None:
        """Record many holds at once, as reported (no room check): (owner, start, end,
        allocation, kind). The change-point index is updated once at the end.
        O(H x groups x h + total nodes held); on a table that has held nothing yet
        (_load_fresh), O(total nodes held + h log h per distinct step function + P x N/64)."""
        if self.version == 0 and not self.holds:
            self._load_fresh(holds)
        else:
            acc: dict[int, list[int]] = {}
            acc0 = [0, 0, 0, 0, 0]
            for owner, start, end, allocation, kind in holds:
                if owner in self.holds:
                    raise KeyError(f"{owner!r} already holds resources; release it first")
                items = self._items(allocation)
                if end <= max(start, self.origin) or not items:
                    continue
                self._register(owner, kind, start, end, items)
                self._splice(items, start, end, 1, acc, acc0)
            self._apply(acc, acc0)
            for i in range(len(self.nodes)):
                if any(x > c for u in self._U[i] for x, c in zip(u, self.cap[i])):
                    self.overcommitted.add(i)
        self.freed += 1
        self.version += 1

    def _load_fresh(self, holds: Iterable[tuple[str, int, int, Iterable[tuple[str, Resources]],
                                                str]]) -> None:
        """load() into a table that has held nothing (every node idle, no change point):
        each node's step function is built once from all its holds (nodes given the same
        holds share it), and the node sets and the change-point index are written once
        from those step functions, where a hold at a time costs a splice and some twenty
        operations on N-bit sets (a fresh cycle loads every running job: 5,000 of them on
        10,000 nodes took 0.15 s). The same table as holds added one at a time, up to which
        equal step functions share one list. O(total nodes held + h log h per distinct
        step function + P x N/64)."""
        n = len(self.nodes)
        (later, fills, busy0, full0, over, gfull0, lists, glists, used_now
         ) = self._fresh_nodes(self._fresh_holds(holds))
        self.later = mask_of(later, n)
        self.fills = mask_of(fills, n)
        self.free_now -= used_now
        self.overcommitted.update(over)
        changed = mask_of(busy0, n)
        acc = {}
        for t, (a, b, c, d) in sorted(lists.items()):
            chg = mask_of(a, n)         # most points free every node they change: reused
            acc[t] = [chg, chg, chg if b == a else mask_of(b, n), mask_of(c, n),
                      chg if d == a else mask_of(d, n), 0, 0, 0]
        for t, (a, f) in glists.items():
            chg = mask_of(a, n)
            slot = acc[t]           # a gres change point is a change point
            slot[5] = slot[6] = chg
            slot[7] = chg if f == a else mask_of(f, n)
        g0 = mask_of(gfull0, n)
        self._apply(acc, [changed, 0, mask_of(full0, n), g0, g0])

    def _fresh_holds(self, holds: Iterable[Hold]
                     ) -> dict[int, list[tuple[int, int, tuple[int, ...]]]]:
        """Register `holds` (none held yet: KeyError otherwise) and their ends; node ->
        [(start from the origin, end, vector)] of what they hold there. O(total nodes)."""
        origin, n = self.origin, len(self.nodes)
        per_node: dict[int, list[tuple[int, int, tuple[int, ...]]]] = {}
        ends = []
        for owner, start, end, allocation, kind in holds:
            if owner in self.holds:
                raise KeyError(f"{owner!r} already holds resources; release it first")
            items = self._items(allocation)
            s = start if start > origin else origin
            if end <= s or not items:
                continue
            self.holds[owner] = TableHold(owner, kind, start, end, items,
                                          mask_of([i for i, _ in items], n), dict(items))
            ends.append((end, owner))
            for i, v in items:
                got = per_node.get(i)
                if got is None:
                    per_node[i] = [(s, end, v)]
                else:
                    got.append((s, end, v))
        self._ends.extend(ends)
        heapify(self._ends)
        return per_node

    def _fresh_nodes(self, per_node: dict[int, list[tuple[int, int, tuple[int, ...]]]]
                     ) -> tuple:
        """Each held node's step function (shared by nodes given the same holds) written,
        and what the sets and indexes are made of: (later, fills, busy at the origin, full
        at the origin, over-allocated, gres-full at the origin: node lists; point -> node
        lists of chg, idle, full, frees; gres point -> chg, full; processors used now)."""
        origin, zero = self.origin, self.zero
        steps: dict[tuple, tuple[tuple[list[int], list[tuple[int, ...]]], bool]] = {}
        """Step functions by the holds that make them, and whether any takes a gres."""
        points: dict[tuple, tuple[bool, bool, list[tuple[int, int, bool]],
                                  tuple[bool, dict[int, bool]] | None]] = {}
        lists: dict[int, tuple[list[int], list[int], list[int], list[int]]] = {}
        glists: dict[int, tuple[list[int], list[int]]] = {}
        later, fills, busy0, full0, over, gfull0 = [], [], [], [], [], []
        gd, gs, gz = self._gdims, self._gstart, self._gzero
        tt, uu, cap, usable = self._T, self._U, self.cap, self.usable
        used_now = 0
        for i, held in per_node.items():
            if len(held) == 1 and held[0][2] != zero:
                key = held[0]
                got = steps.get(key)
                if got is None:
                    s, e, v = key
                    got = steps[key] = (([NEVER, e], [v, zero]) if s == origin else
                                        ([NEVER, s, e], [zero, v, zero]), v[gs:] != gz)
            else:
                key = tuple(held)
                got = steps.get(key)
                if got is None:
                    got = steps[key] = (self._steps_from([(s, e, v, "") for s, e, v in held]),
                                        any(v[gs:] != gz for _s, _e, v in held))
            (T, U), gres = got
            tt[i] = T
            uu[i] = U
            c = cap[i]
            u0 = U[0]
            if u0 != zero:
                busy0.append(i)
                if u0[0] >= c[0]:
                    full0.append(i)
                if (usable >> i) & 1:
                    used_now += u0[0]
            pkey = (id(T), c)
            seen = points.get(pkey)
            if seen is None:
                seen = points[pkey] = _points_of(T, U, c, zero, gd if gres else None)
            is_over, fill, cats, gm = seen
            if gm is not None:
                if gm[0]:
                    gfull0.append(i)
                for t, f in gm[1].items():
                    gl = glists.get(t)
                    if gl is None:
                        gl = glists[t] = ([], [])
                    gl[0].append(i)
                    if f:
                        gl[1].append(i)
            if is_over:
                over.append(i)
            if len(T) == 1:
                continue
            later.append(i)
            if fill:
                fills.append(i)
            for t, cat, frees in cats:
                ls = lists.get(t)
                if ls is None:
                    ls = lists[t] = ([], [], [], [])
                ls[0].append(i)
                if cat == 0:
                    ls[1].append(i)
                elif cat == 2:
                    ls[2].append(i)
                if frees:
                    ls[3].append(i)
        return later, fills, busy0, full0, over, gfull0, lists, glists, used_now

    def release(self, owner: str) -> bool:
        """Drop everything `owner` holds, with the credits it took and those taken against it;
        False when it held nothing (credit holds go only with their holder or reservation).
        Members that may now take more credit (those of a released reservation, those
        sharing nodes and time with a released member in its reservations) re-take theirs.
        Same cost as reserve, plus one _take_credits per such member."""
        h = self.holds.get(owner)
        if h is None or h.kind == "credit":
            return False
        # Members whose credits may grow now: those of this reservation (their credits
        # against it go, others of their reservations may take the overlap instead), and,
        # for a member, the other members of the reservations it took credits from that
        # share nodes and time with it (the slack it leaves there).
        redo = set(self.members_of.pop(owner, ()))
        for m in redo:
            mh = self.holds[m]
            mh.inside = tuple(r for r in mh.inside if r != owner)
        took = {self.holds[c].inside[0] for c in h.credits if c in self.holds}
        for r_owner in h.inside:
            ms = self.members_of.get(r_owner)
            if ms is None:
                continue
            ms.discard(owner)
            if not ms:
                del self.members_of[r_owner]
            elif r_owner in took:
                redo.update(m for m in ms if self.holds[m].mask & h.mask
                            and self.holds[m].start < h.end and h.start < self.holds[m].end)
        for credit in h.credits:
            self._drop_credit(credit)
        for credit in sorted(self.credits_against.pop(owner, ())):
            self._drop_credit(credit)
        del self.holds[owner]
        self.freed += 1
        self.version += 1
        self._ends = endheap.compacted(self._ends, self.holds)
        self._splice(h.alloc, h.start, h.end, -1)
        for m in sorted(redo):
            self._retake_credits(m)
        return True


    def advance(self, now: int) -> list[str]:
        """Move the origin to `now`; returns owners whose holds ended by then.

        Change points up to now are folded into the origin sets. Amortised O(1) per point
        and O(1) per node whose usage changed (step functions are trimmed once per group).
        """
        if now <= self.origin:
            return []
        self.version += 1
        touched = 0
        idle, full = self.idle0, self.full0
        for chg, ia, fa in self._pts.pop_through(now):
            idle = (idle & ~chg) | ia
            full = (full & ~chg) | fa
            touched |= chg
        self.idle0, self.full0 = idle, full
        gpts = self._gpts
        if gpts.times and gpts.times[0] <= now:
            g = self.gfull0
            for chg, _ia, fa in gpts.pop_through(now):
                g = (g ^ (g & chg)) | fa
            self.gfull0 = g
        self.origin = now
        expired = []
        ends, holds = self._ends, self.holds
        while ends and ends[0][0] <= now:
            entry = heappop(ends)
            if endheap.live(holds, entry):
                expired.append(entry[1])
                del holds[entry[1]]
        if expired:
            self._forget_expired(expired)
        usable = self.usable
        trimmed: dict[int, tuple[list[int], list[tuple[int, ...]]]] = {}
        done = unfilled = 0
        for i in members(touched):
            T, U = self._T[i], self._U[i]
            j = bisect_right(T, now) - 1
            new = trimmed.get(id(T))
            if new is None:
                new = trimmed[id(T)] = ([NEVER] + T[j + 1:], U[j:])
            self._T[i], self._U[i] = new
            if len(new[0]) == 1:
                done |= 1 << i
            if not _fills(self.cap[i], new[1], self.zero):
                unfilled |= 1 << i
            if (usable >> i) & 1:
                self.free_now += U[0][0] - U[j][0]
        self.later ^= self.later & done
        self.fills ^= self.fills & unfilled
        return expired


    def earliest_start(self, request: JobRequest | Compiled, wallclock: int, after: int | None = None,
                       *, policy: NodeAllocation, until: int | None = None, ignore: Iterable[str] = (),
                       job_class: str = "", exclusive: bool | None = None) -> Placement | NoPlacement:
        """The earliest start at or after `after` (default: now) and the nodes to use.

        Candidate starts are `after` and the change points behind it; the request must fit
        for the whole of [t, t + wallclock). Nodes are chosen by NODEALLOCATIONPOLICY
        `policy` (maui_py.planning.nodechoice; no default here: the cycle passes the
        configuration's). Cost: compile + scan + selection.
        """
        ignore = tuple(ignore)
        cr = request if isinstance(request, Compiled) else self.compile(request, job_class,
                                                                       exclusive)
        if isinstance(cr, NoPlacement):
            return cr
        found = self.scan(cr, wallclock, after, until, ignore)
        if found is None:
            if until is not None:
                return NoPlacement("does not fit by the time asked")
            return NoPlacement("never fits on the nodes that are up (reservations block it)")
        t, fast, fits = found
        prefer = 0
        for o in ignore:
            h = self.holds.get(o)
            if h is not None and h.kind != "credit":
                prefer |= h.mask
        chosen = select(self, cr, t, max(int(wallclock), 1), fast, fits, policy, prefer=prefer)
        alloc = []
        items = []
        nodes, cap, d = self.nodes, self.cap, cr.d
        per: dict[int, tuple[tuple[int, ...], Resources]] = {}
        for i, ntasks in chosen:
            if cr.exclusive:
                v = cap[i]
                r = self.resources(v)
            else:
                got = per.get(ntasks)
                if got is None:
                    v = tuple([x * ntasks for x in d])
                    got = per[ntasks] = (v, self.resources(v))
                v, r = got
            alloc.append((nodes[i].name, r))
            items.append((i, v))
        return Placement(t, t + max(int(wallclock), 1), tuple(alloc), tuple(items), self.version)

    def fits(self, allocation: Iterable[tuple[str, Resources]], start: int, end: int) -> bool:
        """Would holding exactly `allocation` over [start, end) fit now? O(k log h)."""
        s = max(start, self.origin)
        for name, res in allocation:
            i = self.index.get(name)
            if i is None or not (self.usable >> i) & 1:
                return False
            v = self.vector(res)
            if any(a > b for a, b in zip(v, self._room(i, s, end))):
                return False
        return True

    # ---------------------------------------------------------------- views
    def free_at(self, node: str, t: int) -> Resources:
        """Free resources of a node at instant t. O(log h)."""
        i = self.index[node]
        T = self._T[i]
        k = max(bisect_right(T, t) - 1, 0)
        return self.resources(_vsub(self.cap[i], self._U[i][k]))

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

    def next_change(self) -> float:
        """The first time after the origin at which usage changes or a hold ends (inf
        when none). O(1) amortised."""
        t = min(self._pts.times[0] if self._pts.times else float("inf"),
                self._gpts.times[0] if self._gpts.times else float("inf"))
        ends = self._ends
        while ends and not endheap.live(self.holds, ends[0]):
            heappop(ends)
        return ends[0][0] if ends and ends[0][0] < t else t

    def ending_by(self, now: int) -> list[str]:
        """Owners whose holds end at or before `now`, by end then owner. O(k log k)."""
        return endheap.ending_by(self._ends, self.holds, now)

    def free_procs_at(self, t: int) -> int:
        """Not on the node table (Ability.COUNTS)."""
        raise Unsupported("free_procs_at: the count planner's (Ability.COUNTS)")

    def freed_until(self, stamp: int) -> int | None:
        """Not on the node table (Ability.REPLAN)."""
        raise Unsupported("freed_until: the count planner's (Ability.REPLAN)")

    def replan(self, owners: Sequence[str], candidates: int, freed_until: int | None = None,
               all_held: bool = False) -> tuple[int, list[tuple[str, int]]]:
        """Not on the node table (Ability.REPLAN)."""
        raise Unsupported("replan: the count planner's (Ability.REPLAN)")

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

    def dump(self) -> str:
        """A readable listing of holds and per-node usage, for diagnostics. O(N h + H)."""
        lines = [f"origin {self.origin}  nodes {len(self.nodes)}  holds {len(self.holds)}  "
                 f"change points {len(self._pts)}  dims {','.join(self.dims)}"]
        for h in sorted(self.holds.values(), key=lambda h: (h.start, h.owner)):
            nodes = ",".join(f"{self.nodes[i].name}:{self.resources(v)}" for i, v in h.alloc)
            lines.append(f"hold {h.owner} {h.kind} [{h.start}, {h.end}) {nodes}")
        for i, nd in enumerate(self.nodes):
            steps = " ".join(f"{'now' if t == NEVER else t}:{self.resources(u)}"
                             for t, u in zip(self._T[i], self._U[i]))
            lines.append(f"node {nd.name} cap {self.resources(self.cap[i])} {steps}")
        return "\n".join(lines)


    def _check(self) -> None:
        """Assert every invariant of the table, each part checking its own: the step
        functions against the holds and the fit caches against the step functions
        (timeline, compiling), the credits (credits), the change-point indexes (timeline)
        and the kept floors (scan). O(N h log h + P)."""
        self._check_steps()
        self._check_fit_caches()
        self._check_credits()
        self._check_index()
        self._check_floors()

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
            if gd and _gres_full(U[0], cap, gd):
                g0 |= 1 << i
            for t, f in (_gres_marks(cap, gd, self._T[i], U, NEVER, FOREVER) if gd else {}).items():
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

