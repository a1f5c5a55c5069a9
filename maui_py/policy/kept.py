"""Kept reservations, a pass over the cycle context (core/cycle.Cycle): Maui's
MQueueScheduleRJobs (spec §3.5.3), run before the priority pass.

Under HIGHEST every kept reservation is re-made at its earliest start each cycle
(policy/highest.py), but one can only move earlier where room came free since it was last
placed: a reservation at its earliest start at the planner's epoch e (`freed`) stays there
unless some start t before its own now fits where it did not at e, which needs a node
that holds more of its tasks over [t, t + w): one where something was given back since
within that window, and which holds a task over all of it (Stamps, _reaches,
Planner.starts_in, exact). Holds added since only take room, and its own room is held
(unless a hold was forced over it, a running job's grown past its limit:
Planner.over_in, re-made). Such a one is left as it is (its re-make would find the start
it has and change nothing); the others are re-made as before, in the same order. A
reservation the priority pass makes is stamped when made (placed). Cost per reservation:
O(regions given back since its stamp x their nodes' segments within reach), plus a scan
bounded to the starts those regions allow for a request of several nodes, instead of
an earliest-start scan from now.
"""

from __future__ import annotations

from itertools import islice, takewhile
from operator import add, attrgetter, itemgetter

from ..cfg.choices import ReservationPolicy
from ..model import StartKind
from ..planning import memo, owners
from ..planning.api import Ability, Compiled, Placement
from . import highest, inplace, keptindex, sparse, wantrows
from .limits import SOFT

REMAKES: dict[ReservationPolicy, bool] = {
    ReservationPolicy.HIGHEST: True,
    ReservationPolicy.CURRENTHIGHEST: False,
    ReservationPolicy.NEVER: False,
}
"""RESERVATIONPOLICY -> whether a priority reservation of an earlier cycle is re-made here at
its earliest start (HIGHEST) or dropped, for the priority pass to make again in order."""


_START = attrgetter("start")
_ID, _JOB = attrgetter("id"), itemgetter(0)

SETTLED = True
"""Leave in place a kept HIGHEST reservation that nothing given back since it was last
placed could move (Stamps); False: re-make every one each cycle, the definition
tests/property/test_kept_settled.py and tests/unit/test_kept_stamps.py compare against."""

FROM_GAIN = True
"""Re-make a kept HIGHEST reservation that room given back could move with its
earliest-start scan begun where that room first lets it fit (Planner.gained_from: no
start before it fits, so the scan from there finds what one from now finds, issue 33);
False: scan from now, the definition tests/property/test_kept_settled.py compares
against."""

QUIET = True
"""Skip HIGHEST's walk (policy/highest.slide_forward) on a cycle where every kept
reservation would be left in place without a look at what was given back: each stamped
at the planner's epoch now, for its job's request and span, held, off unusable and
overcommitted nodes, its start after now, no retry hold active (Stamps.quiet; about half
the cycles of a deep queue, issue 33). False: walk, the definition
tests/property/test_kept_settled.py compares against."""


