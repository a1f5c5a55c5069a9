"""The change-point index of the reservation table.

Parallel plain lists (times ascending; per point the node sets chg, idle, full, frees) so
that a scan indexes them at C speed; inserting or deleting a point is one bisect plus a
memmove.

For "which nodes change before time x" (the question every start-now check asks) a coarse
index keeps the OR of each bucket of points between fences (time values) and prefix ORs over
buckets. A point update dirties only its bucket and the bucket prefixes after it, so
or_before() costs O(B + P/B) after an update and O(B) otherwise, with B ~ sqrt(P). The same
buckets answer or_range() over any run of points, which lets SlidingOr keep the OR over a
window of points moving forward without combining every point of the window.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from functools import reduce
from itertools import accumulate
from operator import or_

PREFIX_WALK = True
"""sets_before answers from PointIndex._walk, the composed effect of the first points kept
for reuse (False: the bucket walk every time, the definition
tests/property/test_points_walk.py compares against). A deep priority pass asks it of
every reservation's scan, which starts at the floor (Scanning._floor) a few points past
the origin, where the last reservation's own hold dirtied the bucket walk's first bucket:
the walk kept up to there answers after one or two more points. Exact: applying points
(c, ia, fa) in turn to (idle, full) is one map x -> (x less C) | I with C the OR of their
c and I what they leave set (composed point by point, in order, as sets_before applies
them), whatever the sets given."""
WALK_MAX = 1024
"""Points the kept walk covers at most (three node sets each)."""
WALK_STEP = 64
"""A question this many points past the kept walk extends it; one further is answered
by the bucket walk (a question far past the walk would make it walk every point)."""


class PointIndex:
    __slots__ = ("times", "chg", "idle", "full", "frees", "_fences", "_bucket", "_prefix",
                 "_dirty_from", "_size_at_build", "_sets", "_walk")

    def __init__(self) -> None:
        self.times: list[int] = []
        self.chg: list[int] = []
        self.idle: list[int] = []
        self.full: list[int] = []
        self.frees: list[int] = []
        """Per point, the nodes of chg whose usage falls there in some dimension: a start
        can only fit where some node frees something (see ReservationTable.scan)."""
        self._fences: list[int] = []          # bucket b holds times in [fences[b-1], fences[b])
        self._bucket: list[tuple[int, int] | None] = [None]
        self._sets: list[tuple[int, int] | None] = [None]
        """Per bucket, the idle and full nodes its points set (see sets_before)."""
        self._prefix: list[tuple[int, int]] = []
        self._dirty_from = 0
        self._size_at_build = 0
        self._walk: list[tuple[int, int, int]] = [(0, 0, 0)]
        """Entry m: (C, I, F), what points 0..m-1 applied in turn do to sets (idle, full):
        idle becomes (idle less C) | I, full (full less C) | F (see PREFIX_WALK). Kept
        while those points stand: a change at point k drops the entries after k."""

    def __len__(self) -> int:
        return len(self.times)

    def find(self, t: int) -> int:
        """Index of point t, or -1. O(log P)."""
        k = bisect_left(self.times, t)
        return k if k < len(self.times) and self.times[k] == t else -1

    def put(self, t: int, chg: int, idle: int, full: int, frees: int = 0) -> None:
        """Set (or with chg == 0, remove) the point at time t. O(log P + P) memmove.
        A point that only gains nodes (in chg and in full), as holds added mostly make,
        is ORed into its bucket's cached OR, which stays exact; any other change drops it."""
        times = self.times
        k = bisect_left(times, t)
        present = k < len(times) and times[k] == t
        grew = False
        if chg:
            if present:
                a, f = self.chg[k], self.full[k]
                grew = a & chg == a and f & full == f
                self.chg[k], self.idle[k], self.full[k], self.frees[k] = chg, idle, full, frees
            else:
                grew = True
                times.insert(k, t)
                self.chg.insert(k, chg)
                self.idle.insert(k, idle)
                self.full.insert(k, full)
                self.frees.insert(k, frees)
        elif present:
            del times[k], self.chg[k], self.idle[k], self.full[k], self.frees[k]
        else:
            return
        if len(self._walk) > k + 1:
            del self._walk[k + 1:]          # entries over point k and after it go
        b = bisect_right(self._fences, t)
        got = self._bucket[b]
        self._bucket[b] = (got[0] | chg, got[1] | full) if grew and got is not None else None
        self._sets[b] = None
        if b < self._dirty_from:
            self._dirty_from = b

    def check(self) -> None:
        """Assert that every cached bucket OR is the OR of its points (put updates them in
        place) and every cached bucket set pair what its points leave (sets_before), one
        cache slot per bucket, fences ascending. O(P)."""
        fences = self._fences
        assert len(self._bucket) == len(self._sets) == len(fences) + 1, "bucket slots"
        assert all(a < b for a, b in zip(fences, fences[1:])), "fences out of order"
        for b, got in enumerate(self._bucket):
            if got is not None:
                assert got == self._or_span(*self._span(b)), f"stale bucket {b}"
        for b, got in enumerate(self._sets):
            if got is not None:
                kept, self._sets[b] = got, None
                assert self._bucket_sets(b) == kept, f"stale bucket sets {b}"
        walk = self._walk
        assert walk[0] == (0, 0, 0) and len(walk) <= len(self.times) + 1, "walk longer than the points"
        assert len(walk) <= WALK_MAX + 1, "walk past WALK_MAX"
        c = ia = fa = 0
        for m in range(1, len(walk)):
            k = m - 1
            ch = self.chg[k]
            c |= ch
            ia = (ia ^ (ia & ch)) | self.idle[k]
            fa = (fa ^ (fa & ch)) | self.full[k]
            assert walk[m] == (c, ia, fa), f"stale walk entry {m}"

    def pop_through(self, t: int) -> list[tuple[int, int, int]]:
        """Remove every point at or before t; returns their (chg, idle, full) in time order.
        The buckets wholly after t keep their fences and cached ORs and sets (the table's
        origin moves every cycle; rebuilding dropped every cached OR, which the next scan's
        window then recomputed point by point); the fences are made afresh when the points
        after the last fence outnumber two buckets' worth or the count drifts (_stale).
        O(k + P) memmove for k removed points, O(B) list work."""
        times = self.times
        k = bisect_right(times, t)
        if not k:
            return []
        removed = list(zip(self.chg[:k], self.idle[:k], self.full[:k]))
        self._walk = [(0, 0, 0)]            # every point moved down
        del times[:k], self.chg[:k], self.idle[:k], self.full[:k], self.frees[:k]
        b = bisect_right(self._fences, t)       # buckets 0..b-1 are gone, b lost its head
        fences = self._fences = self._fences[b:]
        self._bucket = [None] + self._bucket[b + 1:]
        self._sets = [None] + self._sets[b + 1:]
        self._prefix = []
        self._dirty_from = 0
        n = len(times)
        if (not fences or self._stale(n)
                or n - bisect_left(times, fences[-1]) > 2 * max(16, int(n ** 0.5))):
            self._rebuild()   # fresh fences: without them or_before() would walk every point
        return removed

    def _stale(self, n: int) -> bool:
        """Has the point count drifted from the one the fences were made for (by 2 x)?"""
        return n > 2 * self._size_at_build + 64 or 4 * n + 64 < self._size_at_build

    def _rebuild(self) -> None:
        n = len(self.times)
        step = max(16, int(n ** 0.5))
        self._fences = [self.times[k] for k in range(step, n, step)]
        self._bucket = [None] * (len(self._fences) + 1)
        self._sets = [None] * (len(self._fences) + 1)
        self._prefix = []
        self._dirty_from = 0
        self._size_at_build = n

    def _bucket_or(self, b: int) -> tuple[int, int]:
        got = self._bucket[b]
        if got is None:
            lo = bisect_left(self.times, self._fences[b - 1]) if b > 0 else 0
            hi = bisect_left(self.times, self._fences[b]) if b < len(self._fences) else len(self.times)
            got = self._bucket[b] = self._or_span(lo, hi)
        return got

    def _or_span(self, lo: int, hi: int) -> tuple[int, int]:
        """OR of (chg, full) over points lo..hi-1, one by one (in C). O(hi - lo)."""
        if hi <= lo:
            return 0, 0
        return reduce(or_, self.chg[lo:hi], 0), reduce(or_, self.full[lo:hi], 0)

    def _span(self, b: int) -> tuple[int, int]:
        """Bucket b's points, lo..hi-1 (indices). O(log P)."""
        lo = bisect_left(self.times, self._fences[b - 1]) if b > 0 else 0
        hi = bisect_left(self.times, self._fences[b]) if b < len(self._fences) else len(self.times)
        return lo, hi

    def _bucket_sets(self, b: int) -> tuple[int, int]:
        """The idle and full nodes bucket b's points leave set among those they change:
        applying them one by one to (idle, full) equals clearing the bucket's chg OR and
        setting these. O(points in the bucket) the first time after a change, O(1) after."""
        got = self._sets[b]
        if got is None:
            idle = full = 0
            lo, hi = self._span(b)
            for chg, ia, fa in zip(self.chg[lo:hi], self.idle[lo:hi], self.full[lo:hi]):
                idle = (idle ^ (idle & chg)) | ia
                full = (full ^ (full & chg)) | fa
            got = self._sets[b] = (idle, full)
        return got

    def sets_before(self, i: int, idle: int, full: int) -> tuple[int, int]:
        """(idle, full) after the points 0..i-1 change them in turn (each clears its chg and
        sets its idle and full nodes): whole buckets at once, then the points of the last
        one. O(B + P/B) amortised big-int operations instead of O(i); O(1) from the kept
        walk (PREFIX_WALK), plus O(points it is extended by)."""
        walk = self._walk
        if PREFIX_WALK and i < len(walk) + WALK_STEP and i <= WALK_MAX:
            if i >= len(walk):
                self._extend_walk(i)
            c, ia, fa = walk[i]
            return (idle ^ (idle & c)) | ia, (full ^ (full & c)) | fa
        if self._stale(len(self.times)):
            self._rebuild()
        k = 0
        if i > 32:
            b_end = bisect_right(self._fences, self.times[i - 1])   # bucket of point i-1
            for b in range(b_end):
                chg = self._bucket_or(b)[0]
                ia, fa = self._bucket_sets(b)
                idle = (idle ^ (idle & chg)) | ia
                full = (full ^ (full & chg)) | fa
            k = self._span(b_end)[0] if b_end else 0
        chgs, idles, fulls = self.chg, self.idle, self.full
        for k in range(k, i):
            chg = chgs[k]
            idle = (idle ^ (idle & chg)) | idles[k]
            full = (full ^ (full & chg)) | fulls[k]
        return idle, full

    def _extend_walk(self, i: int) -> None:
        """The kept walk extended to cover points 0..i-1 (i <= len(points)): each point
        composed after those before it. O(points added) big-int operations."""
        walk = self._walk
        c, ia, fa = walk[-1]
        chgs, idles, fulls = self.chg, self.idle, self.full
        for k in range(len(walk) - 1, i):
            ch = chgs[k]
            c |= ch
            ia = (ia ^ (ia & ch)) | idles[k]
            fa = (fa ^ (fa & ch)) | fulls[k]
            walk.append((c, ia, fa))

    def or_range(self, lo: int, hi: int) -> tuple[int, int]:
        """OR of (chg, full) over points lo..hi-1 (indices): the cached ORs of the buckets
        wholly inside, the points of the two partial ones. O(B + P/B) amortised."""
        if hi - lo <= 32:
            return self._or_span(lo, hi)
        if self._stale(len(self.times)):
            self._rebuild()
        times, fences = self.times, self._fences
        b_lo = bisect_right(fences, times[lo])
        b_hi = bisect_right(fences, times[hi - 1])
        if b_lo == b_hi:
            return self._or_span(lo, hi)
        a, f = self._or_span(lo, bisect_left(times, fences[b_lo]))
        for b in range(b_lo + 1, b_hi):
            ba, bf = self._bucket_or(b)
            a |= ba
            f |= bf
        ta, tf = self._or_span(bisect_left(times, fences[b_hi - 1]), hi)
        return a | ta, f | tf

    def or_before(self, x: int) -> tuple[int, int]:
        """OR of (chg, full) over all points with time < x. O(B + P/B) amortised."""
        n = len(self.times)
        if not n or x <= self.times[0]:
            return 0, 0
        if self._stale(n):
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
        ta, tf = self._or_span(lo, bisect_left(self.times, x))
        return a | ta, f | tf


