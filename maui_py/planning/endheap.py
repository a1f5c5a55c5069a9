"""Holds' end times as a heap with lazy deletion, kept the same way by both tables
(table.ReservationTable, counts.CountTable): one push per hold registered and nothing on
release; an entry (end, owner) whose owner no longer holds that end is stale, skipped when
it surfaces and dropped when stale entries outnumber the holds."""

from __future__ import annotations

from heapq import heapify
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