class Stamps:
    """For one planner: per kept reservation (HIGHEST), the planner's `freed` when it was
    last known at its earliest start with the others held, and the request and span it
    was placed for. A cache (never stored): a reservation without a stamp is re-made."""

    __slots__ = ("table", "at", "left", "remade", "quiets", "floor", "passed", "index", "rows")

    def __init__(self, table):
        self.table = table
        self.index = keptindex.Quiet()
        """quiet()'s last yes, kept while nothing it read changed (policy/keptindex.py)."""
        self.rows = wantrows.Rows()
        """sparse.Want.first's rows as of the last walk (policy/wantrows.py)."""
        self.at: dict[str, tuple[int, Compiled, int]] = {}
        self.floor: int | None = None
        """An epoch at which every kept reservation was at its earliest start with the
        others held (a walk's fixed point, a quiet cycle); one made since is stamped
        later. A stamp older than it counts as it (policy/sparse.py)."""
        self.left = self.remade = self.quiets = self.passed = 0
        """Reservations left in place and re-made, walks skipped (quiet), and reservations
        a walk passed over without a look (policy/sparse.py), summed over cycles
        (operation counts)."""

    def settled(self, c):
        """The test slide_forward asks per reservation, or None when it does not apply
        (reservations the job may use, standing reservations: what a re-make ignores or
        defers for may change from cycle to cycle; a planner that re-plans the kept ones
        together, Ability.REPLAN, which may move one later when the order changes; a
        running job past its planned end, whose hold grows, so a re-make may move one later
        and the walk's order then matters; Maui's own re-make, core/compat.MAUI33_HIGHEST,
        one walk a cycle at a start that need not be the earliest).
        `settled(job, cr, kr)`: True when the
        reservation is at its earliest start with the others held, as it was at its stamp
        (same request and span, its start after now, held, and nothing given back since
        within its reach, and none of its nodes unusable: a re-make moves a reservation off
        a node gone down, which no release shows; nor over capacity in its time: a hold
        forced over it, which a re-make that keeps its start leaves there, so the
        definition may move it later, and this cycle's c.running, empty on an arrival-only
        cycle, does not show); the stamp moves to now either way: left,
        it is at its earliest now; re-made, at its earliest after (what its re-make gives
        back is logged after the stamp). O(steps given back since its stamp), plus O(running
        jobs) once per cycle."""
        if not _applies(c):
            return None
        table, now, at, span = c.table, c.now, self.at, c.span
        if past_end(c.running, now, None if not c.settings.predicting.on else span):
            return None
        holds, down, over, pre = _hold_checks(table)    # rebuilt when `usable` changes
        back: dict[tuple[int, int], list | None] = {}     # (stamp, epoch) -> given back

        def settled(job, cr, kr) -> bool | int:
            w = max(int(span(job)), 1)
            e = memo.epoch(table)
            got = at.get(job.id)
            at[job.id] = (e, cr, w)
            if got is None or got[2] != w or (got[1] is not cr and got[1] != cr):
                self.index.lost()           # a stamp the index's last yes read changed
            floor = self.floor
            own = pre + job.id
            if (got is None or kr.start <= now or got[2] != w
                    or (got[1] is not cr and got[1] != cr) or own not in holds
                    or holds[own].mask & down
                    or (over is not None and over(own))):
                self.remade += 1
                return False
            since = got[0] if floor is None or got[0] > floor else floor
            if since != e:
                key = (since, e)
                regions = back[key] if key in back else back.setdefault(
                    key, table.given_back(since))
                t = _reaches(table, regions, cr, own, now, kr.start, w)
                if t is not None:
                    self.remade += 1
                    return t if FROM_GAIN and t > now else False
            self.left += 1
            return True
        return settled

    def quiet(self, c, order, index: dict[str, int]) -> bool:
        """Would the walk leave every kept reservation as it is without asking what was
        given back? Asked only when settled(c) applies. Yes when each one's stamp is the
        planner's epoch now, for the request and span its job has now, its hold is there,
        on no unusable node and over no capacity, its start is after now and no retry hold
        is active: then settled() answers True for each in turn, in the walk's order, and
        nothing moves, so the epoch stays and the walk ends after one round having changed
        nothing (its stamps are rewritten with the same epoch, request and span; _hold_kept
        finds every hold held). Counted as left. The index (policy/keptindex.Quiet) answers
        first from the last yes when nothing it read changed; else O(reservations), a few
        operations each, in place of the walk's scan set-up per reservation."""
        if not QUIET:
            return False
        e = memo.epoch(c.table)
        res = c.state.reservations
        if self.index.answer(c, order, index, e, self.floor):
            if keptindex.CHECK:
                assert self._all_quiet(c, order, index, e), "quiet index: a stale yes"
        elif self._all_quiet(c, order, index, e):
            self.index.verified(e, c.table, res, order, index)
        else:
            return False
        self.counted_quiet(e, len(res))
        return True

    def counted_quiet(self, e: int, n: int) -> None:
        """Count a quiet answer for n reservations at epoch e (what quiet() counts when it
        answers yes; core/quietkept counts a resumed cycle's with it). O(1)."""
        self.left += n
        self.quiets += 1
        self.floor = e

    def _all_quiet(self, c, order, index: dict[str, int], e: int) -> bool:
        """quiet()'s question asked of every kept reservation (reads only). O(R)."""
        table, now, at, span = c.table, c.now, self.at, c.span
        holds, down, over, pre = _hold_checks(table)
        whole = self.floor == e             # every one known at its earliest now
        for jid, kr in c.state.reservations.items():
            got = at.get(jid)
            if (got is None or (got[0] != e and not whole) or kr.start <= now
                    or (kr.retry_until is not None and kr.retry_until > now)):
                return False
            job, cr, _p = order[index[jid]]
            h = holds.get(pre + jid)
            if (got[2] != max(int(span(job)), 1) or (got[1] is not cr and got[1] != cr)
                    or h is None or h.mask & down or (over is not None and over(pre + jid))):
                return False
        return True

    def prune(self, res) -> None:
        """Forget the stamps of reservations gone (started, dropped). O(stamps), seldom."""
        if len(self.at) > 2 * len(res) + 64:
            self.at = {jid: v for jid, v in self.at.items() if jid in res}


