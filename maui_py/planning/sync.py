"""Bring the cached reservation table in step with a new snapshot.

A running job holds its nodes from its start until start + its span: the wallclock limit, or
what the caller's `span(job, start, now)` gives (a runtime prediction, corrected once the job
outlives it: policy/prediction.py). A job past its limit
is assumed to end at the end of its allowed overrun (JOBMAXOVERRUN), or at the next second
once that has passed too, as Maui does. Non-job reservations are kept by
planning/reservations.py (rebuilding the table drops them, so they are placed again).

With the same node set (names, resources, usable or not, features, partitions: not CPU load
or idle/busy states, which change every poll) the table is moved forward and only what
changed is redone:
O(changes) when the adapter sends a SnapshotDelta (the simulator), O(running jobs) for a
full diff; a new node set rebuilds it in O(holds).
"""

from __future__ import annotations

from typing import Callable, Iterable

from ..model import Access, ClusterSnapshot, Job, Reservation
from . import owners
from .api import Ability, Planner
from .counts import CountTable
from .plancache import PlanCache
from .reservations import sync_reservations
from .table import ReservationTable


def _shape(nodes) -> tuple:
    """What the table is built from: names, resources, usable or not, features, partitions.
    CPU load, node priority and idle/busy come and go without rebuilding it. O(N)."""
    return tuple((n.name, n.resources, n.state.usable, n.features, n.partitions) for n in nodes)


Span = Callable[[Job, int, int], int]
"""(job, start, now) -> the seconds a running job is planned to run from its start."""


def _limit(job: Job, _start: int, _now: int) -> int:
    return job.wallclock


def running_hold(job: Job, now: int, overrun: int, span: Span = _limit) -> tuple[int, int]:
    """(start, expected end) of an active job as the planner sees it."""
    start = job.start_time if job.start_time is not None else now
    end = start + max(span(job, start, now), 1)
    if end <= now:
        end = end + max(overrun, 0)
        if end <= now:
            end = now + 1
    return start, end


def sync_table(cache: PlanCache, snap: ClusterSnapshot, running: Iterable[Job], by_id: dict[str, Job],
               overrun: int, counting: bool = False,
               span: Span = _limit) -> Planner:
    """The table for `snap`, reusing cache.table when the nodes are the same and the
    planner is the one asked for: the count planner when `counting` (the caller checked
    planning/counts.counting_applies and the requests), else the node table."""
    now = snap.now
    table = cache.table
    same_nodes = (table is not None and (Ability.COUNTS in table.abilities) == counting
                  and (cache.nodes is snap.nodes
                       or _shape(cache.nodes) == _shape(snap.nodes)))
    if same_nodes and cache.nodes is not snap.nodes:
        table.nodes = tuple(snap.nodes)     # load, priority, busy/idle: read by node choice
        cache.nodes = snap.nodes
    if not same_nodes:
        old = table
        table = build_table(cache, snap.nodes, now, running, overrun, counting, span=span)
        if old is not None:
            table.freed = old.freed + 1     # no kept reservation survives into a new table
        cache.table, cache.nodes = table, snap.nodes
        cache.seq = snap.seq
        return table

    expired = table.advance(now)
    delta = snap.delta
    if delta is not None and delta.prev_seq == cache.seq and not delta.nodes_changed:
        for jid in delta.ended:
            table.release(owners.job(jid))
            cache.running.pop(jid, None)
        redo = frozenset(delta.started).union(delta.changed)
        if expired:
            redo = redo.union(j for j in map(owners.job_of, expired)
                              if j is not None and j in by_id)
        for jid in sorted(redo) if redo else ():
            _place(table, cache, by_id.get(jid), now, overrun, span)
    else:
        current = {j.id: j for j in running}
        for jid in [k for k in cache.running if k not in current]:
            table.release(owners.job(jid))
            del cache.running[jid]
        had, holds = cache.running, table.holds
        for jid, j in current.items():
            s, e = running_hold(j, now, overrun, span)
            if had.get(jid) != (s, e - s, j.allocation) or owners.job(jid) not in holds:
                _place(table, cache, j, now, overrun, span)
    cache.seq = snap.seq
    return table


def build_table(cache: PlanCache, nodes, now: int, running: Iterable[Job], overrun: int,
                counting: bool = False, wanted: Iterable[tuple[Reservation, Access]] = (),
                reserved: Iterable[tuple[Job, int, int, tuple, tuple[str, ...]]] = (),
                span: Span = _limit) -> Planner:
    """A table built from scratch, the one way both the cycle (on its first snapshot and
    when the nodes change) and the commands (showbf, showstart: from the stored last
    cycle) build it, so what they show is what the cycle planned on. Running jobs hold
    their nodes (running_hold), then the non-job reservations `wanted` are held
    (sync_reservations), then the queued jobs' priority reservations `reserved` (job,
    start, end, allocation, the reservations it may use). `cache` records the running
    holds and the reservations held, as sync_table and sync_reservations keep them.
    O(holds)."""
    table = (CountTable if counting else ReservationTable)(nodes, now)
    holds = []
    cache.running = {}
    for j in running:
        if not j.allocation:
            continue
        s, e = running_hold(j, now, overrun, span)
        holds.append((owners.job(j.id), s, e, j.allocation, "job"))
        cache.running[j.id] = (s, e - s, j.allocation)
    cache.external = {}
    table.load(holds)
    if wanted:
        sync_reservations(table, cache, wanted)
    for job, s, e, alloc, inside in reserved:
        table.reserve(owners.priority(job.id), s, e, alloc, kind="priority", force=True,
                      inside=inside)
    return table


def _place(table: ReservationTable, cache: PlanCache, job: Job | None, now: int, overrun: int,
           span: Span = _limit) -> None:
    if job is None:
        return
    owner = owners.job(job.id)
    if job.state.active and job.allocation and owner in table.holds:
        s, e = running_hold(job, now, overrun, span)
        if cache.running.get(job.id) == (s, e - s, job.allocation):
            return
    table.release(owner)
    if not job.state.active or not job.allocation:
        cache.running.pop(job.id, None)
        return
    s, e = running_hold(job, now, overrun, span)
    table.reserve(owner, s, e, job.allocation, kind="job", force=True)
    cache.running[job.id] = (s, e - s, job.allocation)
