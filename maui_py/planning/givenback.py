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