_STARTED, _WALL = attrgetter("start_time"), attrgetter("wallclock")


def _hold_checks(table) -> tuple[dict, int, object, str]:
    """(holds, down, over, prefix) for the per-reservation hold tests of settled() and
    quiet(): `h.mask & down` is the test for an unusable node (0 when every node is usable:
    a hold's mask has no bit outside the table's nodes), `over(own)` Planner.over_in (None
    when no node is overcommitted, where it answers False), prefix + job id its owner
    (owners.priority). The same answers with fewer calls per reservation. O(1)."""
    usable = table.usable
    down = 0 if usable == getattr(table, "all_mask", None) else ~usable
    return (table.holds, down, table.over_in if table.overcommitted else None,
            owners.priority(""))


def past_end(running, now: int, span) -> bool:
    """Is a running job past its planned end: start + min(wallclock, span) <= now (span
    None: the request, the wallclock itself)? Without a span, in one pass in C: the
    earliest start + wallclock (a job not started yet, start_time None, raises and takes
    the general loop). O(running)."""
    if span is None:
        try:
            return min(map(add, map(_STARTED, running), map(_WALL, running)),
                       default=now + 1) <= now
        except TypeError:
            pass
    sp = _WALL if span is None else span
    return any(j.start_time is not None and j.start_time + min(j.wallclock, int(sp(j))) <= now
               for j in running)


def _applies(c) -> bool:
    """Whether stamps apply this cycle (see Stamps.settled, which also asks that no
    running job be past its planned end). O(1)."""
    return (SETTLED and not c.access and not c.settings.has_standing
            and Ability.REPLAN not in c.table.abilities and not c.settings.compat.turns
            and c.settings.compat.walks() is None)


def placed(c, job, cr: Compiled) -> None:
    """Stamp a priority reservation the priority pass has just made at its earliest start
    with the others held (policy/priority_pass.reserve) at the planner's epoch now: as a
    re-make would leave it, so the next kept pass re-makes it only when something given
    back since could move it (Stamps.settled), not once to learn that it stays. The
    reservations made after it in the pass, and the backfill starts, only take room.
    O(1)."""
    if c.settings.res_policy is ReservationPolicy.HIGHEST and _applies(c):
        e, stamps = memo.epoch(c.table), stamps_of(c)
        stamps.at[job.id] = (e, cr, max(int(c.span(job)), 1))
        stamps.index.placed(e, job.id, job, cr, c.state.reservations[job.id].start)


