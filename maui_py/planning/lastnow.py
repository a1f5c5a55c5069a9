"""Start-now questions under LASTAVAILABLE (tasks-per-node and "any" requests, no owner
ignored) answered in one walk over the partly used nodes (issue 33): a first cycle starts
thousands of small jobs into the free cores, each asking this.

The definition is ReservationTable.scan at the origin (its only candidate: until <= the
origin) then nodechoice.select. At the origin the scan's first evaluation is: the
free-shape index's "no" (Scanning._ruled_out); `fast`, the eligible nodes idle and
untouched over [origin, origin + w); `others`, the rest of the eligible nodes less those
full at the origin or in the window (for a request of processors) and less those with a
gres all taken (for one that needs every gres); the fit of each of `others` over the
window (Compiling._fits_now); the request fits when the fits and the idle classes' fits
add up. select then keys every node of `others` holding per_node tasks by (gap from the
end to its next change point, fit, node) and merges them with the idle nodes in the same
order. Here the same sets are made with the same big-int operations, and the fit and the
key of each node of `others` are worked out in one loop (Compiling._keyed_now), so no
fits dict is built and walked again; the nodes are then taken as select takes them
(nodechoice.take_last_now), or by select itself when no partly used node qualifies (its
idle-nodes shortcut). The answer, the nodes and their amounts are the definition's.

Cost: O(1) big-int operations plus O(k log h) for the k partly used eligible nodes, and
the sort of those that qualify (the scan's and select's costs, without their set-up)."""

from __future__ import annotations

from typing import Any

from ..cfg.choices import NodeAllocation
from .api import Compiled
from .firstnow import now_sets
from . import nodechoice, nowwalk
from .nodechoice import idle_gap, select, take_last_now

Table = Any
"""A ReservationTable (planning/table.py, which imports this module: not imported here)."""


def asks_last_now(table: Table, cr: Compiled, after: int | None, until: int | None,
                  policy: object) -> bool:
    """Is (cr, after, until, policy) a question last_now answers: a tasks-per-node or "any"
    request asked by `until` <= the origin from the origin (after at or before it), under
    LASTAVAILABLE (a NodeAllocation or its plain name; not a Maui33Order)? The caller
    checks that no owner is ignored. O(1)."""
    if until is None or cr.mode == "nodes" or until > table.origin:
        return False
    if after is not None and after > table.origin:
        return False
    t = type(policy)
    return (t is NodeAllocation or t is str) and policy == NodeAllocation.LASTAVAILABLE


STREAK = 16
"""Walks in a row that found room after which the free-shape index's "no" is not asked
(NEVER_SKIP: always asked, the definition tests/property/test_lazy_shapes.py compares
against). The index only rules out questions the walk would fail anyway (freeshape.py's
docstring), so leaving it out never changes an answer, only what the answer costs: a
first cycle's start-now questions nearly all find room, and asking the index cost each of
them a read of it and every start an update of it (with it unread, its updates wait,
freeshape.LAZY). The first walk that finds no room brings it back until STREAK walks in a
row find room again: a full cluster's questions keep it."""
NEVER_SKIP = 1 << 62
"""STREAK's value that turns the skipping off (a count no run reaches)."""


def last_now(table: Table, cr: Compiled, w: int) -> list[tuple[int, int]] | None:
    """The (node, tasks) LASTAVAILABLE takes for `cr` starting at the origin for `w`
    seconds, as scan then select choose them (the module's docstring); None when it does
    not fit now. Counts the walks in a row that found room in table.found_streak."""
    if table.use_shapes and table.found_streak < STREAK and table.shapes.cannot_start(
            cr.eligible, cr.d, cr.mode, cr.per_node, cr.nodes_needed, cr.tasks):
        return None
    origin = table.origin
    e = origin + w
    fast, others = now_sets(table, cr, e)
    if not cr.exclusive:
        g = table._gres_start(cr, origin, w)
        if g is not None:                 # nodes with a gres all taken now or in the window
            gbusy = g[1] | g[4]
            others ^= others & gbusy
    if (nowwalk.WALK and others and fast and not fast & table.later and nodechoice.HEAP_TAKE
            and nodechoice.SKIP_IDLE):      # take_last_now's _pop_take, from a kept order
        got = nowwalk.walk_take(table, cr, e, others, fast, idle_gap(table, e))
        if got is not None:
            table.found_streak += 1
            return got
    tot_o, cnt_o, keyed = table._keyed_now(cr, others, e) if others else (0, 0, [])
    if not _enough(cr, fast, tot_o, cnt_o):
        table.found_streak = 0
        return None
    table.found_streak += 1
    if not keyed:
        return select(table, cr, origin, w, fast, {}, NodeAllocation.LASTAVAILABLE)
    return take_last_now(table, cr, w, fast, keyed)


def _enough(cr: Compiled, fast: int, tot_o: int, cnt_o: int) -> bool:
    """Do the partly used nodes' fits (their sum tot_o, how many hold cr.per_node: cnt_o)
    and the idle nodes of `fast` (each its class's idle fit) hold the request, as the
    scan's check at the origin? The idle nodes are counted (a popcount of a set as wide as
    the cluster per class) only when the partly used ones fall short: the sum only grows
    with them. O(classes) big-int operations at most."""
    if cr.mode == "any":
        if tot_o >= cr.tasks:
            return True
        tot_f = 0
        if fast:
            for cm, kc in cr.classes:
                tot_f += (fast & cm).bit_count() * kc
        return tot_f + tot_o >= cr.tasks
    if cnt_o >= cr.nodes_needed:
        return True
    cnt_f = 0
    if fast:
        for cm, _kc in cr.classes:
            cnt_f += (fast & cm).bit_count()
    return cnt_f + cnt_o >= cr.nodes_needed
