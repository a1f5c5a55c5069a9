"""Cycles from what changed: the queue's order kept, and arrival-only cycles resumed.

When the adapter's SnapshotDelta says which jobs arrived, started and ended, and no queued
job changed, the jobs queued at the last cycle are as eligible as they were and, with a
priority order that still holds, in the same order: the order is kept instead of
re-classifying, re-prioritising and re-sorting the whole queue; only the new jobs are
examined. After job ends the passes (kept reservations, priority pass, backfill) then run
over that order as in a full cycle.

A full cycle walks every queued job several times. When the snapshot differs from the last
one only by jobs that arrived and by the starts the last cycle pushed (the adapter's
SnapshotDelta says so), nothing came free, no change point of the planner was passed and the
priority order of the jobs already queued still holds, then every job already queued fares
as it did in the last cycle: it keeps its reservation, or fails to fit again (resources only
shrank and its window can only have narrowed), or stays beyond the reservation depth. Only
the new jobs can start, reserve, or be deferred, and the last cycle's priority pass can be
resumed where it ended. The result is the decisions a full cycle would make, checked by
tests/property/test_incremental_cycle.py against cycles built from scratch.

On the node table the same argument holds (what is free only shrinks until `freed` moves,
on every node and in every dimension), with one more step: a cycle with no memory re-makes
the priority reservations (policy/kept.py drops them there), and the node choice may differ
once backfill has taken nodes since. The arrival cycle re-makes them in order as that cycle
would and resumes only when each lands where it was (start, end and nodes); else the passes
run in full over the kept order. The table stays the node table as long as the nodes or a
job still queued rule the count planner out (_stays).

Applies with QUEUEPOLICY MAUI, no fair share, no throttling limits, no non-job reservations
and service-only priorities (queue time, expansion factor, bypass), with explain off, on
either planner. Cost: O(new jobs x P) for the planner questions (plus one earliest start per
kept reservation on the node table) and O(queued) for re-checking the order with one O(1)
priority per job, against the full cycle's several walks of the queue with eligibility,
limits and sorting.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

from ..cfg.choices import NodeAllocation
from ..model import Defer, JobState, Reserve
from ..planning import memo, owners
from ..planning.api import Ability, EndCursor, NoPlacement, Planner
from ..planning.applies import counts_request
from ..planning.sync import sync_table
from ..policy import backfill, deferral, inplace, kept, prediction
from . import deferouts, quietkept, restarts, swapresume
from .records import KeptReservation
from ..priority import kinlist
from ..priority.engine import order_key
from ..priority.policy import MauiOrder
from .keptorder import common_static, drop, ends_only, order_now, places
from .passes import Resume, run_passes
from .result import CycleResult

if TYPE_CHECKING:
    from .context import CycleContext as Cycle

_IDLE = JobState.IDLE
_MIXED = object()
_INF = float("inf")
_UNSET = object()
_RETRY_UNTIL = attrgetter("retry_until")
_TASKS = attrgetter("tasks")
_COMPILED = itemgetter(1)
_JOB = itemgetter(0)
_PRIO = itemgetter(2)


@dataclass(slots=True)
class ChangeCache:
    """What a full (or arrival) cycle leaves for the next one to resume from. A cache: the
    store never writes it, and a cycle without it runs in full."""

    seq: int
    cfg: Any
    nodes: tuple
    table: Planner
    epoch: int
    """The table's epoch (planning/memo.epoch) when the cycle ended."""
    order: list
    """The cycle's priority order without the jobs it started: (job, compiled, priority)."""
    ids: list[str]
    pass_end: tuple
    """The priority pass's state after the last job it looked at (see policy/priority_pass.py)."""
    reserves: list[Reserve]
    static: float | None
    """The one static priority part of every job in order (None: they differ): with a
    linear priority and no accrual restarts the order then never changes with time."""
    engine: Any = None
    limits: Any = None
    """The cycle's priority engine and limits, for arrivals_wait and ends_wait (set when
    they may apply: the order is fixed, no runtime predictions)."""
    waits: bool = False
    """A new job that cannot start now would change nothing a later cycle would not make
    the same (arrivals_wait): the priority pass ended for good (it looks at no job after the
    last), or it may still reserve but each cycle places every reservation where a cycle
    with no memory would make it, in order (RESERVATIONPOLICY CURRENTHIGHEST; on the count
    planner only: on the node table the pass must have ended for good, and, under a policy
    that makes them anew each cycle, no backfill start passed the reservations it made
    unless the node choice is static (static_choice): else a re-make after that start may
    choose other nodes and move one, tests/property/test_idle_arrivals.py's fixed example)."""
    least: int = -1
    """The fewest processors a job in `order` asks (-1: not counted yet; ends_wait)."""
    counts: bool = True
    """The table is the count planner (Ability.COUNTS); else the node table."""
    nap: Any = None
    """NODEALLOCATIONPOLICY as the cycle passed it (the node table's start-now question)."""
    ends: bool = True
    """ends_wait may apply: when every cycle re-makes the priority reservations anew (not
    HIGHEST: an early end gives room back the left-out cycle would slide kept ones into,
    and a later slide may order them otherwise) and, on the node table, no backfill start
    passed those this cycle made, or the node choice is static (see `waits`)."""
    cursor: EndCursor | None = None
    """ends_wait's cursor over the table's ends (planning/endheap.EndCursor)."""
    pending: list[str] = field(default_factory=list)
    """Owners the cursor found ending by then whose jobs were not among the ended yet."""
    ended_set: set[str] = field(default_factory=set)
    ended_seen: int = 0
    """ends_wait's `ended` as a set, and how much of the list it holds."""
    untouched: bool = False
    """No job started after the first kept reservation was placed (every start of the
    cycle stands before it in the order): the table then holds what it held when each
    reservation was made, and a cycle with no memory re-makes them in place
    (_placed_again)."""
    defer_floor: float = 0
    defer_count: int = -1
    """At most the earliest positive `until` of the state's defer records, and how many
    records there were, when the cycle ended (no_defer_out)."""
    until: int = -1
    """`order` is ranked (strictly increasing order_key) at every instant up to this one
    (priority/kinetic.py; -1: not known): the next cycle need not re-rank it before."""
    held: dict | None = None
    """The object of every job whose defer record still runs (core/deferouts.held)."""


