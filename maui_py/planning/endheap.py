"""Holds' end times as a heap with lazy deletion, kept the same way by both tables
(table.ReservationTable, counts.CountTable): one push per hold registered and nothing on
release; an entry (end, owner) whose owner no longer holds that end is stale, skipped when
it surfaces and dropped when stale entries outnumber the holds."""

from __future__ import annotations

from heapq import heapify, heappop
from typing import Mapping

SLACK = 64
"""Stale entries allowed beyond the holds' count before a rebuild (compacted)."""


def live(holds: Mapping, entry: tuple[int, str]) -> bool:
    """Does `entry` still stand for a hold of `holds` (owner -> hold with .end)? O(1)."""
    h = holds.get(entry[1])
    return h is not None and h.end == entry[0]


def compacted(ends: list[tuple[int, str]], holds: Mapping) -> list[tuple[int, str]]:
    """`ends` as it is, or rebuilt from the live holds once it holds more than twice their
    number (plus SLACK). O(1), or O(H) when rebuilt: amortised O(1) per release."""
    if len(ends) <= 2 * len(holds) + SLACK:
        return ends
    out = [(h.end, o) for o, h in holds.items()]
    heapify(out)
    return out


def check(ends: list[tuple[int, str]], holds: Mapping) -> None:
    """Assert that `ends` is a heap and that its live entries are exactly the holds'. O(H)."""
    assert all(ends[(i - 1) // 2] <= ends[i] for i in range(1, len(ends))), "end heap out of order"
    assert {x for x in ends if live(holds, x)} == {(h.end, o) for o, h in holds.items()}, (
        "end heap out of step with the holds")


def ending_by(ends: list[tuple[int, str]], holds: Mapping, now: int) -> list[str]:
    """Owners whose holds end at or before `now`, by end then owner: the heap is walked
    only below entries that end by then. O(k log k), k such entries (stale included)."""
    found, stack = set(), [0] if ends else []
    size = len(ends)
    while stack:
        i = stack.pop()
        x = ends[i]
        if x[0] <= now:
            if live(holds, x):
                found.add(x)
            if 2 * i + 1 < size:
                stack.append(2 * i + 1)
                if 2 * i + 2 < size:
                    stack.append(2 * i + 2)
    return [o for _e, o in sorted(found)]


class EndCursor:
    """The owners whose holds end by a `now` that only grows, found by popping a copy of
    the end heap: over a run of questions each entry is looked at once (O(log H) each),
    where ending_by walks every entry by `now` again each time. Valid while the holds are
    as they were when it was made: the planner's `version` (moved by every hold made,
    released or advanced past) the same. Made O(H) (a list copy in C)."""

    __slots__ = ("heap", "holds", "version", "upto", "last")

    def __init__(self, ends: list[tuple[int, str]], holds: Mapping, version: int):
        self.heap, self.holds, self.version = ends.copy(), holds, version
        self.upto = -1
        self.last: tuple[int, str] | None = None

    def advance(self, now: int) -> list[str]:
        """The owners whose holds end after the last `now` asked and at or before this
        one, by end then owner: with those of every earlier call, exactly ending_by(now).
        `now` below the last one asked: ValueError. O(k log H), k entries popped."""
        if now < self.upto:
            raise ValueError(f"EndCursor: {now} before {self.upto}")
        self.upto = now
        heap, holds, out = self.heap, self.holds, []
        while heap and heap[0][0] <= now:
            x = heappop(heap)
            if x != self.last and live(holds, x):
                out.append(x[1])
                self.last = x
        return out


class EndQuestions:
    """What both planners answer from their end heap (`_ends`, `holds`, `version`)."""

    _ends: list[tuple[int, str]]
    holds: Mapping
    version: int

    def ending_by(self, now: int) -> list[str]:
        """Owners whose holds end at or before `now`, by end then owner. O(k log k)."""
        return ending_by(self._ends, self.holds, now)

    def end_cursor(self, last: EndCursor | None = None) -> EndCursor:
        """`last` while no hold changed since it was made, else a new cursor over the holds'
        ends (ending_by for a growing `now`). O(1), O(H) for a new one."""
        ok = last is not None and last.version == self.version
        return last if ok else EndCursor(self._ends, self.holds, self.version)
