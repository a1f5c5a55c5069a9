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

4. A priority reservation, new (MQueueScheduleIJobs) or kept under HIGHEST, is made
   where MJobGetEStartTime (src/MJob.c) finds a start (reserve_start): every node's
   start ranges (MJobGetSNRange, MRLSFromA) merged in node order by MRLMerge
   (planning/mrlmerge.py: literal, swept at once up to the first instant range),
   whose ranges ending at t close before those starting at t open, so a job whose
   place is exactly its length can go behind the others (Maui's "reservation
   completion ... delayed"). The fold is remembered across seconds (merge_all_at):
   between two seconds of a rotation most nodes' ranges are the same.
5. Maui re-makes them once an iteration (MQueueScheduleRJobs): one walk a cycle
   (walks), so the order can go round, a step each iteration; a replay cycles the
   second after a cycle at an event and each second while a kept reservation moves
   (sim/engine.py, _Turn), so a job starts the second its turn comes; once the
   kept starts repeat, the seconds before the next event are not cycled.
Rules 4 and 5 are core/compat.MAUI33_HIGHEST, which MAUICOMPAT 3.3 selects (its cost:
docs/compatibility.md S11, Cost).

A node order is marked by its type (Maui33Order, named as NodeAllocation); nodechoice
dispatches on it. Cost: O(N log N + N c log h) per node choice (c change points a node; no
lazy shortcut), O(N c log h) per window, O(N H) with a reservation BFWindow may use; a
re-make (rule 4) reads each node's start ranges from a cache shared by nodes alike.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import replace
from enum import StrEnum
from typing import TYPE_CHECKING, Iterator

from ..cfg.choices import NodeAllocation
from .api import FOREVER
from .bitset import members
from .mrlmerge import MAX_MTIME, merge_all_at

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


def _step_function(table: "ReservationTable", i: int, ignore: frozenset = frozenset()):
    """Node i's step function (T, U) from the timeline, the holds of `ignore` left out: the
    table's own lists (shared by nodes alike, never mutated) when none of them is on i.
    O(1), O(x h) with a hold of `ignore` on i."""
    if ignore:
        return table._steps_without(i, ignore)
    return table._T[i], table._U[i]


def _steps(T, U, cap: int, t: int) -> list[tuple[int, int]]:
    """(instant, processors free) from t on of a node of `cap` processors with step
    function T, U: one entry per change of the free count. O(log h + h)."""
    k = max(bisect_right(T, t) - 1, 0)
    out = [(t, cap - U[k][0])]
    last = out[0][1]
    for j in range(k + 1, len(T)):
        when = T[j]
        if when >= FOREVER:
            break
        free = cap - U[j][0]
        if free != last:
            out.append((when, free))
            last = free
    return out


def free_steps(table: "ReservationTable", i: int, t: int, ignore: frozenset = frozenset()
               ) -> list[tuple[int, int]]:
    """(instant, processors free on node i from it) from t on, one entry per change of the
    free count (what Maui's node reservation events come to, per timestamp); the holds of
    the owners in `ignore` left out. O(change points of node i), O(x h) with `ignore`."""
    T, U = _step_function(table, i, ignore)
    return _steps(T, U, table.cap[i][0], t)


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


def _node_ranges(steps: list[tuple[int, int]], per_task: int, duration: int
                 ) -> list[list[int]]:
    """MJobGetSNRange (src/MJob.c) from steps[0]'s instant to MAX_MTIME: [start, end,
    tasks] where the node holds a task, split wherever its task count changes; then its
    second pass drops a range shorter than `duration` unless the ranges touching it
    (earlier first, then later) make up the duration. O(len(steps))."""
    out: list[list[int]] = []
    for t, free in steps:
        tasks = free // per_task
        if out and out[-1][1] == MAX_MTIME:
            if tasks == out[-1][2]:
                continue
            out[-1][1] = t
        if tasks >= 1:
            out.append([t, MAX_MTIME, tasks])
    out = [r for r in out if r[1] > r[0]]
    keep = []
    need = max(1, duration)
    for k, r in enumerate(out):
        span = r[1] - r[0]
        j = k - 1
        while span < need and j >= 0 and out[j][1] == out[j + 1][0]:
            span += out[j][1] - out[j][0]
            j -= 1
        j = k + 1
        while span < need and j < len(out) and out[j - 1][1] == out[j][0]:
            span += out[j][1] - out[j][0]
            j += 1
        if span >= need:
            keep.append(r)
    return keep


def _start_ranges(ranges: list[list[int]], duration: int) -> list[list[int]]:
    """MRLSFromA (src/MRes.c): each availability range as the range of starts it offers
    for `duration` ([start, last start, tasks, 1 node]), the touching ranges after it
    counted in up to `duration` past its own end. O(ranges^2) at worst, a few in practice."""
    out = []
    for a, r in enumerate(ranges):
        span, tasks = r[1] - r[0], r[2]
        for b in range(a + 1, len(ranges)):
            if ranges[b - 1][1] != ranges[b][0]:
                break
            span += ranges[b][1] - ranges[b][0]
            tasks = min(tasks, ranges[b][2])
            if span > r[1] - r[0] + duration:
                break
        if span >= duration:
            out.append([r[0], min(r[1], r[0] + span - duration), tasks, 1])
    return out


_STARTS: dict[tuple, tuple] = {}
"""(id(T), processors, now, per task, duration, the ignored holds on the node) -> (T, start
ranges), T the table's step function of the node (Timeline._T: never mutated, kept alive
here so that an id is not reused; a hit is checked by identity). Nodes alike (the same
step function and ignored holds) share one entry. Cleared when it outgrows _STARTS_MAX."""
_STARTS_MAX = 8192


def _ignored_on(table: "ReservationTable", i: int, ignore: frozenset) -> tuple:
    """(start, end, vector) of the holds of `ignore` on node i. O(len(ignore))."""
    out = ()
    holds = table.holds
    for owner in ignore:
        h = holds.get(owner)
        v = h.vec.get(i) if h is not None else None
        if v is not None:
            out += ((h.start, h.end, v),)
    return out


def _node_starts(table: "ReservationTable", i: int, per_task: int, duration: int, now: int,
                 ignore: frozenset) -> list[list[int]]:
    """Node i's start ranges (MJobGetSNRange, MRLSFromA), shared through _STARTS (read,
    never written). O(x) on a hit, O(x h) else."""
    T = table._T[i]
    cap = table.cap[i][0]
    key = (id(T), cap, now, per_task, duration, _ignored_on(table, i, ignore) if ignore else ())
    hit = _STARTS.get(key)
    if hit is not None and hit[0] is T:
        return hit[1]
    T2, U = _step_function(table, i, ignore if key[-1] else frozenset())
    got = _start_ranges(_node_ranges(_steps(T2, U, cap, now), per_task, duration), duration)
    if len(_STARTS) >= _STARTS_MAX:
        _STARTS.clear()
    _STARTS[key] = (T, got)
    return got


def _lists(table: "ReservationTable", cr, duration: int, now: int, ignore: frozenset
           ) -> list[list[list[int]]]:
    """Every feasible node's start ranges (MJobGetSNRange, MRLSFromA), in node-table order,
    the empty ones left out (shared: read, never written). O(N) on _STARTS hits, O(N x
    ranges) at worst."""
    per_task = max(1, cr.d[0]) if cr.d else 1
    out = []
    for i in members(cr.eligible & table.usable):
        s = _node_starts(table, i, per_task, duration, now, ignore)
        if s:
            out.append(s)
    return out


def _candidates(lists: list[list[list[int]]], tasks: int, now: int) -> list[int]:
    """MJobGetRange's merged list (MRLMerge over `lists`, all from `now` on, in order) as
    MJobGetEStartTime tries it: every range start when the first range holds `tasks`,
    else those of the ranges that do (MJobSelectFRL). O(E log E + N x merged ranges
    from the first node with an instant range on), the merges remembered across
    seconds (mrlmerge.merge_all_at)."""
    g = merge_all_at(lists, now)
    if not g:
        return []
    if g[0][2] >= tasks:
        return [r[0] for r in g]
    return [r[0] for r in g if r[2] >= tasks]


def start_candidates(table: "ReservationTable", cr, duration: int, now: int,
                     ignore: frozenset = frozenset()) -> list[int]:
    """MJobGetEStartTime's first pass (src/MJob.c): the starts it tries, in order.
    MJobGetRange merges every feasible node's start ranges (MJobGetSNRange, MRLSFromA)
    in node-table order with MRLMerge; when the first merged range holds the job's
    tasks every merged range is tried (TRange), else only those that hold them
    (MJobSelectFRL). O(N x ranges)."""
    return _candidates(_lists(table, cr, duration, now, ignore), cr.tasks, now)


def reserve_start(table: "ReservationTable", cr, duration: int, now: int, *, policy,
                  ignore: tuple[str, ...] = ()):
    """MJobReserve's start under MAUICOMPAT 3.3 (MJobGetEStartTime, src/MJob.c): the
    first of start_candidates where the job's tasks are free for `duration` (its second
    pass, MJobGetRange's node list at that start: maui-py's scan bounded to the one
    instant), nodes by `policy`. Maui can so re-make a reservation later than its own
    free place: a place exactly as long as the job offers an instant start range, which
    MRLMerge may miscount. A candidate before the earliest start fails its bounded scan,
    so no full scan is needed to pass over them. maui-py's earliest start when no
    candidate fits. O(N x ranges + the merges not remembered (mrlmerge.merge_all_at) +
    one bounded scan a candidate tried), a full scan when none fits."""
    lists = _lists(table, cr, duration, now, frozenset(ignore))
    for t in _candidates(lists, cr.tasks, now):
        at = max(t, now)
        p = table.earliest_start(cr, duration, at, policy=policy, until=at, ignore=ignore)
        if p:
            return p
    return table.earliest_start(cr, duration, now, policy=policy, ignore=ignore)


def walks() -> int:
    """How many times a cycle re-makes the kept reservations: once, as Maui does once an
    iteration (MQueueScheduleRJobs). Under reserve_start they need not settle: one moved
    behind the others leaves a place the next takes, and so on round, an iteration
    each; a replay cycles each second while they move (sim/engine.py), as maui-sim's
    Maui iterates each second. O(1)."""
    return 1
