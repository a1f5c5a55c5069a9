"""Which of a FIRSTFIT pass's candidates are worth asking (issue 33: the deep-queue stretch).

Within one backfill pass that releases nothing, what is free only shrinks (planning/memo),
so a compiled request that failed to start now for w seconds fails again for w or longer:
first fit passes over such a candidate without asking the planner (policy/backfill,
`dead`, switch DEAD). On a deep queue most candidates are passed over so, each still visited in
Python. `Askable` hands out only the candidates that memo would let through: the pass's
candidates grouped by compiled request (its `id`, as the memo keys them), each group's
members in order with their spans, a heap of each group's next member to ask, and per
group the shortest span that failed (`fw`); after a failure the group's next member is
the next one whose span is below it, found by a scan in C.

**Invariant.** The heap holds, for every group that has one, exactly its first member
after the last one handed out whose span is below the group's `fw` (no failure yet: any
member), and nothing else; members are handed out in increasing position, so the
candidates asked and the order they are asked in are those of the candidate-by-candidate
walk with the memo, as long as the memo's epoch stays: `reset` (after a start that gave
something back) forgets every failure, as the memo does when its epoch moves. O(n) to
build for n candidates (one dict step each), then O(log groups) per candidate handed out
plus a scan in C over the members passed over.
"""

from __future__ import annotations

from bisect import bisect_right
from heapq import heapify, heappop, heappush
from itertools import compress, count, islice
from typing import Hashable, Iterable

_NONE = None
"""`fw` of a group none of whose members failed: every member is asked."""


class Askable:
    """The candidates (positions 0..n-1) of one first-fit pass to hand out, in order,
    leaving out those a failure of their group's request for a span no longer answers."""

    __slots__ = ("keys", "members", "spans", "fw", "at", "heap", "last", "before")

    def __init__(self, keys: Iterable[Hashable], spans: list[int],
                 before: dict[Hashable, int] | None = None) -> None:
        """keys: candidate i's group (the id of its compiled request) for i = 0, 1, ...;
        spans[i]: its span (what the memo compares); `before`: the shortest failed span
        per key of the candidates before these (the same pass and epoch: `failures()` of
        the Askable over them). O(n), one dict step per candidate."""
        by: dict[Hashable, list[int]] = {}
        for i, k in enumerate(keys):
            got = by.get(k)
            if got is None:
                by[k] = [i]
            else:
                got.append(i)
        self.keys: list[Hashable] = list(by)
        self.members: list[list[int]] = list(by.values())
        self.spans = spans
        self.before = before if before is not None else {}
        self.fw: list[int | None] = list(map(self.before.get, self.keys))
        self.at = [0] * len(self.members)       # index in members[g] of the heap's entry
        self.heap: list[tuple[int, int]] = []
        self.last: int | None = None             # the group of the member handed out last
        for g in range(len(self.members)):      # in order of first members: a heap
            self._push_next(g, 0)

    def failures(self) -> dict[Hashable, int]:
        """The shortest failed span per key, of these candidates and those before (what
        `before` is for the candidates after these). O(groups)."""
        out = dict(self.before)
        out.update((k, f) for k, f in zip(self.keys, self.fw) if f is not _NONE)
        return out

    def pop(self) -> int | None:
        """The next candidate to ask (the smallest position in the heap), or None when
        none is left. Each must be answered by `failed` or `passed` before the next pop.
        O(log groups)."""
        if not self.heap:
            return None
        i, g = heappop(self.heap)
        self.last = g
        return i

    def failed(self) -> None:
        """The candidate just handed out was asked and failed: its span is its group's
        shortest failure now (it was below the last one, else it was not handed out)."""
        g = self.last
        self.fw[g] = self.spans[self.members[g][self.at[g]]]
        self._push_next(g, self.at[g] + 1)

    def passed(self) -> None:
        """The candidate just handed out failed nothing (it started, or was passed over
        for another reason): its group goes on with its next member below `fw`."""
        g = self.last
        self._push_next(g, self.at[g] + 1)

    def drop(self) -> None:
        """The candidate just handed out is wider than what is free, and so, until the
        epoch moves, is every member of its group (one request): none is handed out
        until `reset`."""

    def reset(self, i: int) -> None:
        """Something was given back after candidate i (the memo's epoch moved): every
        failure is forgotten and every group goes on with its first member after i.
        O(groups log n)."""
        self.fw = [_NONE] * len(self.members)
        self.before = {}
        self.heap = []
        for g, m in enumerate(self.members):
            t = bisect_right(m, i)
            if t < len(m):
                self.at[g] = t
                self.heap.append((m[t], g))
        heapify(self.heap)

    def _push_next(self, g: int, t: int) -> None:
        """Push group g's first member from index t on whose span is below fw[g]."""
        m, f = self.members[g], self.fw[g]
        if t >= len(m):
            return
        if f is not _NONE and self.spans[m[t]] >= f:
            t = next(compress(count(t), map(f.__gt__, map(self.spans.__getitem__,
                                                           islice(m, t, None)))), len(m))
            if t >= len(m):
                return
        self.at[g] = t
        heappush(self.heap, (m[t], g))

    def _check(self) -> None:
        """At most one heap entry per group, its member at `at`, with a span below the
        group's `fw`; each group's members in order."""
        seen = set()
        for i, g in self.heap:
            assert g not in seen, g
            seen.add(g)
            assert self.members[g][self.at[g]] == i
            assert self.fw[g] is _NONE or self.spans[i] < self.fw[g]
        for m in self.members:
            assert m == sorted(m)
