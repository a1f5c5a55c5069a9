"""The count planner's re-plan (CountTable.replan): the priority reservations re-made in
order, each at its earliest start around the others and the holds before it, touching the
table only for those that move; and the bookkeeping that makes it cheap: the held profile
split into priority bounds and everything else (_track), and the log of instants from
which something came free (freed_until), which bounds how early a reservation can move."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from heapq import heappop, heappush
from itertools import accumulate
from operator import add
from typing import Sequence

from ..model import Resources
from . import endheap
from .api import FOREVER, NEVER, Compiled
from .owners import is_priority, priority as _priority

_FAILS = 8
_LOG = 4096
_PRIORITY_PREFIX = _priority("")
"""What is_priority looks for, tested inline where holds are tracked (a call per hold)."""


@dataclass(slots=True)
class CountHold:
    """Processors held over [start, end); `nodes` is (node index, processors) for holds
    that took concrete processors (those that started at or before the origin)."""

    owner: str
    kind: str
    start: int
    end: int
    procs: int
    nodes: tuple[tuple[int, int], ...]
    allocation: tuple[tuple[str, Resources], ...]


def add_step(counts: dict[int, int], t: int, d: int) -> None:
    """Add d at instant t of a {instant: count} map, dropping counts that reach 0. O(1)."""
    v = counts.get(t, 0) + d
    if v:
        counts[t] = v
    else:
        del counts[t]


def _first_run(seg: list[int], free: list[int], lo: int, hi: int, n: int, w: int
               ) -> int | None:
    """The first segment in [lo, hi) from whose start n processors stay free for w
    seconds (the last segment lasts for ever), or None. A run that starts before lo and is
    cut short is cut short from lo too. O(segments passed)."""
    end = len(seg)
    k = lo
    while k < hi:
        if free[k] < n:
            k += 1
            continue
        t = seg[k] + w
        j = k + 1
        while j < end and free[j] >= n and seg[j] < t:
            j += 1
        if j == end or seg[j] >= t:
            return k
        k = j + 1
    return None


def _settle(pending: list[tuple[int, int, int]], seg: list[int], free: list[int],
            until: int) -> None:
    """Subtract from `free` (per segment of `seg`) the holds of the heap `pending` (start,
    end, procs) that start before `until` (replan's, all of each: settling
    a long hold a part at a time was twice as slow on HPC2N). One hold is
    subtracted over its segments; several at once through one difference array
    over the segments they span, summed and added in C."""
    ps, pe, pn = heappop(pending)
    if not pending or pending[0][0] >= until:
        pa = bisect_left(seg, ps)
        pb = bisect_left(seg, pe, pa)
        free[pa:pb] = [x - pn for x in free[pa:pb]]
        return
    pa = lo = bisect_left(seg, ps)
    marks = [(pa, pn, bisect_left(seg, pe, pa))]
    hi = marks[0][2]
    while pending and pending[0][0] < until:
        ps, pe, pn = heappop(pending)
        pa = bisect_left(seg, ps, lo)
        pb = bisect_left(seg, pe, pa)
        marks.append((pa, pn, pb))
        if pb > hi:
            hi = pb
    diff = [0] * (hi - lo + 1)
    for pa, pn, pb in marks:
        diff[pa - lo] -= pn
        diff[pb - lo] += pn
    free[lo:hi] = list(map(add, free[lo:hi], accumulate(diff)))


class Replanning:
    """The count planner's re-plan of its priority reservations and what it needs: the
    tracked split of held processors into priority bounds and the rest, and the log of
    what came free when (freed_until). A part of CountTable (planning/counts.py), which
    owns the state."""

    def _track(self, h: CountHold, sign: int) -> None:
        """A hold entered (1) or dropped (-1) in what replan starts from. O(1)."""
        if h.owner.startswith(_PRIORITY_PREFIX):
            self._n_priority += sign
            add_step(self._bounds, h.start, sign)
            add_step(self._bounds, h.end, sign)
        else:
            add_step(self._other, h.start, sign * h.procs)
            add_step(self._other, h.end, -sign * h.procs)

    def _start_tracking(self) -> None:
        """Build what replan starts from out of the holds, and keep it from now on. O(H)."""
        self._other, self._other0, self._bounds, self._n_priority = {}, 0, {}, 0
        self._tracking = True
        for h in self.holds.values():
            self._track(h, 1)

    def _fold_other(self) -> dict[int, int]:
        """The profile of the holds that are not priority reservations after the origin,
        its instants at or before the origin folded into _other0. O(its instants)."""
        origin, other, bounds = self.origin, self._other, self._bounds
        gone = [t for t in other if t <= origin]
        if gone:
            self._other0 += sum(map(other.pop, gone))
        for t in [t for t in bounds if t <= origin]:
            del bounds[t]
        return other

    def _freed_step(self, until: int) -> None:
        self.freed += 1
        log = self._freed_log
        log.append((self.freed, until))
        if len(log) > _LOG:
            del log[:_LOG // 2]

    def freed_until(self, stamp: int) -> int | None:
        """The latest instant up to which anything came free since `freed` was `stamp` (at
        most the origin when nothing did), or None when that is not known: a step not
        logged (a new table, an old stamp) or one that cannot be bounded. O(steps since)."""
        steps = self.freed - stamp
        if steps <= 0:
            return self.origin
        log = self._freed_log
        if steps > len(log) or log[-steps][0] != stamp + 1:
            return None
        top = max(u for _, u in log[-steps:])
        return None if top >= FOREVER else top

    def given_back(self, stamp: int) -> list[tuple[int, int, int]] | None:
        """What came free since `freed` was `stamp`, as the node table's given_back names
        it: the count planner names no nodes nor when it began, so one region on every node
        up to freed_until; [] when nothing was given back; None when not known.
        O(steps since)."""
        until = self.freed_until(stamp)
        if until is None or stamp >= self.freed:
            return None if until is None else []
        return [(-1, NEVER, until)]

    def starts_in(self, cr: Compiled, wallclock: int, regions: list[tuple[int, int, int]],
                  now: int, start: int, ignore: tuple[str, ...]) -> bool:
        """Always yes: the count planner names no nodes in the future to look at."""
        return True

    def gained_from(self, cr: Compiled, wallclock: int, regions: list[tuple[int, int, int]],
                    now: int, start: int, ignore: tuple[str, ...]) -> int | None:
        """Always `now` (starts_in's yes, no bound): nothing in the future is named."""
        return now

    def over_in(self, own: str) -> bool:
        """Always yes (not known): the count planner names no nodes in the future."""
        return True

    def reach_runs(self, regions: list[tuple[int, int, int]], now: int, eligible: int,
                   exclusive: bool, v: int) -> tuple[list[int], list[int]]:
        """One run from NEVER that never ends (no bound): the count planner names no
        nodes in the future."""
        return [NEVER], [FOREVER]

    def replan(self, owners: Sequence[str], candidates: int, freed_until: int | None = None,
               all_held: bool = False) -> tuple[int, list[tuple[str, int]]]:
        """Re-make the first `candidates` future holds of `owners` in their order, each at
        its earliest start around the holds not in `owners` and the owners before it (as
        placed here): what releasing them all and reserving each again would give, but
        with the table touched only for the holds that move. A hold whose earliest start
        is now is released, for its owner to start on nodes chosen then (planned here as
        taking processors from now; not when a node is overcommitted, where the choice
        may fail: the re-plan stops before it). Returns how many holds were re-made (the
        first ones of `owners`) and (owner, new start) of those that moved, in order: the
        others keep their starts. `all_held`: the caller knows that every owner holds
        something here (the check is then skipped).

        The profile without `owners` is built once on an array of every change point and
        owner bound; each hold's start is then searched on it and subtracted. An earlier
        start than a hold's own needs an instant of its span that came free since it was
        placed (load added since was placed around it), so when `freed_until` bounds what
        came free since (CountTable.freed_until) and the holds were each placed at their
        earliest as stated, only starts before that bound, or before the end of a hold
        moved here, are searched. O(P log P + H_o log P + candidates S), S the segments a
        search passes.

        Invariants of the loop: `free` over `seg` is the profile without `owners`, less
        the holds re-made so far except those still in `pending`; `full`/`part` only name
        sizes that have no start before `bound` (their t); `loaded` bounds what moves added."""
        origin, holds = self.origin, self.holds
        seg, free = self._profile_without(owners, all_held)
        moved = []
        bound = FOREVER if freed_until is None else freed_until
        loaded = origin if freed_until is not None else FOREVER
        """The latest instant a moved hold added load at: a hold moved from [s, e) to an
        earlier [t, t + w) adds processors only over [t, min(s, t + w)), one pushed later up
        to t + w. A later hold's own place was free around every hold at its old place (what
        came since its placement was placed around it), so it is still free unless such
        added load reaches it, or unless something was held without a room check
        (freed_until unknown: every place is checked)."""
        full: list[tuple[int, int]] = []
        """(procs, seconds): no start before `bound` for as many or more of both (what is
        free only shrinks as holds are placed); kept minimal, at most _FAILS."""
        part: list[tuple[int, int, int]] = []
        """(procs, seconds, t): the same before t < bound; the latest _FAILS."""
        pending: list[tuple[int, int, int]] = []
        """A heap of (start, end, procs) of holds placed but not yet subtracted: only what
        a search can read (instants before its window's end plus its span) is brought up
        to date, so the holds far behind the freed window are never subtracted."""

        visit = owners[:candidates]
        done = len(visit)
        for i, h in enumerate(map(holds.get, visit)):
            if h is None or h.start <= origin:
                done = i
                break
            s0, e, n = h.start, h.end, h.procs
            w = e - s0
            k = None
            if bound > origin:
                for fn, fw in full:
                    if fn <= n and fw <= w:
                        break           # no start before bound for (n, w)
                else:
                    fn = 0
                if fn:
                    if loaded <= s0:    # its own place is still free
                        heappush(pending, (s0, e, n))
                        continue
                else:
                    until = s0 if bound >= s0 else bound
                    since, sw = origin, 0
                    for fn, fw, ft in reversed(part):
                        if ft > since and fn <= n and fw <= w:
                            since = ft
                            if fw > sw:
                                sw = fw
                            if since >= until:
                                break
                    if since < until:
                        if pending and pending[0][0] < until:
                            _settle(pending, seg, free, until)
                        lo = bisect_left(seg, since) if since > origin else 0
                        hi = bisect_left(seg, until, lo)
                        if hi > lo and max(free[lo:hi]) >= n:
                            if pending and pending[0][0] < until + w:
                                _settle(pending, seg, free, until + w)
                            k = _first_run(seg, free, lo, hi, n, w)
                            sw = w
                        if k is None:       # no start before until for (n, sw) or more
                            if until >= bound:
                                full = [f for f in full if f[0] < n or f[1] < sw]
                                if len(full) >= _FAILS:
                                    del full[0]
                                full.append((n, sw))
                            else:
                                if len(part) >= _FAILS:
                                    del part[0]
                                part.append((n, sw, until))
            if k is None and loaded > s0:
                if pending:
                    _settle(pending, seg, free, FOREVER)
                a = bisect_left(seg, s0)
                if min(free[a:bisect_left(seg, e, a)]) < n:
                    k = _first_run(seg, free, a, len(seg), n, w)
            if k is None:
                heappush(pending, (s0, e, n))
                continue
            if k == 0 and self.overcommitted:
                done = i
                break
            t = seg[k]
            b = bisect_left(seg, t + w, k)
            if b == len(seg) or seg[b] != t + w:
                seg.insert(b, t + w)
                free.insert(b, free[b - 1])
            moved.append((h, t))
            if e > bound:
                if full:
                    part += [(fn, fw, bound) for fn, fw in full]
                    full = []
                    if len(part) > _FAILS:
                        del part[:-_FAILS]
                bound = e
            reach = t + w if t > s0 or t + w < s0 else s0
            if reach > loaded:
                loaded = reach
            free[k:b] = [x - n for x in free[k:b]]
        if moved:
            self._shift(moved)
        return done, [(h.owner, t) for h, t in moved]

    def _profile_without(self, owners: Sequence[str], all_held: bool
                         ) -> tuple[list[int], list[int]]:
        """(segment starts from the origin, free processors on each) with the holds of
        `owners` taken out, built from the tracked parts when `owners` are every priority
        reservation (replan). O(P log P + H_o)."""
        origin, holds = self.origin, self.holds
        if not self._tracking:
            self._start_tracking()
        if len(owners) == self._n_priority and (
                all_held or len(owners) == sum(map(holds.__contains__, owners))):
            other = self._fold_other()          # the owners are every priority reservation
            held = dict.fromkeys(self._bounds, 0)
            held.update(other)
            u0 = self._other0
        else:
            held = dict(zip(self._times, self._deltas))
            u0 = self.used0
            for h in map(holds.get, owners):
                if h is None:
                    continue
                if h.start > origin:
                    held[h.start] = held.get(h.start, 0) - h.procs
                else:
                    u0 -= h.procs
                held[h.end] = held.get(h.end, 0) + h.procs
        later = sorted(held)
        seg = [origin]
        seg += later
        total = self.total
        return seg, [total - u for u in accumulate(map(held.__getitem__, later), initial=u0)]

    def _shift(self, moved: list[tuple[CountHold, int]]) -> None:
        """Move future holds (none with nodes) to start at the instants given, as release
        and reserve would; one at the origin is released. The profile's changes are
        summed first, so a point two moves share is touched once. O(moved P)."""
        origin, ends = self.origin, self._ends
        top = origin
        d: dict[int, int] = {}
        get = d.get
        for h, t in moved:
            n, s, e, o = h.procs, h.start, h.end, h.owner
            self._track(h, -1)
            d[s] = get(s, 0) - n
            d[e] = get(e, 0) + n
            if e > top:
                top = e
            self._unclaimed.discard(o)
            if t > origin:
                ne = t + e - s
                h.start, h.end, h.allocation = t, ne, ()
                d[t] = get(t, 0) + n
                d[ne] = get(ne, 0) - n
                self._track(h, 1)
                heappush(ends, (ne, o))
            else:
                del self.holds[o]
        for t, v in d.items():
            if v:
                self._point(t, v)
        self._ends = endheap.compacted(ends, self.holds)
        self._freed_step(top)
        self.version += 1

    def _check_tracked(self) -> None:
        """What replan starts from agrees with the holds. O(H)."""
        o0, opts, n_prio = 0, {}, 0
        for o, h in self.holds.items():
            if is_priority(o):
                n_prio += 1
                continue
            if h.start <= self.origin:
                o0 += h.procs
            else:
                opts[h.start] = opts.get(h.start, 0) + h.procs
            opts[h.end] = opts.get(h.end, 0) - h.procs
        assert n_prio == self._n_priority, "priority holds miscounted"
        bounds: dict[int, int] = {}
        for o, h in self.holds.items():
            if is_priority(o):
                for t in (h.start, h.end):
                    bounds[t] = bounds.get(t, 0) + 1
        assert {t: v for t, v in self._bounds.items() if t > self.origin} == {
            t: v for t, v in bounds.items() if t > self.origin}, "priority bounds are stale"
        later = {t: v for t, v in self._other.items() if t > self.origin}
        assert self._other0 + sum(v for t, v in self._other.items() if t <= self.origin) == o0, \
            "other holds' count now is stale"
        assert later == {t: v for t, v in opts.items() if v}, "other holds' profile is stale"
