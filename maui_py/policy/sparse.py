"""Which kept reservations HIGHEST's walk must visit (issue 33): the others are left as
they are without a look.

policy/kept.Stamps keeps, per kept reservation, the planner's epoch (`freed`) at which it
was last known at its earliest start with the others held, and Stamps.floor an epoch at
which every kept reservation was (the end of a walk that reached its fixed point, or a
quiet cycle; a reservation made since is stamped as made, later). Its effective stamp is
the later of the two. A reservation the walk's settled() would leave in place (True) is
one whose stamp is for the request and span its job has now, whose hold is there, on no
unusable node, its start after now, and which nothing given back since its effective
stamp could move: a region on a node it holds, or a window meeting a region on an
eligible node that keeps the processors it needs there free for its span
(givenback._gained, with CORE_REACH's bound per node). The regions since the floor
contain those since each effective stamp. Such a window lies in a run over which that
node keeps those processors free, starting before the reservation does and as long as
its span: per bucket (eligible nodes, exclusive, processors per node) the runs over the
regions' nodes, sorted by start with the longest so far (Planner.reach_runs), so a
bisection tells whether any run starting before a reservation is as long as its span; one
with none, holding none of the regions' nodes, is passed over.
So the walk visits, in priority order, only `first()`'s set, and after each move adds
`grow()`'s: the reservations the room it gave back could move (a moved one is visited
again as the walk would). Every one it does not visit, settled() would have left
(exact: the same decisions, the same table). Cost: O(R) cheap operations once per walk
(instead of settled()'s O(regions x nodes) question per reservation), plus O(R) per move
for the new room, plus reach_runs once per bucket and room.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import compress, repeat
from operator import and_, attrgetter, le

from ..planning import memo, owners
from . import wantrows

_RETRY = attrgetter("retry_until")

SPARSE = True
"""Visit only the kept reservations first()/grow() name (Want); False: the walk visits
every one, the definition tests/property/test_kept_sparse.py compares against."""


def _columns(rows: dict) -> dict:
    """Per bucket, its rows as columns (job ids, masks, spans, starts). O(rows) in C."""
    return {k: tuple(zip(*b)) for k, b in rows.items()}


class Want:
    """One walk's set of kept reservations to visit (see the module docstring)."""

    __slots__ = ("c", "stamps", "rows", "seen")

    def __init__(self, c, stamps):
        self.c, self.stamps = c, stamps
        self.rows: dict[tuple | None, tuple[tuple, ...]] = {}
        """Per bucket (wantrows.bucket_of its compiled request), the columns job id, its
        hold's node mask, its span, its start of the reservations not visited for their
        stamp alone: asked again when room comes free."""
        self.seen = 0
        """The epoch up to which the rows were asked about the room given back."""

    def first(self, order, index: dict[str, int]) -> set[str] | None:
        """The reservations settled() might not leave in place, or None (not known: visit
        every one): no floor yet, a step given back the log cannot name, a retry hold
        active (the walk handles it). O(R) in C plus O(changed) in Python with the rows
        kept between walks (policy/wantrows.Rows), else O(R) (_sort_all)."""
        c, stamps = self.c, self.stamps
        table, now, at = c.table, c.now, stamps.at
        floor = stamps.floor
        if not SPARSE or floor is None:
            return None
        e = memo.epoch(table)
        regions = table.given_back(floor)
        if regions is None:
            return None
        res = c.state.reservations
        if max(filter(None, map(_RETRY, res.values())), default=0) > now:
            return None                 # a retry hold active (in C)
        holds, down = table.holds, ~table.usable
        if table.usable == getattr(table, "all_mask", None):
            down = 0                    # every node usable: no hold meets an unusable one
        over = table.over_in if table.overcommitted else None
        old = floor < e                 # a stamp older than e may be stale
        if wantrows.ROWS and not down and over is None and not c.settings.predicting.on:
            kept = stamps.rows          # the rows kept since the last walk, brought up to date
            kept.refresh(c, order, index, at)
            want, self.rows, stale = kept.views(now, e, old)
        else:
            want, rows, stale = self._sort_all(order, index, holds, down, over, e, old)
            self.rows = _columns(rows)
            stale = _columns(stale)
        want.update(self._gain(stale, regions))
        stamps.passed += len(c.state.reservations) - len(want)
        self.seen = e
        return want

    def _sort_all(self, order, index: dict[str, int], holds, down: int, over, e: int,
                  old: bool) -> tuple[set[str], dict, dict]:
        """first()'s loop: every kept reservation to visit or a row in its bucket, and the
        rows stamped before e (when `old`). O(R)."""
        c, at, span, now = self.c, self.stamps.at, self.c.span, self.c.now
        res = c.state.reservations
        want: set[str] = set()
        rows: dict = {}
        stale: dict = {}
        pre = owners.priority("")
        for jid, kr in res.items():
            got = at.get(jid)
            if got is None or kr.start <= now:
                want.add(jid)
                continue
            job, cr, _p = order[index[jid]]
            own = pre + jid
            h = holds.get(own)
            if (h is None or got[2] != max(int(span(job)), 1)
                    or (got[1] is not cr and got[1] != cr) or h.mask & down
                    or (over is not None and over(own))):
                want.add(jid)
                continue
            d0 = cr.d[0]
            key = None if d0 <= 0 else (cr.eligible, cr.exclusive,
                                        cr.per_node * d0 if cr.mode == "tpn" else d0)
            row = (jid, h.mask, got[2], kr.start)
            b = rows.get(key)
            if b is None:
                rows[key] = [row]
            else:
                b.append(row)
            if old and got[0] < e:
                b = stale.get(key)
                if b is None:
                    stale[key] = [row]
                else:
                    b.append(row)
        return want, rows, stale

    def grow(self) -> set[str] | None:
        """After a move: the reservations the room given back since the last ask could
        move (the others are left by settled() still), or None (not known). O(rows)."""
        table = self.c.table
        e = memo.epoch(table)
        regions = table.given_back(self.seen)
        if regions is None:
            return None
        self.seen = e
        return self._gain(self.rows, regions)

    def _gain(self, rows: dict, regions) -> set[str]:
        """The rows (per bucket, columns: job ids, masks, spans, starts) some region could
        move: one holding a node of theirs, or (bucket
        (eligible nodes, exclusive, processors per node); None: no processors asked, every
        one) one with a run as long as its span, starting before it, over which a node of
        theirs it may use keeps its processors free (Planner.reach_runs, once per bucket:
        a bisection per row, column by column in C). O(rows log runs + buckets x the
        regions' nodes)."""
        if not regions or not rows:
            return set()
        table, now = self.c.table, self.c.now
        nodes = 0
        for mask, _x, _y in regions:
            nodes |= mask
        out: set[str] = set()
        for key, (jids, masks, ws, starts) in rows.items():
            if key is None:
                out.update(jids)
                continue
            hit = list(compress(jids, map(and_, masks, repeat(nodes))))
            if len(hit) == len(jids):
                out.update(hit)
                continue
            out.update(hit)
            first, most = table.reach_runs(regions, now, *key)
            if not first:
                continue
            most = [0, *most]           # most[k]: the longest of the first k runs
            out.update(compress(jids, map(le, ws, map(most.__getitem__,
                                                       map(bisect_left, repeat(first), starts)))))
        return out