def _reaches(table, regions, cr: Compiled, own: str, now: int, start: int, w: int
             ) -> int | None:
    """Could room given back over `regions` ((node mask, start, end); None: not known) let
    request `cr` over `w` seconds start in [now, start), its own hold `own` as free? Only
    where a window [t, t + w), now <= t < start, meets a region on an eligible node that
    holds one of its tasks over the whole window, and then only if it fits there
    (Planner.gained_from): elsewhere no node holds more of its tasks over any such window
    than it did. None: no; else an instant before which it fits nowhere (now when the
    regions are not known). O(regions x their nodes' segments within reach), plus a
    bounded scan."""
    return now if regions is None else table.gained_from(cr, w, regions, now, start, (own,))


def stamps_of(c) -> Stamps:
    """The cycle's Stamps, made again for a new planner. O(1)."""
    caches = c.state.caches
    got = caches.kept_stamps
    if got is None or got.table is not c.table:
        got = caches.kept_stamps = Stamps(c.table)
    return got

MIN_REPLAN = 4
"""Fewer reservations than this are re-made one by one: building the re-plan's array of the
whole profile costs more than a few earliest-start scans (EASY has one)."""


def _positions(order, wanted) -> dict[str, int]:
    """Where the jobs in `wanted` stand in `order` (those that are in it): the scan stops at
    the last of them, which under priority order is near the front. O(position of the last)."""
    n = len(wanted)
    ids = list(map(_ID, map(_JOB, order[:n])))
    if ids == list(wanted):             # the common case: they head the order, in order
        return dict(zip(ids, range(n)))
    left = n
    index: dict[str, int] = {}
    for k, (job, _cr, _p) in enumerate(order):
        if job.id in wanted:
            index[job.id] = k
            left -= 1
            if not left:
                break
    return index


def _unmoved(c, order) -> set[str]:
    """The reservations of the first jobs in order, made in that same order (the
    dictionary keeps it), placed as a cycle with no memory would place them: as they are
    when nothing came free since they were made, else re-made in order on the count
    table (Planner.replan, Ability.REPLAN). Each was made at its earliest start around the ones before
    it and what held processors then; what came since was placed around all of them. One
    whose earliest start is now is left out, to be re-made (its hold already released): it
    fits now around the ones after it, which were placed around that start.
    O(reservations) plus the table's re-plan."""
    st, now, table = c.state, c.now, c.table
    if Ability.REPLAN not in table.abilities:
        return inplace.left(c, order)       # the node table: those a re-make gives back
    res = st.reservations
    freed = memo.epoch(table)
    stamp = st.caches.reserved_stamp
    request = not c.settings.predicting.on
    span = c.span
    m = 0                   # reservations seen with no retry hold
    odd = None              # the first whose span differs from its job's
    if c.kept_head and res and min(map(_START, res.values())) > now:
        m = len(res)        # every one: none starts by now (the rest is known)
    for (job, _cr, _p), (jid, kr) in zip(order, res.items()) if not m else ():
        if job.id != jid or kr.start <= now or (kr.retry_until is not None
                                                and kr.retry_until > now):
            break
        if odd is None:
            w = job.wallclock if request else int(span(job))
            if kr.end - kr.start != (w if w > 1 else 1):
                odd = m
        m += 1
    held = owners.priorities(islice(res, m))     # their holds' owners
    holds = table.holds
    if not all(map(holds.__contains__, held)):
        del held[sum(1 for _ in takewhile(holds.__contains__, held)):]
    n = len(held)
    if n and c.limits.any_active:
        n = _under_soft(c, order, n)
    if not n or stamp == freed:
        return set(islice(res, n))
    if n < MIN_REPLAN or c.access or c.limits.any_active or (
            m < len(res) and any(kr.retry_until is not None and kr.retry_until > now
                                 for kr in res.values())):
        return set()
    if odd is not None and odd < n:
        n = odd
    every = len(held) == len(res)           # and each of them holds (checked above)
    done, moves = table.replan(held if every else owners.priorities(res), n,
                               table.freed_until(stamp), all_held=every)
    keep = set(res) if done == len(res) else set(islice(res, done))
    cut = len(owners.priority(""))
    for o, t in moves:
        jid = o[cut:]
        if t > now:
            kr = res[jid]
            kr.end += t - kr.start
            kr.start = t
        else:
            keep.discard(jid)
    return keep


