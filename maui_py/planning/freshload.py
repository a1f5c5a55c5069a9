"""The node table's fresh load (a part of planning/table.py's ReservationTable): every
running job of a snapshot held at once on a table that has held nothing yet, as a fresh
cycle does.

Each node's step function is built once from all its holds (nodes given the same holds,
as a running job's nodes are, share one), and the node sets, the change-point indexes and
the free-shape index are written once from those step functions, where a hold at a time
costs a splice and some twenty operations on N-bit sets. The result is the table the same
holds added one at a time make, up to which equal step functions share one list
(tests/property/test_table_properties.py, test_first_cycle.py).

Cost: O(total nodes held + h log h per distinct step function + P x N/64 + one
FreeShapes.move per distinct (capacity, usage at the origin)).
"""

from __future__ import annotations

from heapq import heapify
from operator import add, gt, sub
from typing import Iterable

from ..model import Resources
from .api import FOREVER, NEVER
from .bitset import mask_of
from .steps import TableHold, ever_full, gres_full, gres_marks, point_category, usage_falls

Hold = tuple[str, int, int, Iterable[tuple[str, Resources]], str]
"""(owner, start, end, allocation, kind), as load() takes them."""


def _points_of(T: list[int], U: list[tuple[int, ...]], c: tuple[int, ...],
               zero: tuple[int, ...], gd: tuple[int, ...] | None) -> tuple:
    """What a node of capacity c with step function (T, U) adds to the table's sets:
    (over-allocated, fills, [(point, category, frees)], (gres full at the origin, gres
    marks) when gd, else None)."""
    return (any(any(map(gt, u, c)) for u in U), ever_full(c, U, zero),
            [(T[k], point_category(U[k - 1], U[k], zero, c[0]) % 3, usage_falls(U[k - 1], U[k]))
             for k in range(1, len(T))],
            (gres_full(U[0], c, gd), gres_marks(c, gd, T, U, NEVER, FOREVER))
            if gd is not None else None)


class FreshLoading:
    """load() into a table that has held nothing (the module docstring). A part of
    ReservationTable (planning/table.py), which owns the state; the result satisfies the
    table's _check (step functions, indexes, free shapes) as a load one hold at a time."""

    def _load_fresh(self, holds: Iterable[Hold]) -> None:
        """load() into a table that has held nothing (every node idle, no change point):
        each node's step function is built once from all its holds (nodes given the same
        holds share it), and the node sets and the change-point index are written once
        from those step functions, where a hold at a time costs a splice and some twenty
        operations on N-bit sets (a fresh cycle loads every running job: 5,000 of them on
        10,000 nodes took 0.15 s). The same table as holds added one at a time, up to which
        equal step functions share one list. O(total nodes held + h log h per distinct
        step function + P x N/64 + one FreeShapes.move per distinct (capacity, usage at
        the origin))."""
        n = len(self.nodes)
        (later, fills, busy0, full0, over, gfull0, lists, glists, used_now, moves
         ) = self._fresh_nodes(self._fresh_holds(holds))
        for (c, u0), ix in moves.items():   # a running job's nodes share both: one move
            self.shapes.move(mask_of(ix, n), c, self.zero, u0)
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
        lists of chg, idle, full, frees; gres point -> chg, full; processors used now;
        (capacity, usage at the origin) -> the busy nodes that have them)."""
        zero = self.zero
        steps: dict[tuple, tuple[tuple[list[int], list[tuple[int, ...]]], bool]] = {}
        """Step functions by the holds that make them (one hold: the hold itself), and
        whether any takes a gres."""
        points: dict[tuple, tuple[bool, bool, list[tuple[int, int, bool]],
                                  tuple[bool, dict[int, bool]] | None]] = {}
        lists: dict[int, tuple[list[int], list[int], list[int], list[int]]] = {}
        glists: dict[int, tuple[list[int], list[int]]] = {}
        later, fills, busy0, full0, over, gfull0 = [], [], [], [], [], []
        gd = self._gdims
        tt, uu, cap, usable = self._T, self._U, self.cap, self.usable
        used_now = 0
        moves: dict[tuple, list[int]] = {}     # (capacity, usage at the origin) -> nodes
        for i, held in per_node.items():
            key = held[0] if len(held) == 1 and held[0][2] != zero else tuple(held)
            got = steps.get(key)
            if got is None:
                got = steps[key] = self._fresh_steps(held)
            (T, U), gres = got
            tt[i] = T
            uu[i] = U
            c = cap[i]
            u0 = U[0]
            if u0 != zero:
                mv = moves.get((c, u0))
                if mv is None:
                    moves[(c, u0)] = [i]
                else:
                    mv.append(i)
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
        return later, fills, busy0, full0, over, gfull0, lists, glists, used_now, moves

    def _fresh_steps(self, held: list[tuple[int, int, tuple[int, ...]]]
                     ) -> tuple[tuple[list[int], list[tuple[int, ...]]], bool]:
        """The step function of a node holding `held` (start from the origin, end, vector),
        and whether any of them takes a gres. O(h log h); O(1) for one hold."""
        zero, gs, gz = self.zero, self._gstart, self._gzero
        if len(held) == 1 and held[0][2] != zero:
            s, e, v = held[0]
            return (([NEVER, e], [v, zero]) if s == self.origin else
                    ([NEVER, s, e], [zero, v, zero]), v[gs:] != gz)
        origin = self.origin
        if all(s == origin for s, _e, _v in held):     # running jobs: all from the origin
            return _from_origin(held, zero), any(v[gs:] != gz for _s, _e, v in held)
        return (self._steps_from([(s, e, v, "") for s, e, v in held]),
                any(v[gs:] != gz for _s, _e, v in held))


def _from_origin(held: list[tuple[int, int, tuple[int, ...]]], zero: tuple[int, ...]
                 ) -> tuple[list[int], list[tuple[int, ...]]]:
    """Timeline._steps_from of holds that all start at the origin and end after it (as
    _fresh_holds gives them): the same lists, from their sum at the origin less what ends
    at each end in turn, a point kept where the usage changes. O(h log h) with one
    dictionary, where _steps_from keeps starts and ends apart."""
    total = zero
    ends: dict[int, tuple[int, ...]] = {}
    for _s, e, v in held:
        total = tuple(map(add, total, v))
        got = ends.get(e)
        ends[e] = v if got is None else tuple(map(add, got, v))
    T, U = [NEVER], [total]
    cur = total
    for t in sorted(ends):
        cur = tuple(map(sub, cur, ends[t]))
        if cur != U[-1]:
            T.append(t)
            U.append(cur)
    return T, U
