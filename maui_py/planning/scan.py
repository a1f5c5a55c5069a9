"""The node table's hot loop: the earliest change point at which a compiled request fits
for its whole wallclock (ReservationTable.scan, its invariants in its docstring), with the
set-up it starts from and the floors (earliest starts found since anything was released)
that let a later scan of a request asking no less start where an earlier one ended.

Candidate starts are `after`, the change points where some eligible node frees something
(PointIndex.frees: elsewhere no node gains room, so the request fails as it did at the
candidate before) and ignored holds' ends and starts. O(P) big-int operations to move the
window (SlidingOr) plus O(1) per candidate examined, plus O(h log h) per partly used node
whose usage changes during the scan; a start-now question (until = now) costs O(1) big-int
operations when no partly used node is involved. For a request that needs every gres,
nodes with some gres all taken at t or within the window are set aside before that (the
gres index): O(1) big-int operations per candidate instead of an evaluation per such node.

Set differences are written a ^ (a & b), not a & ~b: ~b is a negative int, on which every
operation costs several times a plain one."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Iterable

from .api import FOREVER, Compiled
from .bitset import members
from .points import SlidingOr

_HORIZON = FOREVER // 2
"""A start this far out means never: the end of a reservation without end."""
FLOORS = 64
"""Earliest starts kept per request shape for ReservationTable._floor."""
FEW = 32
"""Nodes _window_sets reads at most (beyond, the scan's window is a SlidingOr)."""



def _split(E: int, idle: int, touched: int, full: int, fullin: int, ign_mask: int,
           exclusive: bool, procs_bound: bool) -> tuple[int, int]:
    """(fast, others) at a scan candidate: `fast` the eligible nodes idle at t, untouched over
    the window and not ignored (each holds its class's idle fit); `others` those whose fit
    is evaluated: for an exclusive request the ignored ones only, for one that needs a
    processor the rest less the nodes full at t or in the window (an ignored node counts
    as not full), else all the rest. O(1) big-int operations."""
    moved = touched | ign_mask if ign_mask else touched
    fast = (E ^ (E & moved)) & idle
    if exclusive:
        return fast, E & ign_mask
    others = E ^ fast                    # fast is a subset of E
    if procs_bound:
        busy = full | fullin
        if ign_mask:
            busy ^= busy & ign_mask
        others ^= others & busy
    return fast, others

class Scanning:
    """The earliest-start scan over the node table's change points, and the floors it keeps
    (earliest starts found since the last release). A part of ReservationTable
    (planning/table.py), which owns the state it reads."""

    use_shapes = True
    """Answer start-now questions the free-shape index rules out without the walk (False:
    always walk, the definition the property tests compare against)."""
    use_short = True
    """Pass over change points where fewer eligible nodes than the request needs are
    anything but full (the count bound, see scan) without evaluating them (False: evaluate
    every candidate, the definition the property tests compare against)."""
    skipped = 0
    """Candidates the count bound passed over, summed over scans (operation count)."""
    use_gain = True
    """Pass over change points until enough eligible nodes have freed something since the
    last failed evaluation to make up its shortfall (the gain bound, see scan) without
    evaluating them (False: the definition the property tests compare against)."""
    gained_over = 0
    """Candidates the gain bound passed over, summed over scans (operation count)."""
    use_gain_any = True
    """The gain bound for requests of tasks anywhere ("any", cyc6): the last evaluation at s
    found tot tasks of the `tasks` asked; at a later t a node holds more than at s only if
    its usage fell in (s, t] (the gain bound's argument), and then at most its class's
    idle fit, so fewer than ceil((tasks - tot) / kmax) such eligible nodes (kmax the
    largest idle fit of the request's classes) cannot make up the shortfall: t is passed
    over unevaluated. The reservations of a deep priority pass (wide "any" requests that
    wait) so skip most candidates between one job's end and the next. False: "any"
    requests evaluate every candidate where an eligible node frees something, the
    definition tests/property/test_gain_bound_properties.py compares against."""
    use_room = True
    """Leave out of the start-now walk (planning/firstnow.py) the partly used nodes whose
    free vector at the origin cannot hold a node's share (FreeShapes.roomy; False: walk
    them all, the definition the property tests compare against). Part of the free-shape
    index: off too when use_shapes is."""
    use_first = True
    """Answer FIRSTAVAILABLE start-now questions of tasks-per-node requests (at the origin,
    or at a later instant before the first change point) by the walk in index order that
    stops at the nodes it takes (planning/firstnow.py; False: scan then select, the
    definition the property tests compare against)."""

    use_last = True
    """Answer LASTAVAILABLE start-now questions of tasks-per-node and "any" requests (at
    the origin) by one walk that fits and ranks the partly used nodes together
    (planning/lastnow.py; False: scan then select, the definition the property tests
    compare against)."""

    use_few = True
    """Make a scan's first window after the origin (and each one until the window is
    kept, see scan) from the step functions of the few nodes whose changes _split could
    read, as _origin_sets does at the origin, instead of a SlidingOr over every point of
    [t, t + w) (_window_sets; False: the SlidingOr from the first window on, the
    definition tests/property/test_few_window.py compares against)."""
    few_made = 0
    """Windows made from step functions by use_few, summed over scans (operation count)."""

    use_gres_gain = True
    """For a request that needs every gres (the gres index bounds it), leave out of the
    nodes that free something at a candidate t those with a gres all taken at t: such a
    node holds no task over [t, t + w), no more than at the last candidate, so the
    candidate is passed over (fails as it did) unless another eligible node frees
    something, and the gain bound counts only the nodes that may hold more. A node that
    frees while a gres of it is all taken and holds a task later must see that gres's
    usage fall first: it frees again then, with the gres not all taken. A deep priority
    pass reserves GPU jobs behind one another, and the GPU nodes free processors (the
    jobs without GPUs on them end) far more often than GPUs: most of those candidates were
    evaluated to fail. No owner ignored. False: the definition
    tests/property/test_gres_gain_properties.py compares against."""
    gres_passed = 0
    """Candidates passed over because every node freeing there has a gres all taken
    (operation count: `fr` empty only by use_gres_gain)."""

    found_streak = 0
    """Start-now walks in a row that found room (planning/lastnow.py's STREAK); a table's
    own count from its first walk on."""

    def scan(self, cr: Compiled, wallclock: int, after: int | None = None,
             until: int | None = None, ignore: Iterable[str] = ()):
        """Earliest change point t in [after, until] where `cr` fits over [t, t + wallclock).

        Returns (t, fast, fits) where `fast` is the set of nodes idle and untouched over the
        window (each holds its class's idle fit) and `fits` maps other nodes to the tasks
        they hold; None when nothing fits by `until` (or ever). Holds of `ignore`d owners
        are treated as free (the job's own reservation, reservations it may use).
        Candidates and costs: see the module's docstring.

        Invariants at each candidate t: `idle`/`full` are the sets at t (the origin sets
        with the points keys[:i] applied); `touched`/`fullin` the OR of chg/full over the
        points in (t, t + w), keys[i:j] (SlidingOr; while `window` is None, their bits
        _split reads: _window_sets, _origin_sets); `fits` maps each node of
        `others_prev` to its tasks over the window last evaluated, `tot_o`/`cnt_o` their
        sum and how many hold a task, `changed` the nodes with a change point since; the
        same for gres with gi/gj, caught up only where read (the filter of use_gres_gain
        and an evaluation: _gres_at and _gres_move apply the same points in the same
        order whenever they run). When `sure` (nothing fits before t) a start found is
        kept as a floor (_floor). The gain bound: `deficit` is how many nodes the last
        evaluation (at s) lacked, `gained` the eligible nodes whose usage falls at some
        point in (s, t]. A node holds more tasks over [t, t + w) than over [s, s + w) only
        if its usage falls in (s, t] (else its most used over the window is no less), so
        fewer than `deficit` gained means it fails at t: passed over unevaluated.
        """
        w = max(int(wallclock), 1)
        if until is not None and self._ruled_out(cr, after, until, ignore):
            return None
        (t, sure, shape, ign_mask, ign_list, extra, idle, full, i, j, window, touched, fullin
         ) = self._scan_start(cr, w, after, until, ignore)
        pts = self._pts
        keys, chgs, idles, fulls, frees = pts.times, pts.chg, pts.idle, pts.full, pts.frees
        npts = len(keys)
        E = cr.eligible
        classes = cr.classes
        mode, per, need, tasks = cr.mode, cr.per_node, cr.nodes_needed, cr.tasks
        procs_bound = cr.d[0] > 0
        g = self._gres_start(cr, t, w)
        gres_bound = g is not None
        if gres_bound:      # nodes with a gres all taken at t or in [t, t + w) hold no task
            gi, gfull, gj, gwindow, gfullin = g
            gtimes = self._gpts.times
        fits: dict[int, int] = {}
        tot_o = cnt_o = 0
        others_prev = 0
        changed = 0
        ei = 0
        exclusive = cr.exclusive
        short = (self.use_short and procs_bound and not exclusive and not ign_mask
                 and mode != "any")
        gain = self.use_gain and not ign_mask and (mode != "any" or self.use_gain_any)
        gres_gain = self.use_gres_gain and not ign_mask
        kmax = max([kc for _cm, kc in classes]) if gain and mode == "any" else 1
        deficit = gained = 0        # nodes short at the last evaluation; who freed since
        evaluate = True
        while True:
            if evaluate:
                fast, others = _split(E, idle, touched, full, fullin, ign_mask, exclusive,
                                      procs_bound)
                if gres_bound:
                    gbusy = gfull | gfullin
                    if ign_mask:
                        gbusy ^= gbusy & ign_mask
                    others ^= others & gbusy
                if others or others_prev:
                    tot_o, cnt_o = self._refit(cr, t, w, fits, others, others_prev, changed,
                                               ign_mask, ign_list, tot_o, cnt_o)
                    others_prev = others
                cnt_f = tot_f = 0
                for cm, kc in classes:
                    c = (fast & cm).bit_count()
                    cnt_f += c
                    tot_f += c * kc
                if mode == "any":
                    ok = tot_f + tot_o >= tasks
                else:
                    ok = cnt_f + cnt_o >= need
                    if ok and mode == "nodes":
                        ok = tot_f + tot_o >= tasks and self._top_sum(
                            fast, classes, fits, need) >= tasks
                if ok:
                    if shape is not None and sure:
                        self._add_floor(shape, cr, w, t)
                    # every node kept holds a task, the usual case: fits is this scan's own
                    return t, fast, (fits if cnt_o == len(fits) else
                                     {k: f for k, f in fits.items() if f >= per})
                changed = ign_mask
                if gain:            # "any": nodes of kmax tasks short (_any_deficit)
                    deficit, gained = (need - cnt_f - cnt_o if mode != "any" else
                                       -((tot_f + tot_o - tasks) // kmax)), 0
            if until is not None and t >= until:
                return None
            while ei < len(extra) and extra[ei] <= t:
                ei += 1
            if i >= npts and ei >= len(extra):
                return None
            t_new = keys[i] if i < npts else FOREVER
            if ei < len(extra) and extra[ei] < t_new:
                t_new = extra[ei]
            if (until is not None and t_new > until) or t_new >= _HORIZON:
                return None
            evaluate = True
            if i < npts and keys[i] == t_new:
                chg = chgs[i]
                idle = (idle ^ (idle & chg)) | idles[i]
                full = (full ^ (full & chg)) | fulls[i]
                # no eligible node frees anything: it fails as it did (see the module's)
                fr = frees[i] & E
                if gres_bound and fr and gres_gain:     # nor one with a gres all taken
                    if gi < len(gtimes) and gtimes[gi] <= t_new:
                        gi, gfull = self._gres_at(t_new, gi, gfull)
                    fr ^= fr & gfull
                    self.gres_passed += not fr
                evaluate = bool(fr) or (ei < len(extra) and extra[ei] == t_new)
                i += 1
                changed |= chg
                if evaluate and short:      # too few nodes not full at t_new: it fails
                    busy = full ^ (full & idle)
                    evaluate = (E ^ (E & busy)).bit_count() >= need
                    if not evaluate:
                        self.skipped += 1
                if gain:                    # too few nodes freed since to make up the deficit
                    gained |= fr
                    if evaluate and gained.bit_count() < deficit:
                        evaluate = False
                        self.gained_over += 1
            if j < i:
                j = i
            lim = t_new + w
            while j < npts and keys[j] < lim:
                changed |= chgs[j]
                j += 1
            if evaluate:
                if window is None:      # made where first needed: passed-over points skipped
                    window, touched, fullin = self._first_window(E, idle, full, i, j, t_new, lim)
                else:
                    touched, fullin = window.move(i, j)
            if gres_bound and evaluate:     # else caught up where next read
                gi, gj, gfull, gfullin = self._gres_move(t_new, lim, gi, gj, gfull, gwindow)
            t = t_new

    def _refit(self, cr: Compiled, t: int, w: int, fits: dict[int, int], others: int,
               others_prev: int, changed: int, ign_mask: int, ign_list: list[str],
               tot_o: int, cnt_o: int) -> tuple[int, int]:
        """scan's `fits` moved to candidate t: the nodes that left `others` dropped, those
        that joined it or changed since the last evaluation fitted over [t, t + w) (the
        ignored owners' holds as free on the nodes of `ign_mask`), one fit per step function
        and capacity at t; returns (tot_o, cnt_o) kept in step. O(k) fits for k nodes redone,
        O(1) each with a flat fit at the origin (Compiling._fits_now)."""
        mode, per = cr.mode, cr.per_node
        count = mode != "tpn"
        for k in members(others_prev ^ (others_prev & others)):
            f = fits.pop(k)
            tot_o -= f if count else 0
            cnt_o -= 1 if f >= per else 0
        both = others & others_prev
        redo = (others ^ both) | (both & changed)
        memo: dict[tuple, int] = {}
        origin = self.origin
        if t == origin and not ign_mask and not fits:
            # the first look at the origin: _fit_now's fits, its cache for memo
            return self._fits_now(cr, redo, t + w, fits, count, per)
        tt, cap, fit_between = self._T, self.cap, self._fit_between
        for k in members(redo):
            old = fits.get(k)
            if old is not None:
                tot_o -= old if count else 0
                cnt_o -= 1 if old >= per else 0
            if (ign_mask >> k) & 1:
                key = (id(tt[k]), cap[k], tuple(self.holds[o].vec.get(k) for o in ign_list))
                f = memo.get(key)
                if f is None:
                    f = memo[key] = self._fit(cr, k, t, t + w, ign_list)
            else:
                key = (id(tt[k]), cap[k])
                f = memo.get(key)
                if f is None:
                    f = memo[key] = (self._fit_now(cr, k, t + w) if t == origin
                                     else fit_between(cr, k, t, t + w))
            fits[k] = f
            tot_o += f if count else 0
            cnt_o += 1 if f >= per else 0
        return tot_o, cnt_o

    def _ruled_out(self, cr: Compiled, after: int | None, until: int,
                   ignore: Iterable[str]) -> bool:
        """Is a question answered by `until` (scan's candidates: after, then up to until)
        answered "no" by the free-shape index (planning/freeshape.py: exact, no node
        walked)? Asked when no change point falls in (origin, max(after, until)]: every
        candidate then sees the origin's usage, and a window from it uses no less, as the
        index's bound assumes (a start-now question; a cycle's question at a later instant
        before anything changes, core/changes.py). O(kinds x buckets)."""
        if not self.use_shapes or ignore:
            return False
        last = until if after is None or after <= until else after
        if last > self.origin:
            times = self._pts.times
            if times and times[0] <= last:
                return False
        return self.shapes.cannot_start(cr.eligible, cr.d, cr.mode, cr.per_node,
                                        cr.nodes_needed, cr.tasks)

    def _gres_at(self, t_new: int, gi: int, gfull: int) -> tuple[int, int]:
        """scan's gres pointer moved to t_new: (gi, the nodes with a gres all taken at
        t_new), the first half of _gres_move, whose own loop then has nothing to do."""
        gpts = self._gpts
        gtimes, gchgs, gfulls = gpts.times, gpts.chg, gpts.full
        ngp = len(gtimes)
        while gi < ngp and gtimes[gi] <= t_new:
            c = gchgs[gi]
            gfull = (gfull ^ (gfull & c)) | gfulls[gi]
            gi += 1
        return gi, gfull

    def _gres_move(self, t_new: int, lim: int, gi: int, gj: int, gfull: int,
                   gwindow: SlidingOr) -> tuple[int, int, int, int]:
        """scan's gres window moved to [t_new, lim) from wherever it was last (both ends
        only move forward): (gi, gj, the nodes with a gres all taken at t_new, those all
        taken in the window)."""
        gi, gfull = self._gres_at(t_new, gi, gfull)
        gtimes = self._gpts.times
        ngp = len(gtimes)
        if gj < gi:
            gj = gi
        while gj < ngp and gtimes[gj] < lim:
            gj += 1
        return gi, gj, gfull, gwindow.move(gi, gj)[1]

    def _scan_start(self, cr: Compiled, w: int, after: int | None, until: int | None,
                    ignore: Iterable[str]) -> tuple:
        """Where scan starts: (t, sure, floor shape, mask of ignored nodes, ignored owners
        that hold, their starts and ends after t, idle and full at t, the window's point
        indexes i and j, its SlidingOr (None at the origin), touched and full in it)."""
        origin = self.origin
        t = origin if after is None else max(int(after), origin)
        pts = self._pts
        keys = pts.times
        ign = frozenset(self.with_credits(ignore)) if ignore else frozenset()
        shape = None
        sure = t == origin          # nothing fits before t: the start found may be a floor
        if until is None and not ign:
            shape, floor = self._floor(cr, w)
            if floor >= t:
                t, sure = floor, True
        ign_mask = 0
        for o in ign:
            h = self.holds.get(o)
            if h is not None:
                ign_mask |= h.mask
        idle, full = self.idle0, self.full0
        i = 0
        if t > origin:
            i = bisect_right(keys, t)
            idle, full = pts.sets_before(i, idle, full)
        j = bisect_left(keys, t + w)
        window = None
        if i == 0:
            touched, fullin = self._origin_sets(cr.eligible, idle, full, t + w)
        else:
            window, touched, fullin = self._first_window(cr.eligible, idle, full, i, j, t, t + w)
        ign_list = [o for o in ign if o in self.holds] if ign else []
        extra = sorted({x for o in ign_list for x in (self.holds[o].start, self.holds[o].end)
                        if x > t}) if ign_list else []
        return (t, sure, shape, ign_mask, ign_list, extra, idle, full, i, j, window, touched,
                fullin)

    def _gres_start(self, cr: Compiled, t: int, w: int) -> tuple | None:
        """For a request that needs every gres (and a gres index with points): (gi, the
        nodes with a gres all taken at t, gj, the gres window's SlidingOr, those all taken
        in it); None otherwise."""
        gpts = self._gpts
        if not (self._gdims and not cr.exclusive and 0 not in cr.d[self._gstart:]
                and gpts.times):
            return None
        gtimes = gpts.times
        gi = bisect_right(gtimes, t)
        gfull = gpts.sets_before(gi, 0, self.gfull0)[1] if gi else self.gfull0
        gj = bisect_left(gtimes, t + w, gi)
        gwindow = SlidingOr(gpts, gi, gj)
        return gi, gfull, gj, gwindow, gwindow.total()[1]

    def _origin_sets(self, E: int, idle: int, full: int, x: int) -> tuple[int, int]:
        """What the scan reads of PointIndex.or_before(x) when it starts before the first
        change point, with idle and full sets `idle` and `full`: of the nodes that change
        before x, those of E idle (the others are not idle whatever they do); of the nodes
        full before x, those of E not full already. Where few nodes of E have change points
        or fill later (a first cycle's start-now questions) their step functions say so,
        which spares or_before rebuilding its prefixes after every hold added. O(k log h)
        for k such nodes (prefix maxima), else or_before's."""
        a = E & idle & self.later
        b = E & self.fills
        b ^= b & full
        if (a | b).bit_count() > 32:
            return self._pts.or_before(x)
        tt, uu, cap, zero = self._T, self._U, self.cap, self.zero
        touched = fullin = 0
        for i in members(a):
            if tt[i][1] < x:
                touched |= 1 << i
        for i in members(b):
            T, U = tt[i], uu[i]
            c = cap[i][0]
            m = bisect_left(T, x)
            if c > 0:       # not full at the origin: full before x if it uses c then
                if self._prefix_max(T, U)[m - 1][0] >= c:
                    fullin |= 1 << i
                continue
            for k in range(1, m):
                if U[k] != zero:
                    fullin |= 1 << i
                    break
        return touched, fullin

    def _first_window(self, E: int, idle: int, full: int, i: int, j: int, t: int, x: int
                      ) -> tuple[SlidingOr | None, int, int]:
        """(window, touched, fullin) for a scan's window [t, x) over points i..j-1 when it
        has no SlidingOr yet: from the few nodes' step functions (_window_sets, use_few;
        no window kept, so the next evaluation comes here again), else a SlidingOr made
        and kept. O(k log h) for k such nodes, else the SlidingOr's refill."""
        if self.use_few:
            got = self._window_sets(E, idle, full, t, x)
            if got is not None:
                self.few_made += 1
                return None, got[0], got[1]
        window = SlidingOr(self._pts, i, j)
        return (window, *window.total())

    def _window_sets(self, E: int, idle: int, full: int, t: int, x: int
                     ) -> tuple[int, int] | None:
        """What _split reads of the OR of chg and full over the points in (t, x), with
        `idle` and `full` the sets at t (None when more than FEW nodes would be read):
        of the eligible nodes idle at t, those with a change point in (t, x) (only nodes
        with some change point after the origin, `later`, have one); of the eligible
        nodes not full at t, those whose processors are all taken after a change point in
        (t, x) (only nodes in `fills` are full after any). _split reads no other bit of
        either: `fast` keeps eligible nodes idle at t, and `others` drops the nodes full
        at t whatever fullin says. _origin_sets' rule at any t. O(k log h) for k nodes."""
        a = E & idle & self.later
        b = E & self.fills
        b ^= b & full
        if (a | b).bit_count() > FEW:
            return None
        tt, uu, cap, zero = self._T, self._U, self.cap, self.zero
        touched = fullin = 0
        for n in members(a):
            T = tt[n]
            k = bisect_right(T, t)
            if k < len(T) and T[k] < x:
                touched |= 1 << n
        for n in members(b):
            T, U = tt[n], uu[n]
            c = cap[n][0]
            for k in range(bisect_right(T, t), bisect_left(T, x)):
                u = U[k]
                if (u[0] >= c if c > 0 else u != zero):   # category 2 after T[k]
                    fullin |= 1 << n
                    break
        return touched, fullin

    def _floor(self, cr: Compiled, w: int) -> tuple[tuple, int]:
        """(shape key, the earliest start a scan of `cr` over `w` can return) from the starts
        found since anything was last released or the origin moved: holds were only added
        since, so no node has more room anywhere than it had, and a request of the same
        shape (eligible nodes, mode, nodes, exclusive) asking no fewer tasks of no smaller a
        per-task vector (componentwise) for no less time fits nowhere before the start found
        for the smaller one: every node holds no more of its tasks over any window. The
        reservations of one pass, made in order, ask this of one another, and their vectors
        differ (memory per task, say) more often than their node sets. O(FLOORS x dims)."""
        if self._floors_at != (self.freed, self.origin):
            self._floors = {}
            self._floors_at = (self.freed, self.origin)
        shape = (cr.eligible, cr.mode, cr.per_node, cr.nodes_needed, cr.exclusive)
        best = self.origin
        d, n = cr.d, cr.tasks
        for fn, fw, ft, fcr in self._floors.get(shape, ()):
            if ft > best and n >= fn and w >= fw:
                fd = fcr.d
                if fd == d or all(a >= b for a, b in zip(d, fd)):
                    best = ft
        return shape, best

    def _add_floor(self, shape: tuple, cr: Compiled, w: int, t: int) -> None:
        """Remember that `cr` over `w` fits nowhere before t (see _floor): floors of that
        shape that ask no less and are no later go (every question they answer this one
        answers with a start no earlier), and only the latest FLOORS are kept.
        O(FLOORS x dims)."""
        got = self._floors.get(shape)
        if got is None:
            got = self._floors[shape] = []
        n, d = cr.tasks, cr.d
        got[:] = [f for f in got if not (f[2] <= t and f[0] >= n and f[1] >= w
                                         and all(a >= b for a, b in zip(f[3].d, d)))]
        got.append((n, w, t, cr))
        if len(got) > FLOORS:
            del got[0]

    @staticmethod
    def _top_sum(fast: int, classes: list[tuple[int, int]], fits: dict[int, int], n: int) -> int:
        vals = sorted(fits.values(), reverse=True)[:n]
        for cm, kc in classes:
            c = min((fast & cm).bit_count(), n)
            vals.extend([kc] * c)
        vals.sort(reverse=True)
        return sum(vals[:n])

    def _check_floors(self) -> None:
        """Assert that every kept floor (see _floor) still holds: a scan from the origin,
        with no floors, finds no start before it."""
        if self._floors_at != (self.freed, self.origin):
            return
        kept, self._floors_at = self._floors, None
        try:
            for shape, got in kept.items():
                assert len(got) <= FLOORS, shape
                for _n, w, t, cr in got:
                    assert t >= self.origin, "floor before the origin"
                    found = self.scan(cr, w)
                    assert found is None or found[0] >= t, f"floor {t} above a start {found[0]}"
        finally:
            self._floors, self._floors_at = kept, (self.freed, self.origin)