def _under_soft(c, order, n: int) -> int:
    """How many of the first n jobs of `order` (those the first n reservations are for) come
    before the first one over a soft limit now. The priority pass blocks such a job before it
    may reserve (a cycle with no memory makes it no reservation), and a start since its
    reservation was made (a backfill of its user or group) can put it over while nothing came
    free. O(n) limit checks."""
    run_now, usage, limits = c.state.run_now, c.usage, c.limits
    for k in range(n):
        job = order[k][0]
        if job.id not in run_now and limits.active_violation(job, usage, SOFT):
            return k
    return n


def reserved_jobs(c, order) -> None:
    """Reservations made in earlier cycles (Maui's MQueueScheduleRJobs).

    HIGHEST keeps every one and slides it forward (policy/highest.py), leaving in place
    those nothing given back since could move (Stamps: see the module docstring). CURRENTHIGHEST
    and NEVER drop them, for the priority pass to make again in order, except those a
    cycle with no memory would make the same: under the count planner the reservations
    of the first jobs in order, made in that same order (the dictionary keeps it), as
    they are when nothing came free since they were made, else re-planned in order on
    one array, the table touched only for those that move (_unmoved). (On the node
    table they are dropped: a kept one would keep nodes a fresh choice, made after the
    backfill starts since, would not take, and a cycle with no memory must decide the
    same; those whose re-make would give them back as they are stay: policy/inplace.py.)
    Retry holds (RESERVATIONRETRYTIME) try to start on their own resources.
    """
    st = c.state
    if not st.reservations:
        return
    if c.settings.res_policy is ReservationPolicy.HIGHEST:
        index = _positions(order, st.reservations)
        _drop_gone(c, index)
        stamps = stamps_of(c)
        settled = stamps.settled(c)
        if settled is None or not stamps.quiet(c, order, index):
            want = None if settled is None else sparse.Want(c, stamps)
            fixed = highest.slide_forward(c, order, index,
                                          lambda jid: _retry(c, order, index[jid]),
                                          settled, want)
            if settled is not None:
                stamps.floor = memo.epoch(c.table) if fixed else None
                if fixed:
                    stamps.index.walked(c, order, index, stamps.floor)
        stamps.prune(st.reservations)
        return
    keep = _unmoved(c, order)
    if len(keep) == len(st.reservations):
        return                      # every one is a job at the head of the order, in place
    index = _positions(order, st.reservations)
    _drop_gone(c, index)
    now = c.now
    retries = []
    for jid in [j for j in st.reservations if j not in keep]:
        kr = st.reservations[jid]
        if kr.retry_until is not None and kr.retry_until > now:
            retries.append(jid)
        else:
            c.table.release(owners.priority(jid))
            del st.reservations[jid]
    for jid in sorted(retries, key=index.__getitem__):
        _retry(c, order, index[jid])


def _drop_gone(c, index: dict[str, int]) -> None:
    """Release the reservations of jobs no longer in the order (held, deferred, gone)."""
    st = c.state
    if len(index) < len(st.reservations):
        for jid in [j for j in st.reservations if j not in index]:
            c.table.release(owners.priority(jid))
            del st.reservations[jid]


def _retry(c, order, k: int) -> None:
    """A job whose start failed keeps its resources for RESERVATIONRETRYTIME: it starts
    on them once its time has come and they are free, else holds them on."""
    job, _cr, _prio = order[k]
    kr = c.state.reservations[job.id]
    now = c.now
    if kr.start <= now and not c.limits.active_violation(job, c.usage, SOFT):
        c.table.release(owners.priority(job.id))
        if c.table.fits(kr.allocation, now, now + c.span(job)):
            c.start(job, Placement(now, now + c.span(job), kr.allocation), StartKind.RESERVED, k)
            return
        c.table.reserve(owners.priority(job.id), kr.start, kr.end, kr.allocation,
                        kind="priority", force=True)
