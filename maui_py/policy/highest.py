"""RESERVATIONPOLICY HIGHEST: kept priority reservations slide forward, never back.

Maui 3.3's MQueueScheduleRJobs (src/MQueue.c, `case resHighest`) walks the feasible jobs in
priority order and calls MJobReserve (src/MJob.c) for each one holding a priority
reservation: that job's own reservation is destroyed and made again at its earliest start
while every other reservation stays in place, whatever RESERVATIONDEPTH says. So a
reservation only moves earlier (its old place is free to it), and moves later only when its
own resources vanish (a node down, a running job past its limit, a standing reservation).

This is one walk per cycle, as Maui makes one per iteration; in priority order (FCFS:
submission order) it is the compression of conservative backfilling by its published
definition (Mu'alem and Feitelson; pyss's ConservativeScheduler takes each waiting job out
and puts it back at its earliest start, the others held). With a cycle per event
(`maui-sim --per-event`) maui-py's FCFS conservative replay then equals the definition's
(benchmarks/reference_sim.py) on every one of KTH-SP2's 28,467 jobs. Invariant after the
walk: every kept reservation fits where it is with the others held, none starts later than
before unless its own resources vanished, and one whose start did not improve keeps its
nodes. Cost: O(R x S), R reservations, S one earliest-start scan.
"""

from __future__ import annotations

from ..model import StartKind
from ..planning import owners
from ..planning.counts import CountTable
from . import deferral
from .limits import SOFT


def _hold_kept(c, jid: str, kr, cr, ign: tuple[str, ...]) -> bool:
    """Hold a kept reservation where it was kept, when the table lacks it (a table built
    afresh: a restart from the store, a new node set). False when it cannot be held
    (a node of it is gone). O(one reserve)."""
    own = owners.priority(jid)
    table = c.table
    if own in table.holds:
        return True
    if not kr.allocation and not isinstance(table, CountTable):
        return False                    # made by the count planner: it names no nodes
    try:
        table.reserve(own, kr.start, kr.end, kr.allocation, kind="priority", force=True,
                      inside=ign, **({} if kr.allocation else {"procs": cr.tasks}))
    except KeyError:
        return False
    return own in table.holds


def _slide(c, job, cr, kr, k: int) -> None:
    """Re-make one kept reservation at its earliest start, the others held (MJobReserve):
    it starts when that is now, moves when the start changed, else keeps its nodes."""
    now, table = c.now, c.table
    jid = job.id
    own = owners.priority(jid)
    ign = c.ignore(job)
    held = own in table.holds
    p = table.earliest_start(cr, c.span(job), now, policy=c.nap,
                             ignore=ign + (own,) if held else ign)
    if not p:
        deferral.defer(c, job, "insufficient resources to start reserved job: "
                       + c.blocked_by(job, cr, p))
        return
    why = c.past_standing(job, cr, p)
    if why:
        deferral.defer(c, job, why)
        return
    if p.start <= now and not c.limits.active_violation(job, c.usage, SOFT):
        c.start(job, p, StartKind.RESERVED, k)
        return
    if held and p.start == kr.start:
        return                          # already at its earliest: it keeps its nodes
    table.release(own)
    table.reserve_placement(own, p, kind="priority", inside=ign)
    kr.start, kr.end, kr.allocation = p.start, p.end, p.allocation


def slide_forward(c, order, index: dict[str, int], retry) -> None:
    """Every kept reservation, in priority order, re-made at its earliest start with the
    others held (see the module docstring). `index`: each reserved job's place in
    `order`; `retry(jid)` handles a job whose retry hold is active (it keeps its own
    resources, RESERVATIONRETRYTIME)."""
    st = c.state
    jobs = sorted(st.reservations, key=index.__getitem__)
    for jid in jobs:                    # a table built afresh holds them first, as kept
        job, cr, _prio = order[index[jid]]
        _hold_kept(c, jid, st.reservations[jid], cr, c.ignore(job))
    for jid in jobs:
        kr = st.reservations.get(jid)
        if kr is None:
            continue
        if kr.retry_until is not None and kr.retry_until > c.now:
            retry(jid)
            continue
        job, cr, _prio = order[index[jid]]
        _slide(c, job, cr, kr, index[jid])
