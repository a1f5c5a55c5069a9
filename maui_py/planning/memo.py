"""The one memo of "what is free only shrinks until `freed` moves" (issue 33).

A planner's `freed` (planning/api.py) moves whenever something held is given back; in
between, holds are only added, so no node has more room anywhere than it had. A request
that failed to fit for n tasks over w seconds therefore fails again, until `freed` moves,
for any request of the same shape asking at least n tasks for at least w seconds. The
passes (core/cycle.fits_now, policy/priority_pass, policy/backfill) remember such failures
here instead of each re-deriving the rule: one ShrinkMemo per question asked, its entries
dropped as soon as the epoch it was filled at is not the planner's any more.
"""

from __future__ import annotations

from operator import ge
from typing import Hashable

from .api import Ability


def epoch(planner) -> int:
    """The planner's `freed` (planning/api.Planner): equal values mean nothing was given
    back in between, so what is free has only shrunk. The one place outside planning/
    reads it (tests/unit/test_import_rules.py). O(1)."""
    return planner.freed


class ShrinkMemo:
    """Failures (tasks, seconds) per request shape, valid while the epoch stays the same.

    Per shape only the failures no other one dominates are kept (a failure of n tasks
    for w seconds makes every one asking at least as much redundant), so a look-up costs
    O(kept failures of that shape), in practice one or two."""

    __slots__ = ("epoch", "failed")

    def __init__(self) -> None:
        self.epoch: Hashable = None
        self.failed: dict[Hashable, list[tuple[int, int]]] = {}

    def _at(self, epoch: Hashable) -> dict[Hashable, list[tuple[int, int]]]:
        """The failures recorded at `epoch`, emptied first when the epoch moved. O(1)."""
        if epoch != self.epoch:
            self.epoch = epoch
            self.failed = {}
        return self.failed

    def fails(self, epoch: Hashable, shape: Hashable, n: int, w: int) -> bool:
        """Is a request of `shape` for n tasks over w seconds known to fail at `epoch`?
        O(kept failures of that shape)."""
        if epoch != self.epoch:
            self.epoch = epoch
            self.failed = {}
            return False
        for fn, fw in self.failed.get(shape) or ():
            if n >= fn and w >= fw:
                return True
        return False

    def note(self, epoch: Hashable, shape: Hashable, n: int, w: int) -> None:
        """Remember that `shape` failed for n tasks over w seconds at `epoch`: failures
        asking at least as much go (this one answers for them)."""
        failed = self._at(epoch)
        kept = [(fn, fw) for fn, fw in failed.get(shape) or () if not (fn >= n and fw >= w)]
        kept.append((n, w))
        failed[shape] = kept


