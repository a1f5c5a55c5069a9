"""MAUICOMPAT 3.3: the nodes of a reservation Maui makes, at a later start or at now.

Maui 3.3 (TempleHPC maui-scheduler c486472) makes every priority reservation with
MJobReserve (src/MJob.c), new ones in MQueueScheduleIJobs and, under RESERVATIONPOLICY
HIGHEST, each kept one again every iteration in MQueueScheduleRJobs (src/MQueue.c,
`case resHighest`). MJobReserve first destroys the job's own reservation (MResDestroy),
then MJobGetEStartTime finds the start and MJobGetRange lists the nodes feasible then in
node-table order; MJobAllocMNL (src/MSched.c ~558-1060) takes them:

- level by level (ResourceIteration 0-5: Required, PositiveAffinity, NeutralAffinity,
  None, NegativeAffinity, Preemptible), a node's level being what MJobGetSNRange's event
  walk (src/MJob.c ~8466, ~8776-8830) last read from MResCheckJAccess (src/MRes.c ~3505)
  on the reservations there the job may use: a reservation's ACL entries are Positive
  unless written with '-' or '=' (MACLSet, src/MACL.c ~298), so the nodes of the
  reservations the job may use come before all others; its own reservation gives none,
  being destroyed already;
- inside a level in the policy's order: LASTAVAILABLE from the end of MJobGetRange's
  list, i.e. by index, highest first, at a later start and at now alike (the comment
  there, "First-to-Last available order because of MJobGetEStartTime()", is not what the
  list is: it is not sorted, only MNodeSelectIdleTasks sorts, for starts without a
  reservation); MINRESOURCE, CPULOAD as planning/maui33.py rules 1, 2;
- FIRSTAVAILABLE tests `NodeMap[N->Index] == AffinityLevel` where the others test `!=`,
  so its first pass (Required) takes every node not Required in list order: it knows no
  levels.

So when a kept HIGHEST reservation comes to its start, Maui re-makes it at now on the
last feasible nodes by index, and the job starts there (its reservation's nodes are then
the Positive level of the start's MJobAllocMNL): not on the nodes it held (maui-py's
prefer, planning/nodechoice.py), not on the longest-available ones (rule 2). Maui 3.3,
kth-cons-highest: job 128 at 675580 on n035-n064, n093-n098, where 129's reservation
begins at 128's end, over 34 idle nodes free for ever; job 130 at 675700 on n100, which
came free then, rather than n035, which it held. And a kept one re-made at the start it
had moves to the nodes its re-make finds (core/compat.CompatRules.repin, under Maui's own
re-make MAUI33_HIGHEST: policy/highest._slide; sdsc-cons-highest-minresource reproduces
only so), where maui-py's walk leaves it on its own.

ReserveOrder is the node order a reservation is made by (reserve_order); nodechoice
dispatches on its type. Cost: O(N log N) per node choice, as maui33.candidates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

from ..cfg.choices import NodeAllocation
from . import maui33, owners
from .bitset import members

if TYPE_CHECKING:
    from .timeline import Timeline as ReservationTable


@dataclass(frozen=True, slots=True)
class ReserveOrder:
    """NODEALLOCATIONPOLICY as MJobReserve's MJobAllocMNL takes it: `policy`, and
    `positive`, the nodes of the reservations the job may use (its own left out)."""

    policy: NodeAllocation
    positive: int = 0


def _key_last(table, i, t, job) -> tuple:
    return (-i,)


KEYS = {**maui33.KEYS, NodeAllocation.LASTAVAILABLE: _key_last}
"""NODEALLOCATIONPOLICY -> the order key of a node inside a level (table, index, start,
(wallclock, tasks)): planning/maui33.py's but LASTAVAILABLE's, which is by index at now
too."""


def reserve_order(table: "ReservationTable", policy, ignore=()) -> ReserveOrder:
    """The order MJobReserve takes nodes in for a job that may use the holds of `ignore`
    (its own priority reservation among them, which MJobReserve destroys first, so it
    gives no level). O(len(ignore))."""
    positive = 0
    holds = table.holds
    for o in ignore:
        h = holds.get(o)
        if h is not None and h.kind != "credit" and not owners.is_priority(o):
            positive |= h.mask
    return ReserveOrder(NodeAllocation(getattr(policy, "value", policy)), positive)


def candidates(table: "ReservationTable", fit_of, t: int, fast: int, fits: dict[int, int],
               order: ReserveOrder, job: tuple[int, int] = (0, 0)
               ) -> Iterator[tuple[tuple, int, int]]:
    """Every feasible node as (key, index, tasks it holds) in MJobAllocMNL's order for a
    reservation: the level (the nodes of `order.positive` first; none under
    FIRSTAVAILABLE), then the policy's key. `job` is (wallclock, tasks). O(N log N)."""
    key = KEYS[order.policy]
    out = [(key(table, i, t, job), i, fit_of(i)) for i in members(fast)]
    out += [(key(table, i, t, job), i, f) for i, f in fits.items()]
    pos = 0 if order.policy is NodeAllocation.FIRSTAVAILABLE else order.positive
    if pos:                             # one level (None) unless the job may use a reservation
        out = [(((pos >> i) & 1 ^ 1,) + k, i, f) for k, i, f in out]
    out.sort()
    return iter(out)


def reserving(start):
    """A compat reserve_start (core/compat.py) that makes its reservation by MJobReserve's
    node order: `start`'s own, called with the policy as a ReserveOrder. O(1) + start."""
    def reserve(table, cr, duration: int, now: int, *, policy, ignore=()):
        return start(table, cr, duration, now, policy=reserve_order(table, policy, ignore),
                     ignore=ignore)
    reserve.__doc__ = f"{start.__name__}, nodes by MJobReserve's order (planning/maui33_alloc.py)."
    return reserve
