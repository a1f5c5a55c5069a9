"""CURRENTHIGHEST priority reservations on the node table left in place when their re-make
would give them back unchanged (issue 33).

Under CURRENTHIGHEST a cycle drops the last cycle's priority reservations and the priority
pass makes them again in order, as a cycle with no memory would (policy/kept.py). On the
node table that is a release, a start-now question, an earliest-start scan and a splice per
reservation and cycle, and on the site benchmark most re-makes give back the one dropped
(docs/simulator.md).

**Invariant** (why leaving one is exact). Reservation R = (start t, nodes S) of job J
(tasks per node, compiled request cr, span w) was made by the priority pass at the planner's
epoch e (`freed`, planning/memo.py), at J's earliest start with S chosen by a
NODEALLOCATIONPOLICY whose order is a fixed key per node (STATIC): S is the first
nodes_needed nodes in key order that hold per_node tasks over [t, t + w), and no start in
[e's now, t) had enough such nodes. R has been held since. Every hold added since was placed
around R (a forced one over it shows in Planner.over_in), so on a node where nothing was
given back since e no window holds more of J's tasks than it did at e, and the nodes of S
still hold theirs at t. Hence when no node given back on since e holds J's tasks over a
window starting in [now, t] that meets what it gave back (Planner.gained_from over
[now, t + 1), R's own hold and those of the reservations after it as free, since the re-make
drops them all before it makes R again, answers None; a
window missing it holds no more than before), J still fits at
no start before t, fits at t, and the feasible nodes at t are those of e less some none of
S: the re-make finds t and S again. It is made in the order of the reservations, which are
the first jobs of the priority order (a job before J would be asked before it), with no
soft limit (a blocked job reserves nothing), no reservation J may use and no standing one
(what the re-make ignores or defers for may change) and no retry hold; J keeps its request
and span, R its end (t + w) and its start after now. A re-made reservation is stamped with
the epoch after it (placed); one left in place too, the re-make it stands for having been
made at that epoch. Stamps only ever name an epoch at or before R's own, which asks more.

`tests/property/test_inplace.py` runs cycles with KEEP on and off (decisions, state and
`_check()` equal). Cost per reservation: O(regions given back since its stamp x their
nodes' segments within reach), plus a scan bounded to those regions' starts for a request
of several nodes, instead of a release, two scans and a splice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..cfg.choices import BackfillOrder, NodeAllocation, ReservationPolicy
from ..planning import memo, owners
from ..planning.api import Ability, Compiled

KEEP = True
"""Leave in place the CURRENTHIGHEST reservations whose re-make would give them back
(left); False: drop and re-make every one each cycle, the definition
tests/property/test_inplace.py compares against."""

STATIC = frozenset({NodeAllocation.FIRSTAVAILABLE, NodeAllocation.MINRESOURCE,
                    NodeAllocation.CPULOAD, NodeAllocation.PRIORITY, NodeAllocation.FASTEST})
"""Policies whose order of the nodes feasible at a later start is a fixed key per node
(planning/nodechoice.KEYS; CPULOAD is MINRESOURCE's there): the first feasible nodes in
that order do not change while the feasible set only loses nodes outside them."""

_SHORTEST_FIRST = frozenset({BackfillOrder.DURATION, BackfillOrder.HWDURATION})
"""BFPRIORITYPOLICY values after whose last reservation the priority pass ends
(priority_pass.SHORTEST_FIRST), which it does for a made one and not for a kept one."""


@dataclass(slots=True)
class Made:
    """For one planner and configuration: per job holding a CURRENTHIGHEST reservation,
    (the epoch at which it was last the re-make, its compiled request, its span). A cache
    (never stored): a reservation without a stamp is re-made."""

    table: Any
    cfg: Any
    at: dict[str, tuple[int, Compiled, int]] = field(default_factory=dict)
    left: int = 0
    """Reservations left in place, summed over cycles (operation count)."""


def applies(c) -> bool:
    """Whether reservations may be left in place this cycle (see the module docstring).
    O(1)."""
    s = c.settings
    return (KEEP and s.res_policy is ReservationPolicy.CURRENTHIGHEST
            and type(s.nap) is NodeAllocation and s.nap in STATIC
            and Ability.REPLAN not in c.table.abilities and not c.access
            and not s.has_standing and not c.limits.any_active
            and s.bf_order not in _SHORTEST_FIRST)


def _made(c) -> Made:
    """The stamps for this cycle's planner and configuration, made again for new ones."""
    caches = c.state.caches
    got = caches.inplace
    if got is None or got.table is not c.table or got.cfg is not c.cfg:
        got = caches.inplace = Made(c.table, c.cfg)
    return got


def placed(c, job, cr: Compiled) -> None:
    """Stamp a reservation just made at the job's earliest start (the priority pass, or
    core/changes' re-make): it is the re-make as of the planner's epoch now. O(1)."""
    if applies(c):
        _made(c).at[job.id] = (memo.epoch(c.table), cr, max(int(c.span(job)), 1))


def left(c, order) -> set[str]:
    """The leading reservations (those of the first jobs of `order`, in order) whose re-make
    would give them back as they are, each re-stamped at the epoch now and dated now as a
    re-make dates it (KeptReservation.made_at); empty when they may not be left
    (applies). The caller drops the others for the priority pass to re-make.
    O(reservations x regions given back since their stamps)."""
    res = c.state.reservations
    if not res or not applies(c):
        return set()
    made = _made(c)
    table, now, at = c.table, c.now, made.at
    e = memo.epoch(table)
    holds, down = table.holds, ~table.usable
    back: dict[int, list | None] = {}
    keep: set[str] = set()
    later = tuple(map(owners.priority, res))
    for k, ((job, cr, _p), (jid, kr)) in enumerate(zip(order, res.items())):
        got = at.get(jid)
        own = later[k]
        w = max(int(c.span(job)), 1)
        if (job.id != jid or got is None or cr.mode != "tpn" or kr.start <= now
                or kr.retry_until is not None or got[2] != w or kr.end - kr.start != w
                or (got[1] is not cr and got[1] != cr) or own not in holds
                or holds[own].mask & down or table.over_in(own)):
            break
        if got[0] != e:
            regions = back[got[0]] if got[0] in back else back.setdefault(
                got[0], table.given_back(got[0]))
            if regions is None or (regions and table.gained_from(
                    cr, w, regions, now, kr.start + 1, later[k:]) is not None):
                break
        at[jid] = (e, cr, w)
        kr.made_at = now
        keep.add(jid)
    made.left += len(keep)
    return keep
