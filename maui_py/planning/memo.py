"""The one memo of "what is free only shrinks until `freed` moves" (issue 33).

A planner's `freed` (planning/api.py) moves whenever something held is given back; in
between, holds are only added, so no node has more room anywhere than it had. A request
that failed to fit for n tasks over w seconds therefore fails again, until `freed` moves,
for any request of the same shape asking at least n tasks for at least w seconds. The
passes (core/cycle.fits_now, policy/priority_pass, policy/backfill) remember such failures
here instead of each re-deriving the rule: one ShrinkMemo per question asked, its entries
dropped as soon as the epoch it was filled at is not the planner's any more.
"""

from __future__ import annotations

from operator import ge
from typing import Hashable


def epoch(planner) -> int:
    """The planner's `freed` (planning/api.Planner): equal values mean nothing was given
    back in between, so what is free has only shrunk. The one place outside planning/
    reads it (tests/unit/test_import_rules.py). O(1)."""
    return planner.freed


class ShrinkMemo:
    """Failures (tasks, seconds) per request shape, valid while the epoch stays the same.

    Per shape only the failures no other one dominates are kept (a failure of n tasks
    for w seconds makes every one asking at least as much redundant), so a look-up costs
    O(kept failures of that shape), in practice one or two."""

    __slots__ = ("epoch", "failed")

    def __init__(self) -> None:
        self.epoch: Hashable = None
        self.failed: dict[Hashable, list[tuple[int, int]]] = {}

    def _at(self, epoch: Hashable) -> dict[Hashable, list[tuple[int, int]]]:
        """The failures recorded at `epoch`, emptied first when the epoch moved. O(1)."""
        if epoch != self.epoch:
            self.epoch = epoch
            self.failed = {}
        return self.failed

    def fails(self, epoch: Hashable, shape: Hashable, n: int, w: int) -> bool:
        """Is a request of `shape` for n tasks over w seconds known to fail at `epoch`?
        O(kept failures of that shape)."""
        if epoch != self.epoch:
            self.epoch = epoch
            self.failed = {}
            return False
        for fn, fw in self.failed.get(shape) or ():
            if n >= fn and w >= fw:
                return True
        return False

    def note(self, epoch: Hashable, shape: Hashable, n: int, w: int) -> None:
        """Remember that `shape` failed for n tasks over w seconds at `epoch`: failures
        asking at least as much go (this one answers for them)."""
        failed = self._at(epoch)
        kept = [(fn, fw) for fn, fw in failed.get(shape) or () if not (fn >= n and fw >= w)]
        kept.append((n, w))
        failed[shape] = kept


class VectorShrinkMemo:
    """ShrinkMemo's rule with the per-task vector out of the shape: a failure of n tasks of
    per-task vector d for w seconds answers for every request of the same shape asking at
    least n tasks of a vector at least d (componentwise) for at least w seconds, because a
    node holds no more tasks of a larger vector (steps.fit_on; scan._floor reads the same
    rule). The cycle's start-now questions (core/cycle.fits_now) so share failures between
    jobs whose memory per task differs, as a site's one-core jobs mostly do.

    Per shape only failures no other dominates are kept, and at most KEEP of them (the
    oldest go: a memo that forgets answers less, never wrongly). O(KEEP x dims) a look-up."""

    KEEP = 8

    __slots__ = ("epoch", "failed")

    def __init__(self) -> None:
        self.epoch: Hashable = None
        self.failed: dict[Hashable, list[tuple[int, int, tuple[int, ...]]]] = {}

    def fails(self, epoch: Hashable, shape: Hashable, n: int, w: int,
              d: tuple[int, ...]) -> bool:
        """Is a request of `shape` for n tasks of vector d over w seconds known to fail at
        `epoch`? O(kept failures of that shape x dims)."""
        if epoch != self.epoch:
            self.epoch = epoch
            self.failed = {}
            return False
        for fn, fw, fd in self.failed.get(shape) or ():
            if n >= fn and w >= fw and (d == fd or all(map(ge, d, fd))):
                return True
        return False

    def note(self, epoch: Hashable, shape: Hashable, n: int, w: int,
             d: tuple[int, ...]) -> None:
        """Remember that `shape` failed for n tasks of d over w seconds at `epoch`: kept
        failures asking at least as much go (this one answers for them)."""
        if epoch != self.epoch:
            self.epoch = epoch
            self.failed = {}
        got = self.failed.get(shape)
        if got is None:
            self.failed[shape] = [(n, w, d)]
            return
        kept = [f for f in got if not (f[0] >= n and f[1] >= w and all(map(ge, f[2], d)))]
        kept.append((n, w, d))
        if len(kept) > self.KEEP:
            del kept[0]
        self.failed[shape] = kept
