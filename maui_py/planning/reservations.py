"""Non-job reservations in the table: standing (SRCFG), administrative (setres) and the
resource manager's own, kept in step with what the configuration and the snapshot ask for.

A reservation that names its allocation is held as it is. One that names hosts and/or a
task count is placed once, when it first appears, and keeps its nodes afterwards: where the
request fits at its start it takes free resources (MINRESOURCE); otherwise it is forced onto
the matching nodes that come free soonest, holding them from its start whatever runs there
now, which is how a maintenance reservation drains nodes. ACCESS DEDICATED reservations are
placed around other non-job reservations, SHARED ones may overlap them.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ..model import Access, JobRequest, Reservation, ReservationKind, Resources
from . import owners
from .plancache import PlanCache
from .table import FOREVER, ReservationTable


def _signature(r: Reservation) -> tuple:
    return (r.kind, r.start, r.end, r.allocation, r.hosts, r.tasks, r.per_task, r.access)


def place(table: ReservationTable, r: Reservation, others: Sequence[str]
          ) -> tuple[tuple[str, Resources], ...]:
    """Nodes and resources for an unplaced reservation. O(scan) or O(N log N)."""
    usable = [n for i, n in enumerate(table.nodes) if (table.usable >> i) & 1]
    hosts = [h for h in (r.hosts or tuple(n.name for n in usable)) if h in table.index]
    if not hosts:
        return ()
    whole = r.per_task is None
    if r.tasks <= 0:
        return tuple((h, table.nodes[table.index[h]].resources) for h in hosts)
    ignore = others if r.access.upper() == "SHARED" else ()
    req = JobRequest(tasks=r.tasks, per_task=Resources.of(1) if whole else r.per_task,
                     nodes=r.tasks if whole else 0, hostlist=tuple(hosts), exclusive=whole)
    p = table.earliest_start(req, min(r.end, FOREVER // 2) - r.start, after=r.start,
                             until=max(r.start, table.origin), ignore=ignore, policy="MINRESOURCE")
    if p:
        return p.allocation
    t = max(r.start, table.origin)
    ranked = sorted(hosts, key=lambda h: (table.node_next_change(table.index[h], t - 1)
                                          if table.free_at(h, t).procs <= 0 else t, h))
    out: list[tuple[str, Resources]] = []
    left = r.tasks
    for h in ranked:
        cap = table.nodes[table.index[h]].resources
        if whole:
            out.append((h, cap))
            left -= 1
        else:
            k = min(left, r.per_task.times_fits_in(cap))
            if k > 0:
                out.append((h, r.per_task.scaled(k)))
                left -= k
        if left <= 0:
            break
    return tuple(out)


def sync_reservations(table: ReservationTable, cache: PlanCache, wanted: Iterable[tuple[Reservation, Access]]
                      ) -> dict[str, tuple[Reservation, Access, tuple]]:
    """Hold exactly the wanted reservations; returns owner -> (reservation, access, nodes
    held). O(reservations) when nothing changed, plus one placement per new reservation."""
    want: dict[str, tuple[Reservation, Access]] = {}
    for r, access in wanted:
        if r.end > table.origin:
            want[owners.reservation(r)] = (r, access)
    for owner in [o for o in cache.external if o not in want]:
        table.release(owner)
        del cache.external[owner]
    ordered = sorted(want.items(), key=lambda kv: (-kv[1][0].priority, kv[1][0].start, kv[0]))
    for owner, (r, _access) in ordered:
        got = cache.external.get(owner)
        if got is not None and got[0] == _signature(r) and owner in table.holds:
            continue
        table.release(owner)
        others = [o for o in cache.external if o != owner]
        alloc = r.allocation or place(table, r, others)
        if alloc:
            table.reserve(owner, r.start, r.end, alloc, kind=r.kind.value.lower(), force=True)
        cache.external[owner] = (_signature(r), alloc)
    return {o: (r, a, cache.external[o][1]) for o, (r, a) in want.items()}


def as_reservations(held: dict[str, tuple[Reservation, Access, tuple]]) -> list[Reservation]:
    """The placed reservations, with their allocations, for showres and reports."""
    out = []
    for r, _a, alloc in held.values():
        out.append(Reservation(r.name, r.kind, r.start, r.end, tuple(alloc), r.hosts, r.tasks,
                               r.per_task, r.acl, r.access, r.flags, r.owner, r.job_id,
                               r.priority))
    return out


__all__ = ["Access", "ReservationKind", "as_reservations", "place",
           "sync_reservations"]
