"""The change-point index of the reservation table.

Parallel plain lists (times ascending; per point the node sets chg, idle, full) so that a
scan indexes them at C speed; inserting or deleting a point is one bisect plus a memmove.

For "which nodes change before time x" (the question every start-now check asks) a coarse
index keeps the OR of each bucket of points between fences (time values) and prefix ORs over
buckets. A point update dirties only its bucket and the bucket prefixes after it, so
or_before() costs O(B + P/B) after an update and O(B) otherwise, with B ~ sqrt(P).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right


class PointIndex:
    __slots__ = ("times", "chg", "idle", "full", "_fences", "_bucket", "_prefix", "_dirty_from",
                 "_size_at_build")

    def __init__(self) -> None:
        self.times: list[int] = []
        self.chg: list[int] = []
        self.idle: list[int] = []
        self.full: list[int] = []
        self._fences: list[int] = []          # bucket b holds times in [fences[b-1], fences[b])
        self._bucket: list[tuple[int, int] | None] = [None]
        self._prefix: list[tuple[int, int]] = []
        self._dirty_from = 0
        self._size_at_build = 0

    def __len__(self) -> int:
        return len(self.times)

    def find(self, t: int) -> int:
        """Index of point t, or -1. O(log P)."""
        k = bisect_left(self.times, t)
        return k if k < len(self.times) and self.times[k] == t else -1

    def put(self, t: int, chg: int, idle: int, full: int) -> None:
        """Set (or with chg == 0, remove) the point at time t. O(log P + P) memmove."""
        times = self.times
        k = bisect_left(times, t)
        present = k < len(times) and times[k] == t
        if chg:
            if present:
                self.chg[k], self.idle[k], self.full[k] = chg, idle, full
            else:
                times.insert(k, t)
                self.chg.insert(k, chg)
                self.idle.insert(k, idle)
                self.full.insert(k, full)
        elif present:
            del times[k], self.chg[k], self.idle[k], self.full[k]
        else:
            return
        b = bisect_right(self._fences, t)
        self._bucket[b] = None
        if b < self._dirty_from:
            self._dirty_from = b

    def pop_through(self, t: int) -> list[tuple[int, int, int]]:
        """Remove every point at or before t; returns their (chg, idle, full) in time order.
        O(k + P) for k removed points."""
        k = bisect_right(self.times, t)
        removed = list(zip(self.chg[:k], self.idle[:k], self.full[:k]))
        del self.times[:k], self.chg[:k], self.idle[:k], self.full[:k]
        self._fences = []
        self._bucket = [None]
        self._prefix = []
        self._dirty_from = 0
        return removed

    def _rebuild(self) -> None:
        n = len(self.times)
        step = max(16, int(n ** 0.5))
        self._fences = [self.times[k] for k in range(step, n, step)]
        self._bucket = [None] * (len(self._fences) + 1)
        self._prefix = []
        self._dirty_from = 0
        self._size_at_build = n

    def _bucket_or(self, b: int) -> tuple[int, int]:
        got = self._bucket[b]
        if got is None:
            lo = bisect_left(self.times, self._fences[b - 1]) if b > 0 else 0
            hi = bisect_left(self.times, self._fences[b]) if b < len(self._fences) else len(self.times)
            a = f = 0
            chg, full = self.chg, self.full
            for k in range(lo, hi):
                a |= chg[k]
                f |= full[k]
            got = self._bucket[b] = (a, f)
        return got

    def or_before(self, x: int) -> tuple[int, int]:
        """OR of (chg, full) over all points with time < x. O(B + P/B) amortised."""
        n = len(self.times)
        if not n or x <= self.times[0]:
            return 0, 0
        if n > 2 * self._size_at_build + 64 or 4 * n + 64 < self._size_at_build:
            self._rebuild()
        b = bisect_right(self._fences, x - 1)
        pre = self._prefix
        if self._dirty_from < len(pre):
            del pre[self._dirty_from:]
        self._dirty_from = len(self._bucket)
        while len(pre) < b:
            a, f = pre[-1] if pre else (0, 0)
            ba, bf = self._bucket_or(len(pre))
            pre.append((a | ba, f | bf))
        a, f = pre[b - 1] if b > 0 else (0, 0)
        lo = bisect_left(self.times, self._fences[b - 1]) if b > 0 else 0
        hi = bisect_left(self.times, x)
        chg, full = self.chg, self.full
        for k in range(lo, hi):
            a |= chg[k]
            f |= full[k]
        return a, f
