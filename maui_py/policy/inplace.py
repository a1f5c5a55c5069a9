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
from .limits import SOFT

KEEP = True
"""Leave in place the CURRENTHIGHEST reservations whose re-make would give them back
(left); False: drop and re-make every one each cycle, the definition
tests/property/test_inplace.py compares against."""

STATIC = frozenset({NodeAllocation.FIRSTAVAILABLE, NodeAllocation.MINRESOURCE,
                    NodeAllocation.CPULOAD, NodeAllocation.PRIORITY, NodeAllocation.FASTEST})
"""Policies whose order of the nodes feasible at a later start is a fixed key per node
(planning/nodechoice.KEYS; CPULOAD is MINRESOURCE's there): the first feasible nodes in
that order do not change while the feasible set only loses nodes outside them."""

UNTOUCHED = True
"""Under throttling limits or LASTAVAILABLE, where the room given back cannot be weighed
(see `untouched`), leave in place the reservations whose re-make would see the planner as
it was when made: nothing given back or placed since but the later reservations and the
clock (issue 33). False: re-make them (the definition tests/property/test_inplace_untouched.py
compares against)."""

UNTOUCHED_NAP = STATIC | {NodeAllocation.LASTAVAILABLE}
"""Policies the untouched rule may keep under: a fixed key per node, or LASTAVAILABLE's
keys, which read only the steps after the origin and the origin itself (see untouched)."""

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
    seen: dict[str, tuple] = field(default_factory=dict)
    """The untouched rule's stamps: job id -> (job, the planner's version and epoch, its
    next change, the origin, the usable nodes, `count`), as the job's (virtual) re-make
    left them."""
    count: int = 0
    """Reservations placed and stamped (placed) under the untouched rule so far."""


def applies(c) -> bool:
    """Whether reservations may be left in place this cycle (see the module docstring).
    O(1)."""
    s = c.settings
    return (KEEP and s.res_policy is ReservationPolicy.CURRENTHIGHEST
            and type(s.nap) is NodeAllocation and s.nap in STATIC
            and Ability.REPLAN not in c.table.abilities and not c.access
            and not s.has_standing and not c.limits.any_active
            and s.bf_order not in _SHORTEST_FIRST)


def untouched_applies(c) -> bool:
    """Whether the untouched rule applies this cycle (where `applies` does not): a
    CURRENTHIGHEST node table, with throttling limits (then every cycle is a full one:
    core/changes never runs, so each cycle asks `left` and stamps what it makes), a node
    choice of UNTOUCHED_NAP, no access to reservations, no standing one, no BFPRIORITYPOLICY
    shortest first, MAUICOMPAT's plain rules (MAUICOMPAT 3.3 plans on the node table only). O(1)."""
    s = c.settings
    return (UNTOUCHED and s.res_policy is ReservationPolicy.CURRENTHIGHEST
            and type(s.nap) is NodeAllocation and s.nap in UNTOUCHED_NAP
            and c.limits.any_active and Ability.REPLAN not in c.table.abilities
            and not c.access and not s.has_standing and s.bf_order not in _SHORTEST_FIRST
            and s.compat.counts and not s.compat.windows and not s.compat.turns
            and not applies(c))


def _made(c) -> Made:
    """The stamps for this cycle's planner and configuration, made again for new ones."""
    caches = c.state.caches
    got = caches.inplace
    if got is None or got.table is not c.table or got.cfg is not c.cfg:
        got = caches.inplace = Made(c.table, c.cfg)
    return got


def placed(c, job, cr: Compiled) -> None:
    """Stamp a reservation just made at the job's earliest start (the priority pass, or
    core/changes' re-make): it is the re-make as of the planner's epoch now; under the
    untouched rule also as of its version, next change, origin and usable nodes (its view
    is the planner now: the later reservations are made after it). O(1)."""
    if applies(c):
        _made(c).at[job.id] = (memo.epoch(c.table), cr, max(int(c.span(job)), 1))
    elif untouched_applies(c):
        made, table = _made(c), c.table
        made.count += 1
        made.at[job.id] = (memo.epoch(table), cr, max(int(c.span(job)), 1))
        made.seen[job.id] = (job, table.version, memo.epoch(table), table.next_change(),
                             table.origin, table.usable, made.count)


