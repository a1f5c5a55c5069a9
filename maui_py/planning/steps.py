"""Resource vectors and per-node step functions, as plain functions: what the node table
(planning/table.py and its parts) computes a node's usage and categories with.

A step function is (T, U): breakpoints T (T[0] = NEVER) and usage vectors U, U[k] held over
[T[k], T[k+1]). A node's category is 0 (idle), 1 (partly used) or 2 (processors all taken)."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from operator import add, sub
from typing import Sequence

from ..model import Node


@dataclass(slots=True)
class TableHold:
    """Resources held by one owner over [start, end): alloc is (node index, vector)."""

    owner: str
    kind: str
    start: int
    end: int
    alloc: tuple[tuple[int, tuple[int, ...]], ...]
    mask: int
    vec: dict[int, tuple[int, ...]]
    credits: tuple[str, ...] = ()
    """Credit holds made for this hold because it sits inside reservations (see reserve)."""
    inside: tuple[str, ...] = ()
    """A member: the reservations it overlaps and may use (its credits are re-worked from
    them when one of those changes). A credit hold: the reservation it is taken against."""


def vadd(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(map(add, a, b))


def vsub(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(map(sub, a, b))


def tasks_in(d: tuple[int, ...], free: tuple[int, ...]) -> int:
    """How many copies of d fit in free (0 when anything is short)."""
    best = 1 << 40
    for need, have in zip(d, free):
        if need > 0:
            q = have // need
            if q < best:
                best = q
    return best if best > 0 else 0


def tasks_left(d: tuple[int, ...], cap: tuple[int, ...], used: tuple[int, ...]) -> int:
    """tasks_in(d, vsub(cap, used)) without building the free vector: the scan asks it of
    every partly used node at every start it evaluates."""
    best = 1 << 40
    for need, c, u in zip(d, cap, used):
        if need > 0:
            q = (c - u) // need
            if q < best:
                best = q
    return best if best > 0 else 0


def usage_falls(before: tuple[int, ...], after: tuple[int, ...]) -> bool:
    """Does usage fall from `before` to `after` in some dimension? Where no node's does, no
    node has more room over a window starting there than over one starting at the point
    before: no start can fit there that did not fit there (ReservationTable.scan)."""
    for a, b in zip(before, after):
        if b < a:
            return True
    return False


def gres_full(u: tuple[int, ...], cap: tuple[int, ...], gd: tuple[int, ...]) -> bool:
    """Is some generic resource of a node (positions gd, one it has) all taken at usage
    u? A task that needs every gres then cannot fit there. O(len(gd))."""
    for g in gd:
        c = cap[g]
        if 0 < c <= u[g]:
            return True
    return False


def gres_marks(cap: tuple[int, ...], gd: tuple[int, ...], T: list[int],
                U: list[tuple[int, ...]], lo: int, hi: int) -> dict[int, bool]:
    """{t: all taken after t} for the breakpoints t in [lo, hi] of a step function where
    gres_full changes. O(breakpoints in range)."""
    out: dict[int, bool] = {}
    k = bisect_left(T, lo) or 1
    n = len(T)
    if k >= n or T[k] > hi:
        return out
    prev = gres_full(U[k - 1], cap, gd)
    while k < n and T[k] <= hi:
        cur = gres_full(U[k], cap, gd)
        if cur is not prev:
            out[T[k]] = cur
            prev = cur
        k += 1
    return out


def category_moves(cap: tuple[int, ...], zero: tuple[int, ...], oldT: list[int],
               oldU: list[tuple[int, ...]], T: list[int], U: list[tuple[int, ...]], lo: int,
               hi: int) -> list[tuple[int, int]]:
    """(t, category after) for every change point t in [lo, hi] of either step function
    whose category (0 idle, 1 partly used, 2 processors all taken; plus 3 where usage falls
    in some dimension: usage_falls) differs from old to new; -1 where t is a change point no
    more. One merged walk over both, in time order (a splice moves a point or two per
    node: building both sides' categories cost more than the walk). O(breakpoints in
    range)."""
    out = []
    i = bisect_left(oldT, lo) or 1
    j = bisect_left(T, lo) or 1
    no, nn = len(oldT), len(T)
    c0 = cap[0]
    while True:
        a = oldT[i] if i < no and oldT[i] <= hi else None
        b = T[j] if j < nn and T[j] <= hi else None
        if b is None or (a is not None and a < b):
            if a is None:
                return out
            out.append((a, -1))
            i += 1
            continue
        c = point_category(U[j - 1], U[j], zero, c0)
        j += 1
        if a is None or b < a:
            out.append((b, c))
            continue
        i += 1
        if c != point_category(oldU[i - 2], oldU[i - 1], zero, c0):
            out.append((b, c))


def point_category(before: tuple[int, ...], u: tuple[int, ...], zero: tuple[int, ...], c0: int
              ) -> int:
    """A change point's category for the change-point index: 0 idle, 1 partly used, 2
    processors all taken (c0 of them), plus 3 where usage falls in some dimension (usage_falls).
    O(dims)."""
    return (0 if u == zero else (2 if u[0] >= c0 else 1)) + (3 if usage_falls(before, u) else 0)


def ever_full(cap: tuple[int, ...], U: list[tuple[int, ...]], zero: tuple[int, ...]) -> bool:
    """Are a node's processors all taken after some change point of step function U (the
    index's `full`, ReservationTable.fills)? O(h)."""
    if len(U) < 2:
        return False
    if cap[0] > 0:      # the largest step in tuple order has the largest processor count
        return max(U[1:])[0] >= cap[0]
    return any(u != zero for u in U[1:])


def fit_on(d: tuple[int, ...], exclusive: bool, cap: tuple[int, ...], used: tuple[int, ...],
            zero: tuple[int, ...]) -> int:
    """Tasks of per-task vector d a node of capacity `cap` holds when it uses at most `used`
    over the window, as ReservationTable._fit counts them."""
    if exclusive:
        return tasks_in(d, cap) if used == zero else 0
    return tasks_left(d, cap, used) if any(d) else (1 << 30)


def index_nodes(nodes: Sequence[Node]) -> dict[str, int]:
    """Node name -> position; ValueError when a name repeats. O(N)."""
    index = {n.name: i for i, n in enumerate(nodes)}
    if len(index) != len(nodes):
        raise ValueError("duplicate node names")
    return index
