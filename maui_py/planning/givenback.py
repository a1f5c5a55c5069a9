"""What the node table gave back since an epoch: the log of released holds (issue 33).

A planner's `freed` (planning/api.py) moves whenever something held is given back. The log
names, for each such step it can describe, where and when room came free: (freed after
the step, node mask, start, end) of the hold released. A step it cannot describe (a
forced hold, a load, a release that moved credits) is simply not logged, and a question
about an epoch before it is answered None (unknown). A kept reservation that was at its
earliest start at some epoch can only move earlier where room came free since, on its
eligible nodes and within its reach in time (policy/kept.py); without the log every
release would make every one of them be re-made. Cost: O(1) per release, O(steps since)
per question; at most LOG entries.
"""

from __future__ import annotations

from bisect import bisect_right

from .api import Compiled
from .bitset import members
from .steps import fit_on, vsub

LOG = 1024
"""Entries kept; the older half goes when there are more."""

Step = tuple[int, int, int, int]
"""(freed after the step, node mask, start, end)."""


def note(log: list[Step], freed: int, mask: int, start: int, end: int) -> None:
    """Record that the step to `freed` gave back `mask` over [start, end). O(1) amortised."""
    log.append((freed, mask, start, end))
    if len(log) > LOG:
        del log[:LOG // 2]


def since(log: list[Step], freed: int, stamp: int) -> list[tuple[int, int, int]] | None:
    """(mask, start, end) of every step from `stamp` to `freed` (the planner's now), or
    None when one of them is not in the log. Entries increase strictly, so the last k
    entries are exactly the steps stamp + 1 .. freed when the first of them is stamp + 1.
    O(steps since)."""
    k = freed - stamp
    if k <= 0:
        return []
    if k > len(log) or log[-k][0] != stamp + 1:
        return None
    return [(m, s, e) for _f, m, s, e in log[-k:]]


def check(log: list[Step], freed: int) -> None:
    """Assert the entries increase strictly, none after `freed`."""
    assert all(a[0] < b[0] for a, b in zip(log, log[1:])), "given-back log out of order"
    assert not log or log[-1][0] <= freed, "given-back log ahead of freed"


class GivenBack:
    """The node table's side of the log (a part of ReservationTable, planning/table.py,
    which owns `released`, `freed`, the step functions and capacities)."""

    def given_back(self, stamp: int) -> list[tuple[int, int, int]] | None:
        """(node mask, start, end) of each hold released since `freed` was `stamp`, None
        when a step is not known. O(steps since)."""
        return since(self.released, self.freed, stamp)

    def over_in(self, own: str) -> bool:
        """Is a node `own` holds over its capacity at some instant of the hold? Then its
        place does not fit with the others held (a forced hold came on it since: a running
        job's hold grown past its limit), and a re-make, which keeps a place whose start
        did not change, may still move it later. Only nodes ever over capacity
        (`overcommitted`) are looked at. O(1), or O(its nodes x segments) when it has one."""
        over, h = self.overcommitted, self.holds.get(own)
        if not over or h is None:
            return False
        s = max(h.start, self.origin)
        return any(i in over and any(x > c for x, c in zip(self._used(i, s, h.end), self.cap[i]))
                   for i, _v in h.alloc)

    def room_in(self, cr: Compiled, regions: list[tuple[int, int, int]], until: int,
                own: str) -> bool:
        """Could `cr` hold a task on an eligible node of `regions` at some instant of that
        node's region before `until` (the holds of `own` ignored)? A window gains room
        on a node only where it meets a region there, and a window holds no more tasks on
        a node than the node holds at any instant of it: where the answer is no, no
        window starting before `until` - w + 1 gained a task anywhere. Where a segment of
        a node's step function meets `own`'s interval, `own`'s part is taken off there (the
        segment's usage, constant, includes it); elsewhere the usage is as it is.
        O(segments of the nodes' step functions in their regions)."""
        h = self.holds.get(own)
        mine = h.vec if h is not None else {}
        s0, e0 = (h.start, h.end) if h is not None else (0, 0)
        d, excl, zero = cr.d, cr.exclusive, self.zero
        for mask, a, b in regions:
            x, y = max(a, self.origin), min(b, until)
            if x >= y:
                continue
            for i in members(mask & cr.eligible):
                T, U, cap = self._T[i], self._U[i], self.cap[i]
                v = mine.get(i)
                last = len(T) - 1
                for k in range(bisect_right(T, x) - 1, last + 1):
                    lo, hi = max(T[k], x), y if k == last else min(T[k + 1], y)
                    if lo >= hi:
                        break
                    inside = v is not None and lo < e0 and hi > s0
                    if inside and fit_on(d, excl, cap, vsub(U[k], v), zero):
                        return True
                    if not (inside and s0 <= lo and hi <= e0) and fit_on(d, excl, cap, U[k],
                                                                        zero):
                        return True
        return False