def applies(c: Cycle) -> bool:
    """The configuration and policies allow arrival-only cycles. O(1)."""
    return (c.settings.count_policy and not c.explain and c.engine.serv_only
            and type(c.state.queue_policy) is MauiOrder
            and not c.state.queue_policy.fs.enabled
            and not c.limits.any_active and not c.limits.any_idle and not c.settings.reject_neg
            and c.settings.bf_depth == 0 and c.settings.bf_pass.resumable)


def _stays(c: Cycle, entries) -> bool:
    """Would a full cycle whose queue holds `entries` (and more) plan on the planner it has?
    The count planner: yes (run() checks each arrival is a count request). The node table:
    when the nodes rule the count planner out (Cycle._counting's cache), or a job of
    `entries` asks what it cannot plan. O(1), or O(entries) until such a job."""
    if Ability.COUNTS in c.table.abilities:
        return True
    cc = c.state.caches.counting
    if cc is None or cc.nodes is not c.snap.nodes:
        return False
    return not cc.applies or not all(counts_request(e[0].request) for e in entries)


def remember(c: Cycle, order: list, static=_MIXED, ids: list[str] | None = None,
             until: int = -1, last: ChangeCache | None = None,
             released: bool = False) -> ChangeCache | None:
    """The cache a finished cycle leaves, or None when the next cycle must run in full:
    a planner the next cycle may not keep, reservations that are not the first jobs of the
    order, a retry hold, a job deferred or started at its reservation during the passes.
    `ids`: the ids of `order`, given by run() (whose jobs are known to have no system
    priority: the last cache's and arrivals checked for it; run() also checked applies()
    for this very cycle, and no retry hold can be active then: the last cache had none, and
    only a failed start makes one, after which run() does not apply). The cache keeps
    `order` itself when no job started: the caller is done with it. `last`: the cache
    this cycle ran from (run()), for defer_floor; `released`: it released defers (the
    floor is walked again). O(queued). On the node
    table only for a snapshot with a SnapshotDelta: an adapter that gives none (mauid's)
    would pay O(queued) a cycle for a cache no cycle reads."""
    st = c.state
    table = c.table
    given = ids
    if ((ids is None and not applies(c)) or c.held
            or c.snap.delta is None and Ability.COUNTS not in table.abilities or c.pass_defers
            or c.res_started or st.system_priority or st.run_now or st.caches.plan.external
            or c.pass_end is None):
        return None
    started = c.started
    where = places(order, started, c.positions) if started else None
    left = (order if not started else [e for e in order if e[0].id not in started]
            if where is None else drop(order, where))
    res = st.reservations
    if len(res) > len(left) or not _stays(c, left):
        return None
    if ids is None:
        for job, _cr, _p in left:
            if job.system_priority:
                return None
        ids = [e[0].id for e in left]
    else:
        ids = (ids[:] if not started else [jid for jid in ids if jid not in started]
               if where is None else drop(ids, where))
    if ids[:len(res)] != list(res):
        return None
    if given is None and any(map(_RETRY_UNTIL, res.values())):
        for kr in res.values():
            if kr.retry_until is not None and kr.retry_until > c.now:
                return None
    static = (static if static is not _MIXED else common_static(c.engine, left)
              if c.engine.order_fixed and restarts.none_queued(st.queue_time, left) else None)
    fixed = static is not None and not c.settings.predicting.on
    counts = Ability.COUNTS in table.abilities
    remakes = kept.REMAKES[c.settings.res_policy]
    # the jobs before the first kept one all started; none after it did
    untouched = bool(res) and len(started) < len(order) and order[len(started)][0].id == ids[0]
    # on the node table a reservation made from scratch, then passed by a backfill start, may
    # be made elsewhere by the next cycle (unless the node choice is static): no fixed point
    fresh = (counts or remakes or not (c.bf_positions and res)
             or static_choice(c.settings.nap, left[:len(res)]))
    return ChangeCache(c.snap.seq, c.cfg, c.snap.nodes, table, memo.epoch(table), left,
                       ids, c.pass_end, c.reserve_decisions, static,
                       c.engine if fixed else None, c.limits if fixed else None,
                       fixed and fresh and (c.pass_end[4] or not remakes and counts),
                       counts=counts, nap=c.settings.nap, ends=fresh and not remakes,
                       untouched=untouched, until=until,
                       defer_floor=defer_floor(c, None if released else last),
                       defer_count=len(st.deferred), held=deferouts.held(c, last))


