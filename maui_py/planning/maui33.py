"""MAUICOMPAT 3.3: Maui 3.3's own node rules, as a node order and a backfill order.

maui-py's NODEALLOCATIONPOLICY keys (nodechoice.KEYS) choose nodes by fit in time; Maui 3.3
(TempleHPC maui-scheduler c486472) does otherwise, and these are its rules:

1. A reservation (a start later than now) is pinned to nodes by index: MJobGetRange
   (src/MJob.c) lists the nodes feasible at its start in node-table order and MJobAllocMNL
   (src/MSched.c) takes them from the end under LASTAVAILABLE, MINRESOURCE (smallest
   memory bucket first) and CPULOAD (MINRESOURCE for a later start); FIRSTAVAILABLE takes
   them from the front.
2. A start now: MNodeSelectIdleTasks (src/MNode.c) sorts the idle nodes by how long they
   stay available, shortest first, in a stable sort (`__MNLATimeCompLToH`) under
   LASTAVAILABLE only, and MJobAllocMNL again takes them from the end: the longest
   available nodes, the highest index first among equals, even for a short job.
   MINRESOURCE: smallest memory bucket, highest index first; CPULOAD: most unused
   processors now (configured minus max(dedicated, load)), highest index first.
3. Backfill goes window by window (MQueueBackFill, MBFGetWindow in src/MBF.c): window k
   holds every node with processors free now for longer than window k-1 lasts, and lasts
   as long as the shortest of them; in each, in priority order, the jobs that fit its
   processors and duration start on its nodes; then the next window is found on the
   table as it now is. The short windows are filled first.

A node order is marked by its type (Maui33Order, named as NodeAllocation); nodechoice
dispatches on it. Cost: O(N log N) per node choice (no lazy shortcut), O(N) per window.
"""

from __future__ import annotations

from dataclasses import replace
from enum import StrEnum
from typing import TYPE_CHECKING, Iterator

from ..cfg.choices import NodeAllocation
from .bitset import members

if TYPE_CHECKING:
    from .timeline import Timeline as ReservationTable

FOREVER = 1 << 62

Maui33Order = StrEnum("Maui33Order", [(m.name, m.value) for m in NodeAllocation], module=__name__)
Maui33Order.__doc__ = "NODEALLOCATIONPOLICY under MAUICOMPAT 3.3: Maui 3.3's node order (KEYS)."


def order(policy: NodeAllocation) -> "Maui33Order":
    """The Maui 3.3 node order of a NODEALLOCATIONPOLICY. O(1)."""
    return Maui33Order(str(policy))


def _mem_bucket(mb: int) -> int:
    """MJobAllocMNL's MINRESOURCE loop: nodes of at most 64, 128, ... MB, then all from
    8192 on."""
    m = 64
    while m < 8192 and mb > m:
        m <<= 1
    return m


def _key_first(table, i, t) -> tuple:
    return (i,)


def _key_last(table, i, t) -> tuple:
    if t > table.origin:
        return (-i,)
    _free, until = table.free_span(i)
    return (-(until - t) if until < FOREVER else -FOREVER, -i)


def _key_minresource(table, i, t) -> tuple:
    return (_mem_bucket(table.nodes[i].resources.mem), -i)


def _key_cpuload(table, i, t) -> tuple:
    if t > table.origin:
        return _key_minresource(table, i, t)
    node = table.nodes[i]
    free, _until = table.free_span(i)
    used = node.resources.procs - free
    return (-(node.resources.procs - max(used, node.load)), -i)


def _key_priority(table, i, t) -> tuple:
    return (-table.nodes[i].priority, i)


def _key_fastest(table, i, t) -> tuple:
    return (-table.nodes[i].speed, i)


KEYS = {
    NodeAllocation.FIRSTAVAILABLE: _key_first,
    NodeAllocation.LASTAVAILABLE: _key_last,
    NodeAllocation.MINRESOURCE: _key_minresource,
    NodeAllocation.CPULOAD: _key_cpuload,
    NodeAllocation.PRIORITY: _key_priority,
    NodeAllocation.FASTEST: _key_fastest,
}
"""NODEALLOCATIONPOLICY (as a Maui33Order) -> the order key of a feasible node (table, node index, start); PRIORITY and
FASTEST are maui-py's own (MJobAllocatePriority, MJobAllocateFastest)."""


def candidates(table: "ReservationTable", fit_of, t: int, fast: int, fits: dict[int, int],
               policy: "Maui33Order") -> Iterator[tuple[tuple, int, int]]:
    """Every feasible node as (key, index, tasks it holds), in Maui 3.3's order. O(N log N)."""
    key = KEYS[NodeAllocation(policy.value)]
    out = [(key(table, i, t), i, fit_of(i)) for i in members(fast)]
    out += [(key(table, i, t), i, f) for i, f in fits.items()]
    out.sort()
    return iter(out)


def window_after(table: "ReservationTable", prev: int) -> tuple[int, int, int] | None:
    """MBFGetWindow: (duration, node mask, free processors) of the nodes with processors free
    now for longer than `prev` seconds, lasting as long as the shortest of them; None
    when there is none. O(N x change points per node)."""
    dur, mask, procs = FOREVER + 1, 0, 0
    for i in members(table.usable):
        free, until = table.free_span(i)
        if free <= 0:
            continue
        avail = until - table.origin if until < FOREVER else FOREVER
        if avail <= prev:
            continue
        mask |= 1 << i
        procs += free
        dur = min(dur, avail)
    return (dur, mask, procs) if mask else None


def within(cr, mask: int):
    """A compiled request restricted to the nodes of `mask` (a window's: MJobSelectMNL
    with the window's node list). O(capacity classes)."""
    return replace(cr, eligible=cr.eligible & mask,
                   classes=[(cm & mask, kc) for cm, kc in cr.classes if cm & mask])