class SlidingOr:
    """OR of (chg, full) over a window [lo, hi) of a PointIndex's points, both ends moving
    forward only (the scan's window [t, t + w) as t moves on).

    The window is a front run [lo, cut), kept as suffix ORs that already include the OR
    of [cut, hi) as it was at the last refill, plus a running OR of the points added since.
    Dropping a point pops a suffix; when the front runs out, the next run is made, twice
    as long as the last, its remainder ORed from the index's buckets. A scan that moves
    s times over a window of W points so costs O(s + log s x (B + P/B)) ORs instead of
    O(W + s) for a queue of every point of the window. The index must not change while
    the window is in use."""

    __slots__ = ("_pts", "lo", "hi", "_front_a", "_front_b", "_back_a", "_back_b", "_chunk")

    def __init__(self, pts: PointIndex, lo: int, hi: int) -> None:
        self._pts = pts
        self.lo, self.hi = lo, max(hi, lo)
        self._chunk = 8
        self._back_a = self._back_b = 0
        self._refill()

    def _refill(self) -> None:
        """The next front run from lo, and the OR of the rest of the window behind it."""
        lo, hi = self.lo, self.hi
        cut = min(lo + self._chunk, hi)
        self._chunk = min(2 * self._chunk, 4096)
        pts = self._pts
        ma, mb = pts.or_range(cut, hi)
        self._front_a = list(accumulate(pts.chg[lo:cut][::-1], or_, initial=ma))[1:]
        self._front_b = list(accumulate(pts.full[lo:cut][::-1], or_, initial=mb))[1:]
        self._back_a = self._back_b = 0

    def move(self, lo: int, hi: int) -> tuple[int, int]:
        """Move the window to [lo, hi) (lo <= hi, neither behind its present value);
        returns its (chg, full) OR. O(1) amortised per point passed, plus refills."""
        pts = self._pts
        if lo >= self.hi:
            self.lo, self.hi = lo, hi
            self._back_a = self._back_b = 0
            self._refill()
        else:
            for k in range(self.hi, hi):
                self._back_a |= pts.chg[k]
                self._back_b |= pts.full[k]
            self.hi = hi
            drop = lo - self.lo
            while drop:
                fa, fb = self._front_a, self._front_b
                take = min(drop, len(fa))
                del fa[len(fa) - take:], fb[len(fb) - take:]
                self.lo += take
                drop -= take
                if not fa:
                    self._refill()
        return self.total()

    def total(self) -> tuple[int, int]:
        """The OR over the window. O(1) big-int operations."""
        if self._front_a:
            return self._front_a[-1] | self._back_a, self._front_b[-1] | self._back_b
        return self._back_a, self._back_b