STATIC_CHOICE = True
"""Under a node choice whose keys do not move a backfill start passes no fixed point
(static_choice); False: on the node table any backfill start with reservations does."""

_STATIC_KEYS = frozenset({NodeAllocation.FIRSTAVAILABLE, NodeAllocation.MINRESOURCE,
                          NodeAllocation.PRIORITY, NodeAllocation.FASTEST})


def static_choice(nap, reserved: list) -> bool:
    """Does a cycle with no memory re-make, after this cycle's backfill starts, each
    reservation the cycle made anew (`reserved`: their order entries) where it was made?
    Yes when the node choice orders the feasible nodes by keys that are the node's own
    (planning/nodechoice.KEYS: index, configured size, priority, speed; not LASTAVAILABLE's
    times, CPULOAD's load, Maui 3.3's rules) and each request takes tasks node by node in
    that order (not a node count's swaps by fit). A start only takes room, never the room a
    reservation holds: re-made in order, each finds no earlier start, and at its start a
    node holds at least the tasks it took there and at most what it held (a node it filled
    holds the same, one it passed still none): the same nodes. O(len(reserved))."""
    return (STATIC_CHOICE and nap in _STATIC_KEYS
            and all(e[1] is not None and e[1].mode != "nodes" for e in reserved))


def arrivals_wait(st, jobs, now: int) -> bool:
    """Would a cycle at `now`, whose snapshot adds only `jobs` (just arrived) to the last
    one, start nothing and change nothing that the next cycle would not make the same? So
    when the last cycle left a cache whose `waits` holds (its priority pass ended for good;
    or, on the count planner, a job may still reserve, but under CURRENTHIGHEST the next
    cycle places the reservation where this one would have, nothing having changed since,
    as a cycle with no memory would; under HIGHEST one made here is kept and its job would
    start RESERVED, not IMMEDIATE), the order is fixed (each job goes last), nothing frees
    or is planned to change by now, no defer runs out, and each job is plain (idle, no
    hold, dependency, system priority or system limit; on the count planner one-processor
    tasks, on the node table a request the nodes can hold) and cannot start (_cannot_start).
    A replay may leave that cycle out: the next one takes the jobs among its arrivals, in
    the same place of the order, and decides what the two would have
    (tests/property/test_idle_arrivals.py). O(len(jobs)), plus O(P) per reservation for
    the gates or one start-now question per job, and O(defers) when any."""
    cache = _left_as_was(st, now)
    if cache is None or not cache.waits:
        return False
    table = cache.table
    if table.next_change() <= now:
        return False
    free, static = table.free_now, cache.static
    static_sum, system_violation = cache.engine.static_sum, cache.limits.system_violation
    gates = [_UNSET]        # made for the first job narrow enough; None: ask the planner
    for job in jobs:
        if (job.state is not _IDLE or job.holds or job.system_priority or job.id in st.queue_time
                or not job.depends_satisfied or static_sum(job) != static
                or system_violation(job)):
            return False
        cr = _compiled(cache, table, job)
        if cr is None or job.procs <= free and not _cannot_start(cache, st, job, cr, now,
                                                                  gates):
            return False
    return True


