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
   available nodes, the highest index first among equals, even for a short job. How
   long is MJobGetNRange's window (available_window below): on a node of several
   processors it ends where the node's free count first changes, growing included.
   MINRESOURCE: smallest memory bucket, highest index first; CPULOAD: most unused
   processors now (configured minus max(dedicated, load)), highest index first.
3. Backfill goes window by window (MQueueBackFill, MBFGetWindow in src/MBF.c): window k
   holds every node with processors free now for longer than window k-1 lasts, and lasts
   as long as the shortest of them; in each, in priority order, the jobs that fit its
   processors and duration start on its nodes; then the next window is found on the
   table as it now is. The short windows are filled first. How long a node is free is
   available_window for Maui's pseudo-job BFWindow (one task, one second, credentials
   [ALL], which every reservation with a user, group, account or class list admits:
   bf_window_admits). GREEDY starts nothing (policy/backfill.by_windows).

A node order is marked by its type (Maui33Order, named as NodeAllocation); nodechoice
dispatches on it. Cost: O(N log N + N c log h) per node choice (c change points a node; no
lazy shortcut), O(N c log h) per window, O(N H) with a reservation BFWindow may use.
"""

from __future__ import annotations

from dataclasses import replace
from enum import StrEnum
from typing import TYPE_CHECKING, Iterator

from ..cfg.choices import NodeAllocation
from .api import FOREVER
from .bitset import members

if TYPE_CHECKING:
    from .timeline import Timeline as ReservationTable


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


def free_steps(table: "ReservationTable", i: int, t: int, ignore: frozenset = frozenset()
               ) -> list[tuple[int, int]]:
    """(instant, processors free on node i from it) from t on, one entry per change of the
    table's step function (what Maui's node reservation events come to, per timestamp);
    the holds of the owners in `ignore` left out. O(change points of node i x log h),
    O(H) with `ignore`."""
    if ignore:
        return _steps_without(table, i, t, ignore)
    name = table.nodes[i].name
    out = [(t, table.free_at(name, t).procs)]
    nxt = table.node_next_change(i, t)
    while nxt < FOREVER:
        out.append((nxt, table.free_at(name, nxt).procs))
        nxt = table.node_next_change(i, nxt)
    return out


def _steps_without(table: "ReservationTable", i: int, t: int, ignore: frozenset
                   ) -> list[tuple[int, int]]:
    """free_steps from node i's holds, those of `ignore` left out. O(H log H)."""
    delta: dict[int, int] = {}
    used = 0
    for s, e, v, owner in table.holds_on(i):
        if owner in ignore or e <= t or e <= s:
            continue
        if s <= t:
            used += v[0]
        else:
            delta[s] = delta.get(s, 0) + v[0]
        if e < FOREVER:
            delta[e] = delta.get(e, 0) - v[0]
    cap = table.cap[i][0]
    out = [(t, cap - used)]
    for when in sorted(delta):
        used += delta[when]
        if cap - used != out[-1][1]:
            out.append((when, cap - used))
    return out


def _ranges(steps: list[tuple[int, int]], tested: int) -> list[list[int]]:
    """MJobGetSNRange's event walk for `tested` tasks from steps[0]'s instant: ranges
    [start, end, tasks] split wherever the free count differs from the range's (a growth
    as much as a shrink) and ended where fewer than `tested` are free. O(len(steps))."""
    t0, free0 = steps[0]
    if free0 < tested:
        return []
    out = [[t0, FOREVER, free0]]
    for t, free in steps[1:]:
        r = out[-1]
        if free < tested:
            r[1] = t
            return out
        if free != r[2]:
            r[1] = t
            out.append([t, FOREVER, free])
    return out


def _first_range(steps: list[tuple[int, int]], tested: int, duration: int
                 ) -> tuple[int, int] | None:
    """MJobGetSNRange's second pass on the ranges of _ranges: (end, tasks) of the range
    starting now as Maui leaves it, or None. A first range shorter than `duration` (with
    the ranges right after it) is dropped; the next range is merged into it when it holds
    as many tasks or the first is short, and later ones only while it is shorter than
    `duration`: the merged range's slot reads 0 tasks from then on (src/MJob.c, 'can range
    be merged with previous range?'). O(len(steps))."""
    rs = _ranges(steps, tested)
    if not rs:
        return None
    first, rest = rs[0], rs[1:]
    span = first[1] - first[0]
    k = 0
    while span < duration and k < len(rest):
        span += rest[k][1] - rest[k][0]
        k += 1
    if span < duration:
        return None
    end, tasks = first[1], first[2]
    for k, r in enumerate(rest):
        if k == 0 and r[2] >= tasks or end - first[0] < duration:
            end, tasks = r[1], min(tasks, r[2])
        else:
            break
    return end, tasks