class VectorShrinkMemo:
    """ShrinkMemo's rule with the per-task vector out of the shape: a failure of n tasks of
    per-task vector d for w seconds answers for every request of the same shape asking at
    least n tasks of a vector at least d (componentwise) for at least w seconds, because a
    node holds no more tasks of a larger vector (steps.fit_on; scan._floor reads the same
    rule). The cycle's start-now questions (core/cycle.fits_now) so share failures between
    jobs whose memory per task differs, as a site's one-core jobs mostly do.

    Per shape only failures no other dominates are kept, and at most KEEP of them (the
    oldest go: a memo that forgets answers less, never wrongly). O(KEEP x dims) a look-up."""

    KEEP = 8

    __slots__ = ("epoch", "failed", "most")

    def __init__(self) -> None:
        self.epoch: Hashable = None
        self.failed: dict[Hashable, list[tuple[int, int, tuple[int, ...]]]] = {}
        self.most: dict[Hashable, int] = {}
        """Ceilings (above_most): per (eligible, d, tasks per node), the most nodes that
        may hold that many tasks of d now, at this epoch."""

    def fails(self, epoch: Hashable, shape: Hashable, n: int, w: int,
              d: tuple[int, ...]) -> bool:
        """Is a request of `shape` for n tasks of vector d over w seconds known to fail at
        `epoch`? O(kept failures of that shape x dims)."""
        if epoch != self.epoch:
            self.epoch = epoch
            self.failed, self.most = {}, {}
            return False
        for fn, fw, fd in self.failed.get(shape) or ():
            if n >= fn and w >= fw and (d == fd or all(map(ge, d, fd))):
                return True
        return False

    def note(self, epoch: Hashable, shape: Hashable, n: int, w: int,
             d: tuple[int, ...]) -> None:
        """Remember that `shape` failed for n tasks of d over w seconds at `epoch`: kept
        failures asking at least as much go (this one answers for them)."""
        if epoch != self.epoch:
            self.epoch = epoch
            self.failed, self.most = {}, {}
        got = self.failed.get(shape)
        if got is None:
            self.failed[shape] = [(n, w, d)]
            return
        kept = [f for f in got if not (f[0] >= n and f[1] >= w and all(map(ge, f[2], d)))]
        kept.append((n, w, d))
        if len(kept) > self.KEEP:
            del kept[0]
        self.failed[shape] = kept

    def above_most(self, epoch: Hashable, cr, ignore: tuple) -> bool:
        """Does the start-now question of tasks-per-node request `cr`, no owner ignored,
        ask more nodes than its ceiling at `epoch` (note_most) lets hold its tasks? Then it
        fails, for any span. O(1)."""
        if ignore or epoch != self.epoch or cr.mode != "tpn":
            return False
        most = self.most.get((cr.eligible, cr.d, cr.per_node))
        return most is not None and cr.nodes_needed > most

    def lend_most(self, epoch: Hashable, cr, most: int) -> None:
        """A ceiling of cr's (eligible, d, per node) known to hold at `epoch` from
        elsewhere (Carried: the last cycle's, no node given back since with room for a
        node's share): kept as note_most's, unless one is known. O(1)."""
        if epoch != self.epoch:
            self.epoch = epoch
            self.failed, self.most = {}, {}
        self.most.setdefault((cr.eligible, cr.d, cr.per_node), most)

    def note_most(self, epoch: Hashable, table, cr, ignore: tuple, now: int) -> None:
        """After the start-now question (at `now`) of `cr` failed at `epoch`: when it is
        a tasks-per-node request, no owner ignored, on a table with the free-shape index
        and no change point between its origin and now (CEILING on), its ceiling, the most
        nodes of cr.eligible that hold cr.per_node tasks of cr.d over a window from the
        origin by the free-shape index's bound (planning/freeshape.FreeShapes.bound, an
        upper bound: a node's usage over such a window is at least its usage at the
        origin), unless known at this epoch already. Until the epoch moves what is free
        only shrinks, so the number of such nodes is at most the ceiling, and a request
        of the same (eligible, d, per node) asking more nodes finds too few whatever its
        span: MPI jobs of many sizes, each its own shape in `failed`, so share one
        failure. O(kinds met x buckets) once per key and epoch."""
        if not CEILING or ignore or cr.mode != "tpn" or not getattr(table, "use_shapes", False):
            return
        if now > table.origin and (times := table.points.times) and times[0] <= now:
            return
        if epoch != self.epoch:
            self.epoch = epoch
            self.failed, self.most = {}, {}
        key = (cr.eligible, cr.d, cr.per_node)
        if key not in self.most:
            self.most[key] = table.shapes.bound(cr.eligible, cr.d, cr.per_node)[1]


CEILING = True
"""Start-now questions of tasks-per-node requests are answered "no" by the ceiling of their
(eligible, d, tasks per node) when they ask more nodes (VectorShrinkMemo.above_most,
core/cycle.fits_now); False: only by the failures kept per shape (the definition
tests/property/test_memo_switches.py compares against)."""


CARRY = True
"""Ask a cycle's start-now questions of the last cycle's failures too (Carried); False:
only this cycle's (the definition tests/property/test_memo_switches.py compares
against)."""


CARRY_MOST = True
"""Carried asks the last cycle's ceilings too (VectorShrinkMemo.above_most: a tasks-per-node
request, no owner ignored, asking more nodes than its ceiling then fails now when no node
of its given back on since has room for a node's share) and lends a ceiling so found to
this cycle's memo; False: only the failures per shape (the definition
tests/property/test_memo_switches.py compares against)."""