def _compiled(cache: ChangeCache, table, job):
    """The job's request as the planner plans it, when a cycle would keep the job queued
    without a decision: on the count planner a count request the nodes can hold (its
    tasks), on the node table one the nodes can hold (NoPlacement is deferred); else None.
    O(1) with the table's compile cache."""
    req = job.request
    if cache.counts:
        return req.tasks if counts_request(req) and req.tasks <= table.total else None
    cr = table.compile(req, job.class_)
    return None if isinstance(cr, NoPlacement) else cr


def _cannot_start(cache: ChangeCache, st, job, cr, now: int, gates: list) -> bool:
    """The job, narrow enough for what is free, still cannot start now: it would run past
    a reservation's start with more processors than are free there (backfill's gates, on
    the count planner with at most MAX_GATES reservations), or it does not fit now for its
    wallclock (the planner's start-now question). `gates`: [gates], made on first use."""
    table, n, w = cache.table, job.procs, job.wallclock
    if not cache.counts:
        return _fails_later(st.caches.shrink if memo.CARRY else None, table, cr, w, now,
                            cache.nap)
    if gates[0] is _UNSET:
        res = st.reservations
        gates[0] = (backfill.reservation_gates(res, table, now)
                    if len(res) <= backfill.MAX_GATES else None)
    if gates[0] is None:
        return table.scan_count(n, w, now, now) is None
    return any(n > cap and w > room for room, cap in gates[0])


def _fails_later(last, table, cr, w: int, now: int, nap) -> bool:
    """The node table's start-now question at `now`, after the origin and before its first
    change point with nothing given back since the last cycle (arrivals_wait's conditions),
    with the last cycle's failures (its Cycle.shrink, `last`; None: none) as a memo: usage
    is constant from the origin to now, so a failure noted at this epoch there, or at an
    earlier instant of this run, is one now (the window now reaches no less far:
    planning/memo.Carried's argument); a failure found is noted there, for the next such
    question and for the next cycle's memo.Carried, which asks it no earlier. O(kept
    failures x dims), or the planner's question."""
    e = memo.epoch(table)
    shape = (cr.eligible, cr.mode, cr.per_node, cr.nodes_needed, cr.exclusive, ())
    ok = last is not None and last.epoch in (e, None)     # failures noted at this epoch
    if ok and last.epoch == e and last.fails(e, shape, cr.tasks, w, cr.d):
        return True
    if table.earliest_start(cr, w, now, policy=nap, until=now):
        return False
    if ok:
        last.note(e, shape, cr.tasks, w, cr.d)
    return True


