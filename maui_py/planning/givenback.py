"""What the node table gave back since an epoch: the log of released holds (issue 33).

A planner's `freed` (planning/api.py) moves whenever something held is given back. The log
names, for each such step it can describe, where and when room came free: (freed after
the step, node mask, start, end) of the hold released. A step it cannot describe (a
forced hold, a load, a release that moved credits) is simply not logged, and a question
about an epoch before it is answered None (unknown). A kept reservation that was at its
earliest start at some epoch can only move earlier where room came free since, on its
eligible nodes and within its reach in time (policy/kept.py); without the log every
release would make every one of them be re-made; starts_in answers whether what came free
lets it start earlier. Cost: O(1) per release, O(steps since) per question; at most LOG
entries.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from operator import le

from .api import Compiled
from .bitset import members
from .steps import fit_on, tasks_in

LOG = 1024
"""Entries kept; the older half goes when there are more."""

CORE_REACH = True
"""_gained passes over a region's node whose processors alone rule the request out: no
window as long as the request's, meeting the region and starting in reach, keeps the
processors it needs there free throughout (core_reach, computed once per node and region
while the epoch and now stay; a necessary condition, so the answer is the same). False: every
node is walked, the definition tests/property/test_kept_settled.py compares against."""

ONE_FIRST = True
"""gained_from asks a request one node holds only for its first gained instant
(_first_gained), which is all it returns for one: a region whose reach starts at or after
the first instant found so far is passed over, each node's windows are looked at only up
to that instant and stop at the first that fits, and a segment's fit is its usage compared
dimension by dimension (in C) with the node's capacity less m x d (fit_on's answer for m
tasks). The same instant. False: _gained's span, the definition
tests/property/test_cons55_first_gained.py compares against."""

FOREVER = 1 << 62

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

    def starts_in(self, cr: Compiled, wallclock: int, regions: list[tuple[int, int, int]],
                  now: int, start: int, ignore: tuple[str, ...]) -> bool:
        """Could `cr` over `wallclock` start at some t in [now, start) (the holds of
        `ignore` as free), when it could at no such t before `regions` came free? A
        start t it gained needs a node that holds more of its tasks over [t, t + w) than
        before, hence a region on that node that the window meets, and the node holding
        at least one task (per_node for tasks per node) over the whole window: such t lie
        in [lo, hi] (_gained). None: no. Otherwise, when one such node alone holds the
        request, yes; else the scan over [lo, hi] answers (ReservationTable.scan, exact).
        False is exact (the full earliest-start scan from `now` finds `start` again);
        True may be a start that does not move. O(regions x their nodes' segments within
        reach), plus one scan over [lo, hi] for requests of several nodes or tasks."""
        return self.gained_from(cr, wallclock, regions, now, start, ignore) is not None

    def gained_from(self, cr: Compiled, wallclock: int, regions: list[tuple[int, int, int]],
                    now: int, start: int, ignore: tuple[str, ...]) -> int | None:
        """starts_in's answer as an instant: None for no, else a t in [now, start) before
        which the request fits nowhere now (an earliest-start scan may begin there and
        find what a scan from `now` finds, issue 33). No start before `lo` was gained (see
        starts_in), and none before `start` fitted before the regions came free, so none
        fits before lo now: for a request one node holds, lo is its earliest start (the
        node that gained a window there holds it); for others, the start the scan over
        [lo, hi] found, the first that fits. Same cost as starts_in."""
        w = max(int(wallclock), 1)
        m = cr.per_node if cr.mode == "tpn" else 1
        one = cr.nodes_needed <= 1 and cr.tasks <= m
        if one and ONE_FIRST and m >= 1:
            return self._first_gained(cr, m, w, regions, now, start, ignore)
        got = self._gained(cr, w, regions, now, start, ignore)
        if got is None:
            return None
        if one:
            return got[0]
        self.gain_scans += 1
        found = self.scan(cr, w, got[0], got[1], ignore)
        return None if found is None else found[0]

    gain_scans = 0
    """Scans starts_in ran over the span _gained found, summed (operation count)."""

    _reach_at: tuple[int, int, int] | None = None
    _reach: dict[tuple[int, int, int], list[int]] = {}

    def _reaches_at(self, now: int) -> dict[tuple[int, int, int], list[int]]:
        """core_reach per (node, region start, region end), kept while `freed`, `now` and
        the origin stay: until `freed` moves what is free only shrinks, so a W made
        earlier is still an upper bound (it may rule out less, never more). O(1)."""
        key = (self.freed, now, self.origin)
        if self._reach_at != key:
            self._reach_at, self._reach = key, {}
        return self._reach

    def reach_runs(self, regions: list[tuple[int, int, int]], now: int, eligible: int,
                   exclusive: bool, v: int) -> tuple[list[int], list[int]]:
        """(starts, most): the maximal runs over which a node of `regions` that is in
        `eligible` keeps free the `v` processors a request needs there (all of the node's
        when `exclusive`), each clipped to start at now or later, starting before its
        region ends and ending after it begins (free_runs), sorted by start; most[k], the
        longest of the first k + 1. A window _gained accepts on such a node, for a
        reservation starting at s over w seconds, lies in one of these runs (it keeps those
        processors free, starts in [now, s) and meets its region), so a reservation
        holding none of these nodes, with most[k] < w for the runs starting before s,
        gains nothing from `regions`, nor from any part of them (policy/sparse.py, issue
        33). Nodes sharing a step function and capacity are looked at once per region.
        O(the regions' nodes x their segments within reach) once per (freed, now, origin),
        then O(runs log runs)."""
        lo = max(now, self.origin)
        T, U, cap = self._T, self._U, self.cap
        memo_runs = self._runs_at(now)
        runs: list[tuple[int, int]] = []
        seen: set[tuple[int, int, int, int]] = set()
        for mask, x, y in regions:
            for i in members(mask & eligible):
                c0 = cap[i][0]
                need = c0 if exclusive else v
                if need > c0:
                    continue
                same = (id(T[i]), c0, x, y)
                if same in seen:
                    continue
                seen.add(same)
                got = memo_runs.get((i, x, y, need))
                if got is None:
                    got = memo_runs[i, x, y, need] = free_runs(T[i], U[i], c0, need, lo, x, y)
                runs.extend(got)
        runs.sort()
        return [r for r, _L in runs], list(accumulate((L for _r, L in runs), max))

    _runs_key: tuple[int, int, int] | None = None
    _runs: dict[tuple[int, int, int, int], list[tuple[int, int]]] = {}

    def _runs_at(self, now: int) -> dict[tuple[int, int, int, int], list[tuple[int, int]]]:
        """free_runs per (node, region start, region end, processors), kept while `freed`,
        `now` and the origin stay (what is free only shrinks meanwhile, so each run kept
        still contains every run there is now: a bound still). O(1)."""
        key = (self.freed, now, self.origin)
        if self._runs_key != key:
            self._runs_key, self._runs = key, {}
        return self._runs

    def _gained(self, cr: Compiled, w: int, regions: list[tuple[int, int, int]], now: int,
                start: int, ignore: tuple[str, ...]) -> tuple[int, int] | None:
        """(lo, hi): the first and last t in [now, start) at which some eligible node of a
        region holds the request's minimum over the whole of [t, t + w), the window
        meeting that region (the holds of `ignore` as free); None when there is none.
        Nodes sharing a step function and capacity are looked at once per region."""
        m = cr.per_node if cr.mode == "tpn" else 1
        d, excl, zero, cap, E = cr.d, cr.exclusive, self.zero, self.cap, cr.eligible
        ign = [h for h in map(self.holds.get, ignore) if h is not None]
        reach = self._reaches_at(now) if CORE_REACH and d[0] > 0 else None
        v = m * d[0]
        origin = self.origin
        vecs = [h.vec for h in ign]
        one = vecs[0] if len(vecs) == 1 else None
        lo = hi = None
        seen: dict[tuple, tuple[int, int] | None] = {}
        for mask, x, y in regions:
            a, b = max(now, x - w + 1, origin), min(start - 1, y - 1)
            if a > b or (lo is not None and lo <= a and b <= hi):
                continue            # out of reach, or nothing it could add to [lo, hi]
            for i in members(mask & E):
                mine = (i in one) if one is not None else any(i in u for u in vecs)
                if reach is not None and not mine:
                    W = reach.get((i, x, y))
                    c0 = cap[i][0]
                    if W is None:
                        W = reach[i, x, y] = core_reach(self._T[i], self._U[i], c0,
                                                        max(now, origin), x, y)
                    need = c0 if excl else v
                    if need > c0 or W[need] < w:
                        continue    # its processors alone rule it out (CORE_REACH)
                key = None if mine else (id(self._T[i]), cap[i], a, b)
                got = seen.get(key, False) if key is not None else False
                if got is False:
                    T, U = self._steps_without(i, ignore) if mine else (self._T[i], self._U[i])
                    c = cap[i]
                    got = _window_in(T, U, a, b, w,
                                     lambda u, c=c: fit_on(d, excl, c, u, zero) >= m)
                    if key is not None:
                        seen[key] = got
                if got is not None:
                    lo = got[0] if lo is None else min(lo, got[0])
                    hi = got[1] if hi is None else max(hi, got[1])
        return None if lo is None else (lo, hi)

    def _first_gained(self, cr: Compiled, m: int, w: int, regions: list[tuple[int, int, int]],
                      now: int, start: int, ignore: tuple[str, ...]) -> int | None:
        """_gained's lo for a request one node holds (m tasks of it on one node), asked
        only up to the first instant found so far (ONE_FIRST): the least of the nodes'
        first windows is the same when each is looked for only before the least so far.
        O(regions x their nodes' segments within reach), fewer once one is found."""
        d, excl, zero, cap, E = cr.d, cr.exclusive, self.zero, self.cap, cr.eligible
        own = 0                         # the nodes of the holds taken as free
        for h in map(self.holds.get, ignore):
            if h is not None:
                own |= h.mask
        reach = self._reaches_at(now) if CORE_REACH and d[0] > 0 else None
        v = m * d[0]
        base, top = max(now, self.origin), start - 1
        T_, U_ = self._T, self._U
        lo = None
        seen: dict[tuple, int | None] = {}
        lims: dict[tuple[int, ...], tuple[int, ...] | None | bool] = {}
        for mask, x, y in regions:
            a = x - w + 1 if x - w + 1 > base else base
            b = y - 1 if y - 1 < top else top
            mm = mask & E
            if a > b or not mm:
                continue                # out of reach, or nothing before the first found
            for i in (mm.bit_length() - 1,) if not mm & (mm - 1) else members(mm):
                mine = own >> i & 1
                c = cap[i]
                if reach is not None and not mine:
                    W = reach.get((i, x, y))
                    if W is None:
                        W = reach[i, x, y] = core_reach(T_[i], U_[i], c[0], base, x, y)
                    need = c[0] if excl else v
                    if need > c[0] or W[need] < w:
                        continue        # its processors alone rule it out (CORE_REACH)
                if c in lims:
                    lim = lims[c]
                else:
                    lim = lims[c] = _limit(d, excl, m, c)
                if lim is False:
                    continue            # fit_on never reaches m on such a node
                key = None if mine else (id(T_[i]), c, a, b)
                got = seen.get(key, False) if key is not None else False
                if got is False:
                    T, U = self._steps_without(i, ignore) if mine else (T_[i], U_[i])
                    got = _first_window(T, U, a, b, w, lim, zero)
                    if key is not None:
                        seen[key] = got
                if got is not None:
                    lo, top = got, got - 1
                    b = top if top < b else b
                    if a > b:
                        break
        return lo


def _limit(d: tuple[int, ...], exclusive: bool, m: int, cap: tuple[int, ...]
           ) -> tuple[int, ...] | None | bool:
    """What fit_on(d, exclusive, cap, u, zero) >= m (m >= 1) asks of a usage u, as data:
    a tuple L (u fits when u[k] <= L[k] for every k: cap less m x d where d asks any, else
    no bound), None (exclusive: u fits when it is zero) or False (it never fits). O(dims)."""
    if exclusive:
        return None if tasks_in(d, cap) >= m else False
    return tuple(c - m * x if x > 0 else FOREVER for x, c in zip(d, cap))


def _first_window(T: list[int], U: list[tuple[int, ...]], a: int, b: int, w: int,
                  lim: tuple[int, ...] | None, zero: tuple[int, ...]) -> int | None:
    """_window_in's first t, the fit given as _limit's data (None: the usage is zero);
    it stops there. O(segments in [a, first + w))."""
    end = b + w
    last = len(T) - 1
    run = None                          # where the current run of fitting segments began
    for k in range(max(bisect_right(T, a) - 1, 0), last + 1):
        s = T[k]
        if s < a:
            s = a
        if s >= end:
            break
        u = U[k]
        if (u != zero) if lim is None else not all(map(le, u, lim)):
            run = None
            continue
        if run is None:
            run = s
        e = T[k + 1] if k < last and T[k + 1] < end else end
        if run <= e - w and run <= b:
            return run
    return None


def core_reach(T: list[int], U: list[tuple[int, ...]], c0: int, lo: int, x: int, y: int
               ) -> list[int]:
    """W[c], c = 0 .. c0: the longest window [t, t + L) with lo <= t < y and t + L > x (it
    meets [x, y)) over which at least c of the node's c0 processors are free throughout
    (step function T, U; processors used U[k][0]); 0 when none, FOREVER when unbounded.
    Exact for _gained's use: a window _window_in accepts for a request needing v
    processors on the node lies in a maximal run of segments with v free, which starts
    (clipped to lo) at or before the window and ends after it, and is one counted here;
    so w > W[v] rules the node out. A run for c starts where the free processors rise to c
    or more (or at lo): only c in (free before, free here] are extended from a segment.
    O(segments from lo to where the runs started before y end), once per node and region
    while what is free only shrinks (GivenBack._reaches_at)."""
    W = [0] * (c0 + 1)
    W[0] = FOREVER
    last = len(T) - 1
    k0 = max(bisect_right(T, lo) - 1, 0)
    prev = 0
    for k in range(k0, last + 1):
        t = max(T[k], lo)
        if t >= y:
            break
        f = min(c0 - U[k][0], c0)
        if f <= prev:
            prev = max(f, 0)
            continue
        cur, j = f, k           # c in (prev, cur] have a run from t, not yet ended
        while cur > prev:
            if j == last:
                for c in range(prev + 1, cur + 1):
                    W[c] = FOREVER
                break
            j += 1
            fj = c0 - U[j][0]
            if fj < cur:
                low = max(fj, prev)
                if T[j] > x:
                    L = T[j] - t
                    for c in range(low + 1, cur + 1):
                        if W[c] < L:
                            W[c] = L
                cur = low
        prev = f
    return W


def free_runs(T: list[int], U: list[tuple[int, ...]], c0: int, need: int, lo: int, x: int,
              y: int) -> list[tuple[int, int]]:
    """(start, length) of each maximal run of the step function (T, U) over which at least
    `need` of the node's c0 processors are free (processors used U[k][0]), its start
    clipped to lo, that starts before y and ends after x (meets [x, y)); FOREVER when it
    never ends. O(segments from lo to where the runs started before y end)."""
    out: list[tuple[int, int]] = []
    last = len(T) - 1
    run = None
    for k in range(max(bisect_right(T, lo) - 1, 0), last + 1):
        t = max(T[k], lo)
        if c0 - U[k][0] >= need:
            if run is None:
                if t >= y:
                    break
                run = t
        else:
            if run is not None:
                if t > x:
                    out.append((run, t - run))
                run = None
            if t >= y:
                break
    else:
        if run is not None:
            out.append((run, FOREVER))
    return out


def _window_in(T: list[int], U: list[tuple[int, ...]], a: int, b: int, w: int,
               fits) -> tuple[int, int] | None:
    """(first, last) t in [a, b] such that fits(u) holds for every segment of the step
    function (T, U) meeting [t, t + w); None when there is none. O(segments in [a, b + w))."""
    end = b + w
    last = len(T) - 1
    first = top = None
    run = None                          # where the current run of fitting segments began
    for k in range(max(bisect_right(T, a) - 1, 0), last + 1):
        s = max(T[k], a)
        if s >= end:
            break
        e = min(T[k + 1], end) if k < last else end
        if not fits(U[k]):
            run = None
            continue
        if run is None:
            run = s
        if run <= min(e - w, b):        # windows [run, e - w] fit, those in [a, b] count
            if first is None:
                first = run
            top = min(e - w, b)
    return None if first is None else (first, top)
