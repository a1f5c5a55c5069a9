"""The priority pass over the cycle context (core/cycle.Cycle): Maui's MQueueScheduleIJobs
(spec §3.5.2). In priority order each job starts now if it fits without touching any
reservation, else gets a priority reservation while its RESERVATIONDEPTH group has room; the
first job that can do neither ends the pass, and so does the last reservation when backfill
takes the shortest jobs first (BFPRIORITYPOLICY).
"""

from __future__ import annotations

from collections import Counter
from itertools import islice, takewhile
from operator import attrgetter, itemgetter

from ..cfg.choices import BackfillOrder, ReservationPolicy
from ..core.records import KeptReservation
from ..model import Job, StartKind
from ..planning import memo, owners
from ..planning.api import Ability, Compiled, NoPlacement, Placement
from . import deferral, inplace, kept
from .limits import SOFT

_ID, _JOB, _GROUP = attrgetter("id"), itemgetter(0), attrgetter("group")
NO_ROOM = NoPlacement("fewer processors free now than the job needs")
SHORTEST_FIRST = frozenset({BackfillOrder.DURATION, BackfillOrder.HWDURATION})
"""BFPRIORITYPOLICY values that order backfill shortest first: with them the priority pass
ends once every reservation it may make is made (EASY-SJBF: the queue's head starts while it
fits, the first blocked job reserves, the rest are backfill candidates)."""

RESERVES: dict[ReservationPolicy, bool] = {
    ReservationPolicy.CURRENTHIGHEST: True,
    ReservationPolicy.HIGHEST: True,
    ReservationPolicy.NEVER: False,
}
"""RESERVATIONPOLICY -> whether the priority pass gives jobs priority reservations."""


REMADE_HEAD = True
"""Count the leading run of jobs holding a kept reservation in C (_reserved_head) rather
than one by one in the pass's loop; False: the loop (the definition
tests/property/test_kept_index.py compares against)."""

SKIP_BLOCKED = True
"""With explain off, a job whose limit plan (Limits.active_plan) a soft limit stopped
earlier in the pass is passed over as blocked without asking its limits again: within a
cycle the active usage only grows (Usage.add, non-negative amounts; nothing is taken out
until the next cycle's usage), so a plan over a limit stays over it, and without explain
the pass reads only that the job was blocked (blocked_soft is read by the reports;
`waiting`, set by the plan's first job, is True already). A plan is held in the pass's
map, so its id names no other object meanwhile. False: every job asked (the definition
tests/property/test_pass_skip_blocked.py compares against)."""


def priority_pass(c, order, first: int = 0, resume: tuple | None = None) -> None:
    """`resume`: the state the last cycle's pass ended in, to go on from job `first`
    (core/changes.py); the state this pass ends in is left in c.pass_end."""
    st, now = c.state, c.now
    counts, idle_found, waiting, c.stop_reason, broke = _begin(resume)
    stays = {} if SKIP_BLOCKED and not c.explain and c.limits.any_active else None
    plans = c.limits.plans              # job id -> (job, its limit plan), Limits.active_plan
    park_at = c.parked_at               # entry -> is a parked job before it (core/parked.py)
    if park_at is None and not broke:
        first, waiting = _reserved_head(c, order, first, counts, waiting)
    for k in range(first, len(order)):
        if broke:
            break
        if park_at is not None and not waiting and park_at(order[k]):
            waiting = True                  # a job a limit stops waits before this one
        job, cr, _prio = order[k]
        jid = job.id
        if jid in c.started:
            continue
        if jid in st.reservations:
            g = st.reservations[jid].group
            counts[g] = counts.get(g, 0) + 1
            waiting = True
            continue
        if stays is not None and (hit := plans.get(jid)) is not None and hit[0] is job \
                and id(hit[1]) in stays and jid not in st.run_now:
            waiting = True                  # still blocked: see SKIP_BLOCKED
            continue
        v = None if jid in st.run_now else c.limits.active_violation(job, c.usage, SOFT)
        if v:
            if stays is not None:
                plan = plans[jid][1]
                stays[id(plan)] = plan      # held: its id names it for the pass
            c.blocked_soft[jid] = v         # the reports format it, when explained
            waiting = True
            continue
        plan = None
        if not idle_found and not (waiting and "NOBF" in c.flags_of(job)):
            p, plan = fits_now_or_plan(c, job, cr, counts)
            if p:
                c.start(job, p, StartKind.BACKFILL if waiting else StartKind.IMMEDIATE, k)
                continue
        group, always = can_reserve(c, job)
        if group is None and not always:
            c.no_reservation[jid] = why_no_reservation(c, job)
            if not idle_found:
                c.stop_reason = f"job {jid} could not start and may not reserve"
            idle_found = True
            waiting = True
            continue
        g = group if group is not None else -1
        if not always and counts.get(g, 0) >= c.groups.depth.get(g, 0):
            c.no_reservation[jid] = (f"RESERVATIONDEPTH[{g}] {c.groups.depth.get(g, 0)}"
                                     f" reached at job {jid}")
            if not idle_found:
                c.stop_reason = c.no_reservation[jid]
            idle_found = True
            waiting = True
            if not c.explain and not c.settings.reserve_always and all(
                    counts.get(k, 0) >= d for k, d in c.groups.depth.items() if d > 0):
                broke = True
            continue
        p = reserve(c, job, cr, g, plan)
        if p is None:
            continue
        counts[g] = counts.get(g, 0) + 1
        waiting = True
        if p.start <= now:
            c.res_started = True
            c.start(job, p, StartKind.BACKFILL, k)
        elif c.settings.bf_order in SHORTEST_FIRST and not c.settings.reserve_always and all(
                counts.get(k, 0) >= d for k, d in c.groups.depth.items() if d > 0):
            # every reservation is made: the jobs after it are backfill's, shortest first
            c.stop_reason = f"reservations made; BFPRIORITYPOLICY {c.settings.bf_order} backfills the rest"
            idle_found = True
            broke = not c.explain
    if park_at is not None and not waiting and not broke:
        waiting = True                      # the walk went on to the parked jobs after it
    c.pass_end = (counts, idle_found, waiting, c.stop_reason, broke)