def ends_wait(st, ended: list[str], freed: int, least: float, now: int) -> bool:
    """Would a cycle at `now`, whose snapshot differs from the last one only by the jobs
    `ended` (holding `freed` processors) and by jobs that arrived and were left out
    (arrivals_wait; the narrowest asks `least` processors, inf for none), decide nothing?
    So when the order is fixed (as for arrivals_wait; the pass need not have ended for good),
    no defer runs out, no hold but the ended jobs' ends by now, and fewer processors are
    free than any queued job asks: nothing starts, and the reservations, placed as a cycle
    with no memory places them, are where the next cycle puts them (whatever is planned
    before that cycle is planned where only an end at it, or a start, could change it;
    every cycle re-makes them from scratch: not under HIGHEST, `ChangeCache.ends`).
    A replay may leave the cycle out (tests/property/test_idle_arrivals.py). O(queued) in
    C the first time for one cache, then O(ended + ending by now)."""
    cache = _left_as_was(st, now)
    if cache is None or not cache.ends:
        return False
    table = cache.table
    q = cache.least
    if q < 0:
        order = cache.order
        q = cache.least = (1 << 62 if not order else min(map(_TASKS, map(_COMPILED, order)))
                           if cache.counts else min(e[0].procs for e in order))
    return table.free_now + freed < min(q, least) and _ends_only_since(table, now, ended, cache)


END_CURSOR = True
"""_ends_only_since reads the holds ending by `now` through one cursor per cache (each end
looked at once over a run of left-out cycles) instead of asking ending_by each time (every
end by `now` again: quadratic in the run's length). Off: the definition, for the tests."""


def _ends_only_since(table, now: int, ended: list[str], cache: ChangeCache) -> bool:
    """_ends_only for ends_wait's run of questions (`ended` a list): a hold that ends without its
    job's end needs the full sync. Within one cache's life (the cycles left out after a
    cycle) the table is untouched, `now` grows and `ended` only grows (the simulator
    empties it when a cycle runs, which makes a new cache), so an owner once found in
    `ended` stays there: only the cursor's new owners and those not found yet (`pending`)
    are looked up. O(new + pending), O(H) once per cache; off: O(k log k), k holds
    ending by now."""
    if not END_CURSOR:
        return ends_only(table, now, set(ended))
    if len(ended) < cache.ended_seen:         # not the list it was: start again
        cache.cursor, cache.ended_set, cache.ended_seen = None, set(), 0
    cur = table.end_cursor(cache.cursor)
    if cur is not cache.cursor:               # the first question, or the holds changed
        cache.cursor, cache.pending = cur, []
    if len(ended) != cache.ended_seen:
        cache.ended_set.update(ended[cache.ended_seen:])
        cache.ended_seen = len(ended)
    done = cache.ended_set
    pend = [o for o in cache.pending if owners.job_of(o) not in done]
    pend.extend(o for o in cur.advance(now) if owners.job_of(o) not in done)
    cache.pending = pend
    return not pend


def _left_as_was(st, now: int) -> ChangeCache | None:
    """The last cycle's cache, when the state is as that cycle left it for arrivals_wait
    and ends_wait: a cache for a fixed order without predictions, its table untouched
    since, no failed start, runjob, setspri or external hold, no defer running out by
    now; else None. O(1), plus O(defers) when any."""
    cache = st.caches.changes
    if (cache is None or cache.engine is None or st.failed or st.run_now or st.system_priority
            or st.caches.plan.external or st.caches.plan.table is not cache.table
            or memo.epoch(cache.table) != cache.epoch):
        return None
    return cache if no_defer_out(st, cache, now) else None


DEFER_FLOOR = True
"""Ask whether a defer runs out by `now` (no_defer_out) against a lower bound of the
defer records' positive `until`s kept in the cache (defer_floor, kept either way),
walking the records only when the bound is reached; False: walk them every time (once a
cycle from what changed, once more each idle-time question), the definition
tests/property/test_defer_floor.py compares against."""


