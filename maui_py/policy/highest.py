"""RESERVATIONPOLICY HIGHEST: kept priority reservations slide forward, never back.

Maui 3.3's MQueueScheduleRJobs (src/MQueue.c, `case resHighest`) walks the feasible jobs in
priority order and calls MJobReserve (src/MJob.c) for each one holding a priority
reservation: that job's own reservation is destroyed and made again at its earliest start
while every other reservation stays in place, whatever RESERVATIONDEPTH says. So a
reservation only moves earlier (its old place is free to it), and moves later only when its
own resources vanish (a node down, a running job past its limit, a standing reservation).

Maui repeats the walk every iteration (RMPOLLINTERVAL). maui-py cycles at events only, so
it repeats the walk until no reservation moves: each reservation is then at its earliest
start with all the others held (a fixed point), which Maui's iterations reach a second or
two later (under core/compat.MAUI33_HIGHEST one walk a cycle, as Maui's: its re-make
can go round, and a replay cycles each second while it does, sim/engine.py). A
fixed point is also what makes a cycle from the store decide as one with memory: walking
again changes nothing, so a cycle that had nothing come free may skip the walk
(core/changes.py). In priority order one walk is the compression of conservative
backfilling by its published definition (Mu'alem and Feitelson; pyss compresses once per
job end); the repeated walk can move a reservation that a single compression leaves, so
per event maui-py equals the definition on the first 2,500 KTH-SP2 jobs and differs on
3,014 of all 28,467 (docs/simulator.md). Invariant after the pass: for every kept
reservation r, no start earlier than r's is feasible with every other reservation held; a
reservation whose start did not improve keeps its nodes. Cost: O(R x S) per walk, R
reservations, S one earliest-start scan; a second walk only when something moved.
"""

from __future__ import annotations

from itertools import compress
from operator import not_

from ..model import StartKind
from ..planning import memo, owners
from ..planning.api import Ability
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
    if not kr.allocation and Ability.COUNTS not in table.abilities:
        return False                    # made by the count planner: it names no nodes
    try:
        table.reserve(own, kr.start, kr.end, kr.allocation, kind="priority", force=True,
                      inside=ign, **({} if kr.allocation else {"procs": cr.tasks}))
    except KeyError:
        return False
    return own in table.holds


def _slide(c, job, cr, kr, k: int, after: int | None = None) -> bool:
    """Re-make one kept reservation at its earliest start, the others held (MJobReserve).
    True when it moved or started: its old place came free for the others. `after`: an
    instant later than now before which it fits nowhere (policy/kept.Stamps, only where
    reserve_start is an earliest start from the instant it is given, compat.walks() None):
    the scan begins there and finds the start a scan from now finds."""
    now, table = c.now, c.table
    jid = job.id
    own = owners.priority(jid)
    ign = c.ignore(job)
    held = own in table.holds
    p = c.settings.compat.reserve_start(table, cr, c.span(job), after or now,
                                        policy=c.settings.nap,
                                        ignore=ign + (own,) if held else ign)
    if not p:
        deferral.defer(c, job, "insufficient resources to start reserved job: "
                       + c.blocked_by(job, cr, p))
        return False
    why = c.past_standing(job, cr, p)
    if why:
        deferral.defer(c, job, why)
        return False
    if p.start <= now and not c.limits.active_violation(job, c.usage, SOFT):
        c.start(job, p, StartKind.RESERVED, k)
        return True
    if held and p.start == kr.start and (not c.settings.compat.repin
                                         or p.allocation == kr.allocation):
        return False                    # already at its earliest: it keeps its nodes
    table.release(own)
    table.reserve_placement(own, p, kind="priority", inside=ign)
    kr.start, kr.end, kr.allocation = p.start, p.end, p.allocation
    return True


def slide_forward(c, order, index: dict[str, int], retry, settled=None, want=None
                  ) -> bool:
    """Every kept reservation, in priority order, re-made at its earliest start with the
    others held, until none moves (see the module docstring). This ends: after the first
    walk every reservation is where it fits with the others held, and since each later
    move goes where it fits with the others held, none is ever pushed later again; the
    moves after the first walk are all strictly earlier. `index`: each reserved
    job's place in `order`; `retry(jid)` handles a job whose retry hold is active (it keeps its
    own resources, RESERVATIONRETRYTIME), once; `settled(job, cr, kr)`, when given, is
    True for one that nothing given back could move (policy/kept.py): it is left as it is;
    an int: the instant its re-make's scan may begin at (else False). `want`
    (policy/sparse.Want), when given, names the ones settled() might not leave, and
    those the room given back while walking could move: only they are visited. True
    when the walk reached its fixed point with settled() asked of every one in the last
    round (no retry hold) and nothing given back meanwhile."""
    st = c.state
    jobs = sorted(st.reservations, key=index.__getitem__)
    unheld = map(not_, map(c.table.holds.__contains__, map(owners.priority("").__add__, jobs)))
    for jid in list(compress(jobs, unheld)):    # those whose owner holds nothing (in C)
        job, cr, _prio = order[index[jid]]  # a table built afresh holds them first, as kept
        _hold_kept(c, jid, st.reservations[jid], cr, c.ignore(job))
    visit = None if want is None else want.first(order, index)
    first = True
    limit = c.settings.compat.walks()
    if limit is None:
        limit = 2 + 4 * len(jobs)       # a guard, not a rule: a cycle never spins
    for _w in range(limit):
        e0 = memo.epoch(c.table)
        moved = retried = False
        todo = jobs if visit is None else sorted(visit & st.reservations.keys(),
                                                 key=index.__getitem__)
        i = 0
        while i < len(todo):
            jid = todo[i]
            i += 1
            kr = st.reservations.get(jid)
            if kr is None:
                continue
            if kr.retry_until is not None and kr.retry_until > c.now:
                retried = True
                if first:
                    retry(jid)
                continue
            job, cr, _prio = order[index[jid]]
            got = None if settled is None else settled(job, cr, kr)
            if got is True:
                continue
            e = memo.epoch(c.table)
            moved = _slide(c, job, cr, kr, index[jid], got or None) or moved
            if visit is not None and memo.epoch(c.table) != e:
                visit, todo = _grown(want, visit, todo, i, jobs, index, index[jid])
        first = False
        if not moved:
            return not retried and memo.epoch(c.table) == e0
        jobs = [j for j in jobs if j in st.reservations]
        if not jobs:
            return False
    return False


def _grown(want, visit: set[str], todo: list[str], i: int, jobs: list[str],
           index: dict[str, int], k: int) -> tuple[set[str] | None, list[str]]:
    """The walk's set and this round's list after room was given back at place k of
    the order: the reservations want.grow() names join the set, those after k this
    round too; when it cannot name them, every reservation after k is visited this
    round and every one from the next round on (None). O(rows + the round's list)."""
    more = want.grow()
    if more is None:
        return None, todo[:i] + [j for j in jobs if index[j] > k]
    new = more - visit
    if not new:
        return visit, todo
    visit = visit | new
    after = [j for j in new if index[j] > k]
    if after:
        todo = todo[:i] + sorted(set(todo[i:]).union(after), key=index.__getitem__)
    return visit, todo
