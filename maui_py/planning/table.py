"""The time-indexed reservation table: what every node has free over time.

The facade of the node table: ReservationTable holds the state and answers the Planner
protocol (planning/api.py); its parts, each a class it derives from, keep one idea each:
the step functions and change-point indexes (timeline.py), the fresh load of a snapshot's
running jobs (freshload.py), request compiling and per-node fits (compiling.py),
reservation credits (credits.py) and the earliest-start scan (scan.py); steps.py has their plain vector functions. Its _check composes the parts'.

N nodes, P change points, h holds on a node, k nodes in a hold. Python-level costs are
given below; big-int operations cost O(N/64) machine words each and are counted as one.
"""

from __future__ import annotations

from bisect import bisect_right
from heapq import heappop, heappush
from typing import Iterable, Sequence

from ..cfg.choices import NodeAllocation
from ..model import JobRequest, Node, Resources
from . import endheap, givenback
from .api import (FOREVER, NEVER, Ability, Compiled, NoPlacement, OverAllocation, Placement,
                  Unsupported, Window)
from .bitset import NearMembers, mask_of, members
from .compiling import Compiling
from .credits import Credits
from .freeshape import FreeShapes
from .freshload import FreshLoading
from .firstnow import first_now, placement, walk_order, walk_start
from .lastnow import asks_last_now, last_now
from .nowwalk import NowOrder
from .nodechoice import select
from .points import PointIndex
from .scan import Scanning
from .timeline import Timeline
from .steps import TableHold, ever_full, vadd, index_nodes


NOT_BY_THEN = NoPlacement("does not fit by the time asked")
"""earliest_start's answer when nothing fits by `until`: one frozen value, not one built per
question (a deep queue's backfill asks hundreds of thousands)."""