def defer_floor(c: Cycle, last: ChangeCache | None) -> float:
    """A lower bound of every positive `until` of the state's defer records after cycle
    `c`. A cycle from `last` (run()) changed them only by defer() (a new positive `until`,
    named by the Defer decision it appends), by a batch hold or release (an `until` set to
    0) and by dropping records: last's bound, or a Defer of this cycle. A full cycle
    (`last` None) walks the records. Between cycles only the daemon's handlers touch them,
    by dropping one. O(decisions), or O(defer records)."""
    if last is None:
        return min((r.until for r in c.state.deferred.values() if r.until > 0), default=_INF)
    out = last.defer_floor
    for d in c.decisions:
        if type(d) is Defer and d.until < out:
            out = d.until
    return out


def no_defer_out(st, cache: ChangeCache, now: int) -> bool:
    """No defer record of `st` runs out by `now` (0 < until <= now), `cache` being the
    last cycle's: at once when its defer_floor lies after now and the records are as
    many as it left (one added since, other than by a cycle, is walked). O(1), else
    O(defer records)."""
    if not st.deferred or (DEFER_FLOOR and cache.defer_floor > now
                           and len(st.deferred) == cache.defer_count):
        return True
    return not any(0 < r.until <= now for r in st.deferred.values())


def _forget(st, engine, ended) -> None:
    """What Cycle._forget_gone does for jobs that ended (none of them is queued, so none
    holds a reservation). O(ended)."""
    for d in (*st.by_job(), st.caches.compiled):
        if d:
            for jid in ended:
                d.pop(jid, None)
    for jid in ended:
        engine.forget(jid)


def run(c: Cycle) -> CycleResult | None:
    """The cycle for a snapshot that only adds jobs to the last one, or None (run in full).
    Nothing is changed before it is sure it applies, except the table's sync with the
    snapshot, which a full cycle repeats harmlessly."""
    st = c.state
    cache: ChangeCache | None = st.caches.changes
    st.caches.changes = None
    found = _usable(c, cache)
    if found is None:
        return None
    quiet, new, releasing = found
    now, table, d = c.now, cache.table, c.snap.delta
    kept_order = order_now(c, cache, new, quiet)
    if kept_order is None:
        return None
    fresh, static, reorder, quiet, (until, last) = swapresume.kept(c, cache, kept_order, found[0])
    jobs = d.jobs
    c.by_id = jobs
    c.running = []
    c.table = sync_table(st.caches.plan, c.snap, (), jobs, c.settings.overrun, cache.counts,
                         **({"span": prediction.planned_span(c.cfg, st.predictions)}
                            if c.settings.predicting.on else {}))
    if c.table is not table or (quiet and memo.epoch(table) != cache.epoch):
        return None
    out = deferouts.released(c, cache, new) if releasing else []
    if out is None:
        return None
    st.iteration += 1
    c.held, c.access, c._ign_cache = {}, {}, {}
    c.policy = st.queue_policy
    c.passive_policy = True
    if c.settings.predicting.on:
        prediction.observe(c, now, d.ended, [jobs[j] for j in sorted(d.started) if j in jobs],
                           new)
    if d.ended:
        _forget(st, c.engine, d.ended)
    deferral.settle_starts(c)
    if releasing:
        deferral.release_defers(c)      # each queued one left out again (deferouts.py)
    added = c.select(out + new if out else new)
    order = fresh + added
    if reorder is True:             # ranked by the priorities now, and dated (kinetic.py)
        order.sort(key=lambda e: order_key(e[0], e[2]))
        until = kinlist.date_all(c.engine, list(map(_JOB, order)), list(map(_PRIO, order)),
                                 now, st.queue_time)
    else:                           # kept, or sorted by the kinetic list (kinlist.SWAPPED)
        until = kinlist.extend(c.engine, until, last, added, now, st.queue_time)
    if quiet and not cache.counts and st.reservations:      # HIGHEST: quietkept.py
        quiet = (quietkept.left_in_place(c, cache, order) if kept.REMAKES[c.settings.res_policy]
                 else cache.ends and (cache.untouched or _placed_again(c, order)))
    if quiet:
        run_passes(c, order, [], resume=Resume(len(fresh), cache.pass_end), reuse=cache.reserves)
    else:
        c.kept_head = not reorder and not c.settings.predicting.on
        run_passes(c, order, [], known=cache.reserves)
    st.last_now = now
    ids = kinlist.ids_of(c.engine, order, until) if reorder else cache.ids + [e[0].id for e in added]
    st.caches.changes = remember(c, order, static, ids, until, cache, releasing)
    return CycleResult(now, st.iteration, c.decisions, c.reports, st, ids, c.priorities, [],
                       len(c.reserve_decisions))


