"""Start-now questions under FIRSTAVAILABLE and MINRESOURCE for tasks-per-node requests,
answered by a walk in the policy's order that stops at the nodes it takes (issue 33), and
the Placement a choice of nodes makes (ReservationTable.earliest_start's last step, shared
by both paths).

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

MINRESOURCE orders the same candidates by (capacity, index) (nodechoice._key_minresource,
_fast_minresource): the walk takes the request's capacity classes (Compiled.classes, in
the table's sorted cap_classes order, whose union is the eligible set) one after the
other, each in index order: the same first `need` nodes, the fits of the nodes after the
last taken never read. CPULOAD ranks as MINRESOURCE at a start after the origin (as Maui
does: no load is known then), so a later-instant question walks so too (walk_order).

The same walk answers a question asked at a later instant t0 (after = until = t0 > the
origin) before the first change point (core/changes.py asks it of each arrival while the
last cycle's table stands): the scan's only candidate is then t0, every node's usage is
constant over [origin, t0], so the idle and full sets at t0 are the origin's, a node's
fit over [t0, t0 + w) is its fit over [origin, t0 + w) (a flat fit _first_fits keeps) and the
nodes changing in (t0, t0 + w) are those changing before t0 + w (_origin_sets).

The walk asks only the partly used nodes the free-shape index's room masks keep
(FreeShapes.roomy, `use_room`; part of the index, so off with use_shapes): a node's usage
over a window from the origin is at least its usage at the origin, so a node whose free
vector there does not hold cr.per_node tasks has a fit below cr.per_node over the window
and the walk would pass over it: the same nodes are taken, in the same order, and "no"
stays "no".

Cost: O(dims) big-int operations plus O(k log h) for the k nodes walked
(Compiling._first_fits, with _fits_now's flat fits)."""

from __future__ import annotations

from typing import Any

from ..cfg.choices import NodeAllocation
from .api import Compiled, Placement

Table = Any
"""A ReservationTable (planning/table.py, which imports this module: not imported here)."""


def walk_start(table: Table, cr: Compiled, after: int | None, until: int | None) -> int | None:
    """The instant first_now answers the question (cr, after, until) at, when it can: for
    a tasks-per-node request asked by `until` whose scan's only candidate t0 = max(after,
    origin) (until <= t0) is the origin or an instant before the first change point (the
    module's docstring); else None. The caller checks the policy and that no owner is
    ignored. O(1)."""
    if cr.mode != "tpn" or until is None:
        return None
    origin = table.origin
    t0 = origin if after is None or after <= origin else int(after)
    if until > t0:
        return None
    if t0 > origin:
        times = table.points.times
        if times and times[0] <= t0:
            return None
    return t0


_WALKS = {"FIRSTAVAILABLE": (None, None), "MINRESOURCE": ("class", "class"),
          "CPULOAD": (False, "class")}
"""NODEALLOCATIONPOLICY -> how the walk orders candidates for a start at the origin and for
one after it: None by index, "class" by capacity class then index (first_now), False: not
the walk's (scan then select). NodeAllocation is a str enum: its members look up as these
keys. LASTAVAILABLE, PRIORITY and FASTEST are never walked."""


def walk_order(policy: object, t0: int, origin: int) -> str | None | bool:
    """How the walk orders candidates under `policy` for a start at t0 (_WALKS); False for
    a Maui33Order (MAUICOMPAT 3.3, a str enum too: select's order). O(1)."""
    if type(policy) is not NodeAllocation and type(policy) is not str:
        return False
    got = _WALKS.get(policy)
    return False if got is None else got[t0 > origin]


def first_now(table: Table, cr: Compiled, w: int, t0: int | None = None,
              order: str | None = None) -> list[tuple[int, int]] | None:
    """The (node, tasks) FIRSTAVAILABLE (`order` None) or MINRESOURCE (`order` "class":
    the request's capacity classes one after the other, walk_order) takes for
    tasks-per-node request `cr` starting at t0 (default: the origin; else an instant
    walk_start gave) for `w` seconds, in the policy's order; None when it does not fit
    then. Holds no owner is ignored for (the caller asks only then)."""
    origin = table.origin
    if t0 is None:
        t0 = origin
    # no change point by t0: the free-shape index may answer (Scanning._ruled_out's test)
    if table.use_shapes and table.shapes.cannot_start(cr.eligible, cr.d, cr.mode, cr.per_node,
                                                      cr.nodes_needed, cr.tasks):
        return None
    e = t0 + w
    fast, others = now_sets(table, cr, e)
    if others and table.use_room and table.use_shapes:  # only nodes with room now may fit
        room = table.shapes.roomy(tuple([x * cr.per_node for x in cr.d]))
        if room is not None:
            others &= room
    groups = None if order is None else tuple([m for m, _kc in cr.classes])
    return table._first_fits(cr, fast, others, e, t0 if t0 > origin else None, groups)


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


def now_sets(table: Any, cr: Compiled, e: int) -> tuple[int, int]:
    """The scan's candidates for `cr` at the origin, for a start-now question ending at e:
    (fast, others) = the eligible idle nodes nothing touches before e, and the other
    eligible nodes that may still hold a task (not full now or within the window; none for
    an exclusive request). O(1) big-int operations."""
    E = cr.eligible
    idle, full = table.idle0, table.full0
    touched, fullin = table._origin_sets(E, idle, full, e)
    fast = (E ^ (E & touched)) & idle
    if cr.exclusive:
        return fast, 0
    others = E ^ fast
    if cr.d[0] > 0:
        others ^= others & (full | fullin)
    return fast, others