def left(c, order) -> set[str]:
    """The leading reservations (those of the first jobs of `order`, in order) whose re-make
    would give them back as they are, each re-stamped at the epoch now and dated now as a
    re-make dates it (KeptReservation.made_at); empty when they may not be left
    (applies; `untouched` answers where untouched_applies). The caller drops the others
    for the priority pass to re-make. O(reservations x regions given back since their
    stamps)."""
    res = c.state.reservations
    if not res:
        return set()
    if not applies(c):
        return untouched(c, order) if untouched_applies(c) else set()
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


def untouched(c, order) -> set[str]:
    """`left` where `untouched_applies`: the leading reservations whose re-make would see
    the planner as it saw it when the reservation was made, so that it makes it again.

    **Invariant** (why leaving one is exact). The re-make of reservation R of job J (k-th
    in the order and in the reservations) sees the planner's holds less those of the
    reservations after it (the cycle drops them all first) and with those before it kept,
    and the origin now: its view. R's stamp (placed, or here when left) holds the
    planner's version and epoch as of that view (the epoch moves with every release, the
    version with every placement, release and advance), its next change then, its origin
    and usable nodes, and how many reservations were stamped so far. When the epoch is
    the stamp's, no hold was given back since; when the origin moved, it moved at least
    once, so when the version is the stamp's plus one plus the reservations stamped since
    (each one placement, all after J: a later one), the origin moved once and nothing
    else was placed: the view now is the view then, advanced from o1 to o2. When the next
    change then was after o2 no step of the view lies in (o1, o2], so every node's steps
    after o2 are as they were: J fits at no start in [o2, t) (none in [o1, t) fitted), fits
    at t > o2 on the same feasible nodes with the same tasks each; a node's fixed key
    (STATIC) is the same, and LASTAVAILABLE's keys (nodechoice: the gap before t, clipped
    at the origin, the gap after the end, the fit, the index; idle nodes grouped by the
    global change points before t and swept over those after the end) change only in
    that every gap clipped at o1 is now clipped at o2, the same for every such node and
    below no unclipped one: the same order. So the scan and node choice give R again. The
    priority pass would reach J right after the ones kept before it (the same jobs in the
    same order: the same counts per group) and ask only its soft limits, with the usage
    of the cycle's start (nothing starts before it: no retry hold is active), as asked
    here; job, request and span are the ones stamped. A left reservation is stamped
    again as of its view after the releases that follow (`kept.reserved_jobs` releases
    each reservation not left: one version and one epoch each), its next change read
    now, before them (no later: a stricter bound).

    `tests/property/test_inplace_untouched.py` runs cycles with UNTOUCHED on and off
    under random limits, QOSs and node choices (decisions, state and `_check()` equal).
    Cost: O(1) per reservation looked at, plus one limit verdict; it saves a release, a
    start-now question, a scan, a node choice and two splices."""
    res, table, now = c.state.reservations, c.table, c.now
    if any(kr.retry_until is not None for kr in res.values()):
        return set()
    made = _made(c)
    if len(made.seen) > 2 * len(res) + 64:      # forget the stamps of reservations gone
        made.seen = {j: v for j, v in made.seen.items() if j in res}
        made.at = {j: v for j, v in made.at.items() if j in res}
    seen, at, span, count = made.seen, made.at, c.span, made.count
    v, e, usable, origin = table.version, memo.epoch(table), table.usable, table.origin
    holds, down = table.holds, ~usable
    lim, usage, run_now = c.limits, c.usage, c.state.run_now
    keep: list[tuple[str, object, Compiled, int]] = []
    for (job, cr, _p), (jid, kr) in zip(order, res.items()):
        got, stamp = seen.get(jid), at.get(jid)
        w = max(int(span(job)), 1)
        own = owners.priority(jid)
        if (got is None or stamp is None or got[0] is not job or job.id != jid
                or got[2] != e or got[1] + (count - got[6]) + 1 != v
                or got[3] <= now or got[4] >= origin or origin != now or got[5] != usable
                or kr.start <= now or kr.end - kr.start != w or stamp[2] != w
                or (stamp[1] is not cr and stamp[1] != cr)
                or own not in holds or holds[own].mask & down or table.over_in(own)
                or (jid not in run_now and lim.active_violation(job, usage, SOFT))):
            break
        keep.append((jid, job, cr, w))
    if not keep:
        return set()
    kept = {k[0] for k in keep}
    rel = sum(1 for jid in res if jid not in kept and owners.priority(jid) in holds)
    nxt = table.next_change()
    for jid, job, cr, w in keep:
        at[jid] = (e + rel, cr, w)
        seen[jid] = (job, v + rel, e + rel, nxt, now, usable, count)
        res[jid].made_at = now
    made.left += len(keep)
    return kept