def _usable(c: Cycle, cache: ChangeCache | None) -> tuple[bool, list, bool] | None:
    """(quiet, the arrived jobs, a defer runs out) when `cache` is the last cycle's and the
    snapshot only adds jobs, ends some and confirms the last starts; else None. Quiet:
    nothing ended or came free and no change point passed; a defer that runs out is left
    to deferouts.released. Reads, changes nothing. O(arrived + pending + defers)."""
    st, snap = c.state, c.snap
    d = snap.delta
    if (cache is None or d is None or d.prev_seq != cache.seq or d.changed
            or d.nodes_changed or snap.nodes is not cache.nodes or c.cfg is not cache.cfg
            or st.caches.plan.table is not cache.table or snap.reservations or st.failed
            or st.system_priority or st.run_now or st.caches.plan.external or not applies(c)):
        return None
    now, table, ended = c.now, cache.table, d.ended
    quiet = not ended and memo.epoch(table) == cache.epoch and table.next_change() > now
    if not quiet and not ends_only(table, now, ended):
        return None
    jobs = d.jobs
    for jid in st.pending:
        job = jobs.get(jid)
        if job is None and jid in ended:
            continue                    # started and ended since: settled as gone
        if job is None or not job.state.active:
            return None
    releasing = not no_defer_out(st, cache, now)
    if releasing and not deferouts.RELEASES:
        return None
    new = []
    for jid in d.arrived:
        job = jobs.get(jid)
        if job is None or job.state is not _IDLE or job.system_priority \
                or cache.counts and not counts_request(job.request):
            return None
        new.append(job)
    return quiet, new, releasing


def _placed_again(c: Cycle, order: list) -> bool:
    """On the node table: re-make the priority reservations (the first jobs of `order`, in
    order) at their earliest start, as a cycle with no memory does (policy/kept.py drops
    them there and the priority pass makes them again: the jobs did not fit now before and
    only less is free). True when each lands where it was (start, end, nodes): the last
    pass may then be resumed. Else False, the ones re-made so far held and the rest
    released: the passes then run in full, and make them again. Each job is first asked
    the start-now question, as the priority pass asks it: the table's node choice may
    read what that question left in its floors (planning/scan.py), and a cycle with no
    memory asked it. O(reservations) scans. Not asked when the cache is `untouched`: no
    hold was added since they were made (quiet: nothing ended, came free or passed a change
    point, and the origin's move crosses no change point), so each earliest start and
    node choice is the one made then; nor when each is what its re-make gives by
    policy/inplace.left's argument (then True, nothing touched)."""
    st, table, now = c.state, c.table, c.now
    res = st.reservations
    if len(inplace.left(c, order)) == len(res):
        return True                 # each is what its re-make gives (policy/inplace.py)
    items = list(res.items())
    for jid, _kr in items:
        table.release(owners.priority(jid))
    res.clear()
    for (jid, kr), (job, cr, _p) in zip(items, order):
        if job.id != jid or c.fits_now(job, cr):
            return False            # (asked as the priority pass asks it: see the docstring)
        p = table.earliest_start(cr, c.span(job), now, policy=c.settings.nap)
        if not (p and now < p.start == kr.start and p.end == kr.end
                and p.allocation == kr.allocation):
            return False
        table.reserve_placement(owners.priority(jid), p, kind="priority")
        res[jid] = KeptReservation(jid, p.start, p.end, p.allocation, kr.group, now)
        inplace.placed(c, job, cr)
    return True