def available_window(table: "ReservationTable", i: int, t: int, tasks: int, duration: int,
                     ignore: frozenset = frozenset()) -> tuple[int, int] | None:
    """MJobGetNRange (src/MJob.c) for a start at t: (tasks node i offers, how long it stays
    available), found by Maui's binary search on the tested task count; None when it is not
    available for `duration` (MJobCheckNStartTime). `ignore`: the owners of the holds the
    job may use. O(change points x log tasks)."""
    steps = free_steps(table, i, t, ignore)
    hi, lo, window = min(tasks, steps[0][1]), 0, 0
    while hi > lo:
        tested = (hi + lo + 1) >> 1
        got = _first_range(steps, tested, duration)
        if got is None:
            hi = tested - 1
        else:
            lo, window = got[1], (got[0] - t if got[0] < FOREVER else FOREVER)
    if hi <= 0 or window <= 0 or window < min(duration, 8640000):
        return None
    return lo, window


def _key_first(table, i, t, job) -> tuple:
    return (i,)


def _key_last(table, i, t, job) -> tuple:
    if t > table.origin:
        return (-i,)
    got = available_window(table, i, t, job[1], job[0])
    return (-got[1] if got else 0, -i)


def _key_minresource(table, i, t, job) -> tuple:
    return (_mem_bucket(table.nodes[i].resources.mem), -i)


def _key_cpuload(table, i, t, job) -> tuple:
    if t > table.origin:
        return _key_minresource(table, i, t, job)
    node = table.nodes[i]
    free, _until = table.free_span(i)
    used = node.resources.procs - free
    return (-(node.resources.procs - max(used, node.load)), -i)


def _key_priority(table, i, t, job) -> tuple:
    return (-table.nodes[i].priority, i)


def _key_fastest(table, i, t, job) -> tuple:
    return (-table.nodes[i].speed, i)


KEYS = {
    NodeAllocation.FIRSTAVAILABLE: _key_first,
    NodeAllocation.LASTAVAILABLE: _key_last,
    NodeAllocation.MINRESOURCE: _key_minresource,
    NodeAllocation.CPULOAD: _key_cpuload,
    NodeAllocation.PRIORITY: _key_priority,
    NodeAllocation.FASTEST: _key_fastest,
}
"""NODEALLOCATIONPOLICY (as a Maui33Order) -> the order key of a feasible node (table, node
index, start, (wallclock, tasks)); PRIORITY and
FASTEST are maui-py's own (MJobAllocatePriority, MJobAllocateFastest)."""


def candidates(table: "ReservationTable", fit_of, t: int, fast: int, fits: dict[int, int],
               policy: "Maui33Order", job: tuple[int, int] = (0, 0)
               ) -> Iterator[tuple[tuple, int, int]]:
    """Every feasible node as (key, index, tasks it holds), in Maui 3.3's order; `job` is
    (wallclock, tasks) of the request. O(N log N)."""
    key = KEYS[NodeAllocation(policy.value)]
    out = [(key(table, i, t, job), i, fit_of(i)) for i in members(fast)]
    out += [(key(table, i, t, job), i, f) for i, f in fits.items()]
    out.sort()
    return iter(out)


def window_after(table: "ReservationTable", prev: int, ignore: frozenset = frozenset()
                 ) -> tuple[int, int, int] | None:
    """MBFGetWindow: (duration, node mask, free processors) of the nodes with processors free
    now for longer than `prev` seconds, lasting as long as the shortest of them; None
    when there is none. How long a node is free is MJobGetNRange's window for Maui's
    one-task, one-second pseudo-job (BFWindow): on a node of several processors it ends
    where the free count first changes after any growth right after now. `ignore`: the
    holds BFWindow may use (bf_window_admits). O(N x change points per node)."""
    dur, mask, procs = FOREVER + 1, 0, 0
    for i in members(table.usable):
        got = available_window(table, i, table.origin, 1, 1, ignore)
        if got is None:
            continue
        free, avail = got
        if avail <= prev:
            continue
        mask |= 1 << i
        procs += free
        dur = min(dur, avail)
    return (dur, mask, procs) if mask else None


def bf_window_admits(access) -> bool:
    """Whether a reservation's access admits MBFGetWindow's pseudo-job BFWindow, whose user,
    group, account and class are all "[ALL]": MACLCheckAccess (src/MACL.c) matches a
    credential named [ALL] against any ACL entry of its type, so any reservation with a
    user, group, account or class list, or a TIMELIMIT (BFWindow lasts 1 s), admits it. O(1)."""
    acl = access.acl
    return bool(acl.users or acl.groups or acl.accounts or acl.classes) or access.timelimit >= 1


def within(cr, mask: int):
    """A compiled request restricted to the nodes of `mask` (a window's: MJobSelectMNL
    with the window's node list). O(capacity classes)."""
    return replace(cr, eligible=cr.eligible & mask,
                   classes=[(cm & mask, kc) for cm, kc in cr.classes if cm & mask])
