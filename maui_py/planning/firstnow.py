"""Start-now questions under FIRSTAVAILABLE for tasks-per-node requests, answered by a
walk in index order that stops at the nodes it takes (issue 33), and the Placement a
choice of nodes makes (ReservationTable.earliest_start's last step, shared by both paths).

The definition is ReservationTable.scan at the origin then nodechoice.select: the scan
finds the idle nodes untouched over [origin, origin + w) (`fast`, each holding its
class's idle fit, at least `per`) and the fit of every other eligible node that is not
full at the origin or in the window, and select takes the first `need` nodes, in index
order, of `fast` and of the others holding `per`. Walking fast | others in index order
and asking a fit of the others only until `need` nodes are found gives the same nodes:
the fits of nodes after the last taken are never read. A one-core job on a cluster of
partly used nodes so asks one or a few fits instead of one per partly used node. When
fewer than `need` are found the whole set was walked, as the scan does: the answer is
"no" either way.

Cost: O(1) big-int operations plus O(k log h) for the k nodes walked
(Compiling._first_fits, with _fits_now's flat fits)."""

from __future__ import annotations

from typing import Any

from .api import Compiled, Placement

Table = Any
"""A ReservationTable (planning/table.py, which imports this module: not imported here)."""


def first_now(table: Table, cr: Compiled, w: int) -> list[tuple[int, int]] | None:
    """The (node, tasks) FIRSTAVAILABLE takes for tasks-per-node request `cr` starting at
    the origin for `w` seconds, in index order; None when it does not fit now. Holds no
    owner is ignored for (the caller asks only then)."""
    origin = table.origin
    if table._ruled_out(cr, None, origin, ()):
        return None
    e = origin + w
    E = cr.eligible
    idle, full = table.idle0, table.full0
    touched, fullin = table._origin_sets(E, idle, full, e)
    fast = (E ^ (E & touched)) & idle
    if cr.exclusive:
        others = 0
    else:
        others = E ^ fast
        if cr.d[0] > 0:
            busy = full | fullin
            others ^= others & busy
    return table._first_fits(cr, fast, others, e)


def placement(table: Table, cr: Compiled, t: int, w: int,
              chosen: list[tuple[int, int]]) -> Placement:
    """The Placement of `cr` over [t, t + w) on `chosen` (node, tasks): each node's
    per-task vector times its tasks, or its whole capacity for an exclusive request."""
    alloc = []
    items = []
    nodes, cap, d = table.nodes, table.cap, cr.d
    per: dict[int, tuple[tuple[int, ...], object]] = {}
    for i, ntasks in chosen:
        if cr.exclusive:
            v = cap[i]
            r = table.resources(v)
        else:
            got = per.get(ntasks)
            if got is None:
                v = tuple([x * ntasks for x in d])
                got = per[ntasks] = (v, table.resources(v))
            v, r = got
        alloc.append((nodes[i].name, r))
        items.append((i, v))
    return Placement(t, t + w, tuple(alloc), tuple(items), table.version)