class ReservationTable(Timeline, FreshLoading, Compiling, Credits, Scanning, givenback.GivenBack,
                       endheap.EndQuestions):
    """Free resources of every node over time, and the earliest-start question on them."""

    abilities: frozenset[str] = frozenset()

    def __init__(self, nodes: Sequence[Node], origin: int):
        """An empty table (nothing held). O(N)."""
        self.origin = int(origin)
        self.nodes: tuple[Node, ...] = tuple(nodes)
        self.index = index_nodes(self.nodes)
        gres = sorted({k for n in self.nodes for k, _ in n.resources.gres})
        self.track_mem = any(n.resources.mem > 0 for n in self.nodes)
        self.dims: tuple[str, ...] = ("procs",) + (("mem",) if self.track_mem else ()) + tuple(gres)
        self._gres_pos = {g: i + (2 if self.track_mem else 1) for i, g in enumerate(gres)}
        self.zero: tuple[int, ...] = (0,) * len(self.dims)
        self._res_cache: dict[tuple[int, ...], Resources] = {}
        self._vec_cache: dict[int, tuple[Resources, tuple[int, ...]]] = {}
        self._vec_by_value: dict[tuple, tuple[int, ...]] = {}
        """vector() of resources seen before, by value: a snapshot's allocations repeat a
        few hundred shapes in distinct objects. At most VECTORS entries."""
        self.cap: list[tuple[int, ...]] = [self.vector(n.resources) for n in self.nodes]
        n = len(self.nodes)
        self.all_mask = (1 << n) - 1
        self.usable = mask_of([i for i, nd in enumerate(self.nodes) if nd.state.usable], n)
        classes: dict[tuple[int, ...], list[int]] = {}
        for i, c in enumerate(self.cap):
            classes.setdefault(c, []).append(i)
        self.cap_classes: list[tuple[tuple[int, ...], int]] = sorted(
            (c, mask_of(ix, n)) for c, ix in classes.items())
        self._T: list[list[int]] = [[NEVER]] * n              # one list shared by all
        self._U: list[list[tuple[int, ...]]] = [[self.zero]] * n
        """Step functions; nodes with equal ones share the lists, which are never mutated."""
        self._pts = PointIndex()
        self._gdims: tuple[int, ...] = tuple(self._gres_pos.values())
        """Positions of the generic resources in a vector (empty: no gres index kept), the
        last ones: v[_gstart:] != _gzero says whether v takes any."""
        self._gstart = len(self.dims) - len(self._gdims)
        self._gzero = self.zero[self._gstart:]
        self._gpts = PointIndex()
        """The gres index (module docstring): idle and frees unused."""
        self.gfull0 = 0
        """Nodes with some gres all taken at the origin."""
        self.idle0 = self.all_mask
        self.full0 = mask_of([i for i, c in enumerate(self.cap) if c[0] <= 0], n)
        self.later = 0
        """Nodes with a change point after the origin (the OR of every point's chg set): no
        run of points changes a node outside it, which node choice and the scan read
        without walking the points."""
        self.fills = 0
        """Nodes whose processors are all taken after some change point (the OR of every
        point's full set): no run of points fills a node outside it (scan)."""
        self.holds: dict[str, TableHold] = {}
        self._ends: list[tuple[int, str]] = []
        """Holds' ends (planning/endheap.py): a push costs O(log H) in C, where a sorted
        list's add cost some 4 us per start."""
        self._feature_masks: dict[str, int] = {}
        self._compiled: dict[tuple, Compiled | NoPlacement] = {}
        self._pmax: dict[int, tuple[list[int], list[tuple[int, ...]], list[tuple[int, ...]],
                                    dict[tuple, int]]] = {}
        """id(T) -> (T, U, running maxima of U, fits from the origin): see _from_origin."""
        self._flat_fits: dict[tuple, dict[int, tuple[list[int], int]]] = {}
        """(per-task vector, exclusive) -> node -> (its step function's T, fit): for nodes
        whose usage never rises above the origin's, whose fit from the origin is the same
        over any window (_fits_now reads it with one look-up while T is the node's)."""
        self._class_masks: dict[str, int] = {}
        self._near, self._now_order = NearMembers(), NowOrder()   # start-now (bitset, nowwalk)
        self.overcommitted: set[int] = set()
        self.freed = 0
        """Bumped whenever resources come free earlier than planned (a hold released before
        its end) or a hold is forced in as reported: a reservation made while it had
        another value may no longer be the earliest. Unchanged means no start can move
        earlier, which lets the cycle keep reservations instead of re-making them."""
        self.released: list[givenback.Step] = []     # what given_back reads (givenback.py)
        self._floors: dict[tuple, list[tuple[int, int, int, Compiled]]] = {}
        self._floors_at: tuple[int, int] | None = None
        """Earliest starts found since the last release or origin move: see _floor."""
        self.credits_against: dict[str, set[str]] = {}
        """Reservation owner -> the credit holds jobs inside it have taken from it."""
        self.members_of: dict[str, set[str]] = {}
        """Reservation owner -> the holds placed inside it (see TableHold.inside)."""
        self.version = 0
        """Bumped by every change of the table (a Placement remembers the one it saw)."""
        self.free_now = sum(c[0] for i, c in enumerate(self.cap) if (self.usable >> i) & 1)
        """Processors free at the origin on usable nodes: the O(1) test backfill starts from."""
        self.shapes = FreeShapes(self.nodes, self.cap, self.usable)    # kinds: freeshape.py


    # ---------------------------------------------------------------- holds
    def _items(self, allocation: Iterable[tuple[str, Resources]]
               ) -> tuple[tuple[int, tuple[int, ...]], ...]:
        merged: dict[int, tuple[int, ...]] = {}
        index = self.index
        for name, res in allocation:
            i = index.get(name)
            if i is None:
                raise KeyError(f"unknown node {name!r}")
            v = self.vector(res)
            merged[i] = vadd(merged[i], v) if i in merged else v
        return tuple(merged.items())

    def _register(self, owner: str, kind: str, start: int, end: int,
                  items: tuple[tuple[int, tuple[int, ...]], ...]) -> None:
        self.holds[owner] = TableHold(owner, kind, start, end, items,
                                      1 << items[0][0] if len(items) == 1 else
                                      mask_of([i for i, _ in items], len(self.nodes)),
                                      dict(items))
        heappush(self._ends, (end, owner))

    def reserve(self, owner: str, start: int, end: int,
                allocation: Iterable[tuple[str, Resources]], kind: str = "job",
                force: bool = False, inside: Iterable[str] = (), procs: int | None = None,
                checked: bool = False) -> None:
        """Hold `allocation` over [start, end) for `owner`.

        Raises KeyError if the owner already holds something (release first) and
        OverAllocation if a node lacks room, unless `force` (running jobs reported by the
        resource manager are recorded as they are). O(groups x h + k) for k nodes in groups
        of nodes sharing a step function.

        `inside`: reservations whose resources this hold may use (the job is in their access
        lists). Where it overlaps them, a credit hold takes the overlap back from the
        reservation, so that usage is counted once: outsiders still see exactly the
        reservation's amount, other members (who ignore the reservation and its credits)
        still see this hold. Credits never exceed what the hold takes nor what the
        reservation holds (less other members' credits), at any instant (_take_credits).
        `procs` (a count on no nodes) is the count planner's (Unsupported); `checked`, its
        hint that the room was checked, is not needed here.
        """
        if procs is not None:
            raise Unsupported("the node table holds resources on named nodes only")
        if owner in self.holds:
            raise KeyError(f"{owner!r} already holds resources; release it first")
        items = self._items(allocation)
        s = max(start, self.origin)
        if end <= s or not items:
            return
        inside = tuple(o for o in inside if o in self.holds)
        exclude = self.with_credits(inside) if inside else None
        seen: dict[tuple, bool] = {}
        for i, v in items:
            key = (id(self._T[i]), v, self.cap[i])
            ok = seen.get(key)
            if ok is None:
                room = self._room(i, s, end, exclude)
                ok = seen[key] = all(a <= b for a, b in zip(v, room) if a)
                if not ok and not force:
                    raise OverAllocation(
                        f"{owner}: node {self.nodes[i].name} lacks room for "
                        f"{self.resources(v)} over [{s}, {end}) (free {room})")
            if not ok:
                self.overcommitted.add(i)
        if force:
            self.freed += 1
        self._register(owner, kind, start, end, items)
        self._splice(items, start, end, 1)
        if inside:
            self._take_credits(owner, inside)
        self.version += 1

    def reserve_placement(self, owner: str, p: Placement, kind: str = "job",
                          inside: Iterable[str] = ()) -> None:
        """reserve() for a Placement this table just computed: when the table has not changed
        since, its node indices and vectors are used as they are and the room check is
        skipped (it was the scan's). O(groups x h + k)."""
        inside = tuple(inside)
        if p.version != self.version or not p.items:
            self.reserve(owner, p.start, p.end, p.allocation, kind, inside=inside)
            return
        if owner in self.holds:
            raise KeyError(f"{owner!r} already holds resources; release it first")
        self._register(owner, kind, p.start, p.end, p.items)
        self._splice(p.items, p.start, p.end, 1)
        inside = tuple(o for o in inside if o in self.holds)
        if inside:
            self._take_credits(owner, inside)
        self.version += 1

    def load(self, holds: Iterable[tuple[str, int, int, Iterable[tuple[str, Resources]], str]]
             ) -> None:
        """Record many holds at once, as reported (no room check): (owner, start, end,
        allocation, kind). The change-point index is updated once at the end.
        O(H x groups x h + total nodes held); on a table that has held nothing yet
        (_load_fresh), O(total nodes held + h log h per distinct step function + P x N/64)."""
        if self.version == 0 and not self.holds:
            self._now_order = NowOrder()     # step functions remade: drop it
            self._load_fresh(holds)
        else:
            acc: dict[int, list[int]] = {}
            acc0 = [0, 0, 0, 0, 0]
            for owner, start, end, allocation, kind in holds:
                if owner in self.holds:
                    raise KeyError(f"{owner!r} already holds resources; release it first")
                items = self._items(allocation)
                if end <= max(start, self.origin) or not items:
                    continue
                self._register(owner, kind, start, end, items)
                self._splice(items, start, end, 1, acc, acc0)
            self._apply(acc, acc0)
            for i in range(len(self.nodes)):
                if any(x > c for u in self._U[i] for x, c in zip(u, self.cap[i])):
                    self.overcommitted.add(i)
        self.freed += 1
        self.version += 1

    def release(self, owner: str) -> bool:
        """Drop everything `owner` holds, with the credits it took and those taken against it;
        False when it held nothing (credit holds go only with their holder or reservation).
        Members that may now take more credit (those of a released reservation, those
        sharing nodes and time with a released member in its reservations) re-take theirs.
        Same cost as reserve, plus one _take_credits per such member."""
        h = self.holds.get(owner)
        if h is None or h.kind == "credit":
            return False
        plain = not (h.inside or h.credits or owner in self.members_of
                     or owner in self.credits_against)
        # Members whose credits may grow now: those of this reservation (their credits
        # against it go, others of their reservations may take the overlap instead), and,
        # for a member, the other members of the reservations it took credits from that
        # share nodes and time with it (the slack it leaves there).
        redo = set(self.members_of.pop(owner, ()))
        for m in redo:
            mh = self.holds[m]
            mh.inside = tuple(r for r in mh.inside if r != owner)
        took = {self.holds[c].inside[0] for c in h.credits if c in self.holds}
        for r_owner in h.inside:
            ms = self.members_of.get(r_owner)
            if ms is None:
                continue
            ms.discard(owner)
            if not ms:
                del self.members_of[r_owner]
            elif r_owner in took:
                redo.update(m for m in ms if self.holds[m].mask & h.mask
                            and self.holds[m].start < h.end and h.start < self.holds[m].end)
        for credit in h.credits:
            self._drop_credit(credit)
        for credit in sorted(self.credits_against.pop(owner, ())):
            self._drop_credit(credit)
        del self.holds[owner]
        self.freed += 1
        if plain:                       # no credit moved: what came free is this hold's
            givenback.note(self.released, self.freed, h.mask, h.start, h.end)
        self.version += 1
        self._ends = endheap.compacted(self._ends, self.holds)
        self._splice(h.alloc, h.start, h.end, -1)
        for m in sorted(redo):
            self._retake_credits(m)
        return True

    def advance(self, now: int) -> list[str]:
        """Move the origin to `now`; returns owners whose holds ended by then.

        Change points up to now are folded into the origin sets. Amortised O(1) per point
        and O(1) per node whose usage changed (step functions are trimmed once per group).
        """
        if now <= self.origin:
            return []
        self.version += 1
        self._now_order = NowOrder()     # step functions remade: drop it
        touched = 0
        idle, full = self.idle0, self.full0
        for chg, ia, fa in self._pts.pop_through(now):
            idle = (idle & ~chg) | ia
            full = (full & ~chg) | fa
            touched |= chg
        self.idle0, self.full0 = idle, full
        gpts = self._gpts
        if gpts.times and gpts.times[0] <= now:
            g = self.gfull0
            for chg, _ia, fa in gpts.pop_through(now):
                g = (g ^ (g & chg)) | fa
            self.gfull0 = g
        self.origin = now
        expired = []
        ends, holds = self._ends, self.holds
        while ends and ends[0][0] <= now:
            entry = heappop(ends)
            if endheap.live(holds, entry):
                expired.append(entry[1])
                del holds[entry[1]]
        if expired:
            self._forget_expired(expired)
        usable = self.usable
        trimmed: dict[int, tuple[list[int], list[tuple[int, ...]]]] = {}
        done = unfilled = 0
        for i in members(touched):
            T, U = self._T[i], self._U[i]
            j = bisect_right(T, now) - 1
            new = trimmed.get(id(T))
            if new is None:
                new = trimmed[id(T)] = ([NEVER] + T[j + 1:], U[j:])
            self._T[i], self._U[i] = new
            if U[j] != U[0]:
                self.shapes.move_one(i, self.cap[i], U[0], U[j])
            if len(new[0]) == 1:
                done |= 1 << i
            if not ever_full(self.cap[i], new[1], self.zero):
                unfilled |= 1 << i
            if (usable >> i) & 1:
                self.free_now += U[0][0] - U[j][0]
        self.later ^= self.later & done
        self.fills ^= self.fills & unfilled
        return expired

    def earliest_start(self, request: JobRequest | Compiled, wallclock: int, after: int | None = None,
                       *, policy: NodeAllocation, until: int | None = None, ignore: Iterable[str] = (),
                       job_class: str = "", exclusive: bool | None = None) -> Placement | NoPlacement:
        """The earliest start at or after `after` (default: now) and the nodes to use.

        Candidate starts are `after` and the change points behind it; the request must fit
        for the whole of [t, t + wallclock). Nodes are chosen by NODEALLOCATIONPOLICY
        `policy` (maui_py.planning.nodechoice; no default here: the cycle passes the
        configuration's). Cost: compile + scan + selection.
        """
        ignore = tuple(ignore)
        cr = request if isinstance(request, Compiled) else self.compile(request, job_class,
                                                                       exclusive)
        if isinstance(cr, NoPlacement):
            return cr
        w = max(int(wallclock), 1)
        if self.use_first and until is not None and not ignore and cr.mode == "tpn":
            t0 = walk_start(self, cr, after, until)
            order = False if t0 is None else walk_order(policy, t0, self.origin)
            if order is not False:
                chosen = first_now(self, cr, w, t0, order)      # planning/firstnow.py: same nodes
                if chosen is None:
                    return NOT_BY_THEN
                return placement(self, cr, t0, w, chosen)
        if self.use_last and not ignore and asks_last_now(self, cr, after, until, policy):
            chosen = last_now(self, cr, w)              # planning/lastnow.py: same nodes
            return NOT_BY_THEN if chosen is None else placement(self, cr, self.origin, w, chosen)
        found = self.scan(cr, wallclock, after, until, ignore)
        if found is None:
            if until is not None:
                return NOT_BY_THEN
            return NoPlacement("never fits on the nodes that are up (reservations block it)")
        t, fast, fits = found
        prefer = 0
        for o in ignore:
            h = self.holds.get(o)
            if h is not None and h.kind != "credit":
                prefer |= h.mask
        return placement(self, cr, t, w, select(self, cr, t, w, fast, fits, policy,
                                                prefer=prefer))

    def falls_by(self, t: int) -> int:
        """The nodes whose usage falls in some dimension at a change point after the
        origin and at or before t (bit i = node i; planning/memo.Carried). O(points by t)
        big-int operations."""
        pts, out = self._pts, 0
        for k in range(bisect_right(pts.times, t)):
            out |= pts.frees[k]
        return out

    def fits(self, allocation: Iterable[tuple[str, Resources]], start: int, end: int) -> bool:
        """Would holding exactly `allocation` over [start, end) fit now? O(k log h)."""
        s = max(start, self.origin)
        for name, res in allocation:
            i = self.index.get(name)
            if i is None or not (self.usable >> i) & 1:
                return False
            v = self.vector(res)
            if any(a > b for a, b in zip(v, self._room(i, s, end))):
                return False
        return True

    def next_change(self) -> float:
        """The first time after the origin at which usage changes or a hold ends (inf
        when none). O(1) amortised."""
        t = min(self._pts.times[0] if self._pts.times else float("inf"),
                self._gpts.times[0] if self._gpts.times else float("inf"))
        ends = self._ends
        while ends and not endheap.live(self.holds, ends[0]):
            heappop(ends)
        return ends[0][0] if ends and ends[0][0] < t else t

    def free_procs_at(self, t: int) -> int:
        """Not on the node table (Ability.COUNTS)."""
        raise Unsupported("free_procs_at: the count planner's (Ability.COUNTS)")

    def freed_until(self, stamp: int) -> int | None:
        """Not on the node table (Ability.REPLAN)."""
        raise Unsupported("freed_until: the count planner's (Ability.REPLAN)")

    def replan(self, owners: Sequence[str], candidates: int, freed_until: int | None = None,
               all_held: bool = False) -> tuple[int, list[tuple[str, int]]]:
        """Not on the node table (Ability.REPLAN)."""
        raise Unsupported("replan: the count planner's (Ability.REPLAN)")

    def dump(self) -> str:
        """A readable listing of holds and per-node usage, for diagnostics. O(N h + H)."""
        lines = [f"origin {self.origin}  nodes {len(self.nodes)}  holds {len(self.holds)}  "
                 f"change points {len(self._pts)}  dims {','.join(self.dims)}"]
        for h in sorted(self.holds.values(), key=lambda h: (h.start, h.owner)):
            nodes = ",".join(f"{self.nodes[i].name}:{self.resources(v)}" for i, v in h.alloc)
            lines.append(f"hold {h.owner} {h.kind} [{h.start}, {h.end}) {nodes}")
        for i, nd in enumerate(self.nodes):
            steps = " ".join(f"{'now' if t == NEVER else t}:{self.resources(u)}"
                             for t, u in zip(self._T[i], self._U[i]))
            lines.append(f"node {nd.name} cap {self.resources(self.cap[i])} {steps}")
        return "\n".join(lines)

    def check(self) -> None:
        """Assert every invariant (tests, the simulator's table check): see _check."""
        self._check()

    def _check(self) -> None:
        """Assert every invariant of the table, each part checking its own: the step
        functions against the holds and the fit caches against the step functions
        (timeline, compiling), the credits (credits), the change-point indexes (timeline),
        the kept floors (scan) and the free-shape index (freeshape). O(N h log h + P)."""
        self._check_steps()
        self._check_fit_caches()
        self._now_order.check(self)
        self._check_credits()
        self._check_index()
        self._check_floors()
        givenback.check(self.released, self.freed)
        self.shapes.check(self.cap, [U[0] for U in self._U])