def _reserved_head(c, order, first: int, counts: dict[int, int], waiting: bool
                   ) -> tuple[int, bool]:
    """The leading run of jobs from `first` holding a kept reservation, none started this
    cycle: the pass would only count each in its group and wait (REMADE_HEAD, issue 33),
    so they are counted in C. Where the pass goes on, and waiting. O(run)."""
    res = c.state.reservations
    if not REMADE_HEAD or not res:
        return first, waiting
    run = list(takewhile(res.__contains__, map(_ID, map(_JOB, islice(order, first, None)))))
    if not run or not c.started.isdisjoint(run):
        return first, waiting
    for g, n in Counter(map(_GROUP, map(res.__getitem__, run))).items():
        counts[g] = counts.get(g, 0) + n
    return first + len(run), True


def _begin(resume: tuple | None) -> tuple:
    """The pass's state at its start: (counts per group, idle found, waiting, stop
    reason, broke), anew or as `resume` left it (its counts copied)."""
    if resume is None:
        return {}, False, False, "", False
    counts, idle_found, waiting, stop_reason, broke = resume
    return dict(counts), idle_found, waiting, stop_reason, broke


def why_no_reservation(c, job: Job) -> str:
    flags = c.flags_of(job)
    if "NORESERVATION" in flags:
        return f"QOS {job.qos} has NORESERVATION"
    if c.settings.bf_pass.run is None:
        return "BACKFILLPOLICY NONE"
    if not RESERVES[c.settings.res_policy]:
        return f"RESERVATIONPOLICY {c.settings.res_policy}"
    return f"QOS {job.qos or '-'} is in no RESERVATIONQOSLIST group"


def can_reserve(c, job: Job) -> tuple[int | None, bool]:
    """(reservation group, RESERVEALWAYS) or (None, False) when the job may not reserve."""
    flags = c.flags_of(job)
    if not c.settings.may_reserve or "NORESERVATION" in flags:
        return None, False
    return c.groups.group(job.qos), "RESERVEALWAYS" in flags


def fits_now_or_plan(c, job: Job, cr: Compiled, counts: dict[int, int]
                     ) -> tuple[Placement | NoPlacement, Placement | None]:
    """_fits_now, and under the count planner, when the job would reserve next, its
    earliest start found by the same scan (the pass would ask again). A start now from
    the unbounded question is the one the bounded question gives. Failures are kept in
    the cycle's VectorShrinkMemo, as fits_now keeps them."""
    if (Ability.COUNTS not in c.table.abilities or job.procs > c.table.free_now
            or c.access):
        return c.fits_now(job, cr), None
    group, always = can_reserve(c, job)
    g = group if group is not None else -1
    if group is None and not always or not always and counts.get(g, 0) >= c.groups.depth.get(g, 0):
        return c.fits_now(job, cr), None
    epoch = memo.epoch(c.table)
    shape = (cr.eligible, cr.mode, cr.per_node, cr.nodes_needed, cr.exclusive, ())
    w, n = c.span(job), cr.tasks
    if c.shrink.fails(epoch, shape, n, w, cr.d):
        return NO_ROOM, None
    p = c.table.earliest_start(cr, w, c.now, policy=c.settings.nap)
    if p and p.start <= c.now:
        return p, None
    c.shrink.note(epoch, shape, n, w, cr.d)
    return NO_ROOM, (p if p else None)


def reserve(c, job: Job, cr: Compiled, group: int,
            plan: Placement | None = None) -> Placement | None:
    """A priority reservation at the job's earliest start (`plan`: already found on
    the table as it stands), or where the compat rules make one (compat.reserve_start:
    Maui's MJobGetEStartTime under core/compat.MAUI33_HIGHEST, as for a kept one)."""
    ign = c.ignore(job)
    p = plan if plan is not None else c.settings.compat.reserve_start(
        c.table, cr, c.span(job), c.now, policy=c.settings.nap, ignore=ign)
    if not p:
        deferral.defer(c, job, f"cannot create reservation: {c.blocked_by(job, cr, p)}")
        return None
    why = c.past_standing(job, cr, p)
    if why:
        deferral.defer(c, job, why)
        return None
    c.table.reserve_placement(owners.priority(job.id), p, kind="priority", inside=ign)
    c.state.reservations[job.id] = KeptReservation(job.id, p.start, p.end, p.allocation,
                                                   group, c.now)
    kept.placed(c, job, cr)             # at its earliest: the next kept pass may leave it
    inplace.placed(c, job, cr)          # CURRENTHIGHEST: likewise (policy/inplace.py)
    return p