class Carried:
    """The last cycle's start-now failures (its VectorShrinkMemo, all noted at its last
    epoch e, on the node table `table`; core/changes.arrivals_wait adds those it finds at
    later instants before this cycle) asked again in this cycle (issue 33).

    **Invariant.** A request that failed to start at epoch e (for n tasks of vector d
    over w seconds, at the origin then or at an instant since) still fails now for any request of the same shape
    asking no less, when no node it may use that something was given back on since e
    (Planner.given_back: every release is logged; an unlogged step, a forced hold or a
    load, makes it unknown, and nothing is carried) has room now for a node's share
    (FreeShapes.roomy, a superset of the nodes with that much free now), nor any node
    whose usage falls between the last cycle's origin and now (a hold's planned end
    passed: `fell`, read before the origin moves). Why: holds were only added on every
    other node (releases are logged; non-job reservations, whose credits and windows move
    usage otherwise, are not held where this is asked: core/cycle.py), so its usage is at
    least what it was when the question was asked, and, not falling between then and now,
    at least as high over a window starting now as over the window asked then; such nodes
    hold no more of its tasks than then, and the others hold none. A verdict per compiled request and span is kept while
    `freed` stays: within a cycle what is free now only shrinks meanwhile, so a "fails"
    stays true (and a "may not" is only less than it could say). O(regions) once per
    epoch, then O(1) per question asked before, else O(kept failures of the shape x dims)
    plus O(dims) big-int operations; `tests/property/test_memo_switches.py`."""

    __slots__ = ("memo", "table", "fell", "at", "gone", "verdicts", "into")

    def __init__(self, memo: VectorShrinkMemo, table, now: int,
                 into: VectorShrinkMemo | None = None) -> None:
        """`table`: the last cycle's planner, not yet moved to `now` (a cycle makes this
        before it syncs): the nodes whose usage falls between its origin and now are
        read from it here. `into`: this cycle's memo, lent the ceilings found to hold."""
        self.memo, self.into = memo, into
        self.table = table if table is not None and Ability.COUNTS not in table.abilities else None
        self.fell = self.table.falls_by(now) if self.table is not None else 0
        self.at: int | None = None
        self.gone: int | None = None
        self.verdicts: dict[tuple[int, int], bool] = {}

    def fails(self, table, shape: Hashable, n: int, w: int, cr, epoch: int) -> bool:
        """Does the question (shape, n tasks of cr.d over w; n and the shape are cr's)
        fail by the last cycle's failures? Kept per (request, span) while the epoch
        stays. O(1) for a question asked before at this epoch, else O(kept failures of
        the shape x dims) plus O(dims) big-int operations (O(regions) once per epoch)."""
        if table is not self.table or not CARRY:
            return False
        if self.at != epoch:
            self._renew(table, epoch)
        key = (id(cr), w)
        got = self.verdicts.get(key)
        if got is None:
            m = self.memo
            if self.gone is None:
                got = False
            elif m.fails(m.epoch, shape, n, w, cr.d):
                got = self._roomless(table, cr)
            elif CARRY_MOST and not shape[-1] and m.above_most(m.epoch, cr, ()):
                got = self._roomless(table, cr)     # shape[-1]: the owners ignored
                if got and self.into is not None:
                    self.into.lend_most(epoch, cr, m.most[(cr.eligible, cr.d, cr.per_node)])
            else:
                got = False
            self.verdicts[key] = got
        return got

    def _renew(self, table, epoch: int) -> None:
        """The nodes given back on since the memo's epoch (None: not known, or nothing
        noted then), for questions at `epoch`; verdicts forgotten. O(regions)."""
        self.at, self.verdicts = epoch, {}
        regions = None if self.memo.epoch is None else table.given_back(self.memo.epoch)
        gone = None
        if regions is not None:
            gone = self.fell
            for mask, _s, _e in regions:
                gone |= mask
        self.gone = gone

    def _roomless(self, table, cr) -> bool:
        """No node of cr's given back on since the memo's epoch has room now for a node's
        share of it. O(dims)."""
        m = cr.eligible & self.gone
        if not m:
            return True
        if not table.use_shapes:
            return False
        per = cr.per_node if cr.mode == "tpn" else 1
        room = table.shapes.roomy(tuple([x * per for x in cr.d]))
        return room is not None and not (m & room)
