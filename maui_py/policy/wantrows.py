"""policy/sparse.Want.first's rows kept between walks (issue 33): O(changed) in Python
instead of its test per kept reservation.

first() sorts every kept reservation into "visit" (no stamp, its start by now, no hold,
a stamp for another span or request, its hold on an unusable node or over capacity) or
a row (job id, its hold's node mask, its stamped span, its start) in the bucket of its
compiled request. Apart from now, the unusable nodes, the overcommitted ones and the
predictions (global: asked below, or the loop runs), what it reads of one reservation is
five values: its stamp (Stamps.at[id], a tuple), its hold (the table's TableHold), its
start, and its job and compiled request (its entry in the order); its span is its job's
wallclock (predictions off), a field of a frozen Job. `Rows` keeps those five columns,
in the reservations' order, as of its last refresh, with each reservation's outcome:
a row in its bucket, or a place in `fails`. A refresh builds the five columns again in
C (map over the ids) and compares them with the kept ones, in C: a column equal to the
kept one as a list (equal values, or the same objects) changes no outcome, else element
by element by identity; only the reservations whose id is new or one of whose values is another
object are sorted again, in Python. The kept columns hold the objects they were built
from, so no address is reused and an equal identity is the same object: a stamp is an
immutable tuple, a Job is frozen, a hold's mask is set when it is made and never
assigned after (planning/steps.TableHold; a moved hold is a new one), a compiled request
is never changed in place. So each reservation's outcome is the loop's (exact). Then the
reservations whose start is by now are taken out of the rows and visited (a pass in C
over the starts). `_check()` sorts every one again from scratch and compares.

Switch `ROWS`; `CHECK` runs _check() at each refresh (tests/property/test_want_rows.py,
on against off). Cost: a few C passes over the ids per walk plus O(changed) Python, in
place of first()'s Python pass per reservation.
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import attrgetter, is_not, itemgetter, le

from ..planning import owners

ROWS = True
"""Keep Want.first's rows between walks (Rows); False: first()'s loop sorts every kept
reservation each walk (the definition tests/property/test_want_rows.py compares
against)."""

CHECK = False
"""Check the kept rows against rows sorted from scratch at every refresh (_check)."""

_START, _JOB, _CR = attrgetter("start"), itemgetter(0), itemgetter(1)


def bucket_of(cr) -> tuple | None:
    """The bucket of a compiled request: (eligible nodes, exclusive, processors per node),
    None when it asks no processors (policy/sparse.Want._gain). O(1)."""
    d0 = cr.d[0]
    return None if d0 <= 0 else (cr.eligible, cr.exclusive,
                                 cr.per_node * d0 if cr.mode == "tpn" else d0)


def sort_one(got, h, job, cr, start: int, jid: str):
    """One reservation's outcome, as Want.first's loop decides it apart from the start by
    now and the global tests: None (visit it), else (bucket, row). O(1)."""
    if (got is None or h is None or got[2] != max(int(job.wallclock), 1)
            or (got[1] is not cr and got[1] != cr)):
        return None
    return bucket_of(cr), (jid, h.mask, got[2], start)


def _without(rows: dict, out: set[str], buckets: dict) -> dict:
    """`rows` (per bucket, columns) less the rows of the ids in `out`; a bucket left empty
    is dropped. O(rows of the buckets holding one of them)."""
    got = {}
    for k, cols in rows.items():
        if out.isdisjoint(buckets[k]):
            got[k] = cols
            continue
        keep = [j not in out for j in cols[0]]
        if any(keep):
            got[k] = tuple(tuple(compress(col, keep)) for col in cols)
    return got


class Rows:
    """Want.first's rows as of the last refresh (see the module docstring): for one
    planner, kept on its Stamps; a cache, never stored."""

    __slots__ = ("ids", "owners", "stamps", "holds", "starts", "jobs", "crs", "out",
                 "buckets", "cols", "fails", "by_epoch", "refreshes", "sorted", "asked")

    def __init__(self):
        self.ids: list[str] = []
        self.owners: list[str] = []
        """Each id's hold owner (owners.priority)."""
        self.stamps: list = []
        self.holds: list = []
        self.starts: list[int] = []
        self.jobs: list = []
        self.crs: list = []
        self.out: dict[str, tuple | None] = {}
        """id -> (bucket, stamp) of a row, None for one to visit."""
        self.buckets: dict[tuple | None, dict[str, tuple[str, int, int, int]]] = {}
        """Per bucket, id -> row (job id, hold mask, span, start), in no set order."""
        self.cols: dict[tuple | None, tuple[tuple, ...]] = {}
        """Per bucket, its rows as columns (job ids, masks, spans, starts), made when first
        asked for since the bucket last changed."""
        self.fails: set[str] = set()
        self.by_epoch: dict[int, set[str]] = {}
        """Stamp epoch -> the ids of rows stamped then (first() asks only stale ones)."""
        self.refreshes = self.sorted = self.asked = 0
        """Refreshes, reservations sorted again in Python, and reservations there were at
        the refreshes (what first()'s loop would have sorted) (operation counts)."""

    def refresh(self, c, order, index: dict[str, int], at: dict) -> None:
        """Bring the rows up to date with the kept reservations now (module docstring).
        O(R) in C plus O(changed)."""
        res = c.state.reservations
        ids = list(res)
        n = len(ids)
        if ids != self.ids:
            new = self._realign(ids)
        else:
            new = ()
        holds = c.table.holds
        stamps = list(map(at.get, ids))
        hs = list(map(holds.get, self.owners))
        starts = list(map(_START, res.values()))
        ents = list(map(order.__getitem__, map(index.__getitem__, ids)))
        jobs, crs = list(map(_JOB, ents)), list(map(_CR, ents))
        pos = range(n)
        moved = set(new)
        for now_col, was in ((stamps, self.stamps), (hs, self.holds), (starts, self.starts),
                             (jobs, self.jobs), (crs, self.crs)):
            if now_col != was:          # equal values: the outcomes stand (in C, fast)
                moved.update(compress(pos, map(is_not, now_col, was)))
        self.stamps, self.holds, self.starts, self.jobs, self.crs = stamps, hs, starts, jobs, crs
        for i in moved:
            self._sort(ids[i], stamps[i], hs[i], jobs[i], crs[i], starts[i])
        self.refreshes += 1
        self.sorted += len(moved)
        self.asked += n
        if CHECK:
            self._check(c, order, index, at)

    def _realign(self, ids: list[str]) -> list[int]:
        """The kept columns in the order of `ids` (None for a new id); the rows of ids gone
        dropped. The places of the new ids. O(R) in C plus O(gone + new)."""
        old = self.ids
        keep = set(ids)
        for jid in [j for j in self.out if j not in keep]:
            self._drop(jid)
        place = dict(zip(old, range(len(old))))
        at = list(map(place.get, ids))
        new = [i for i, k in enumerate(at) if k is None] if None in at else []
        for name in ("stamps", "holds", "starts", "jobs", "crs", "owners"):
            col = getattr(self, name)
            setattr(self, name, [None if k is None else col[k] for k in at])
        pre = owners.priority("")
        for i in new:
            self.owners[i] = pre + ids[i]
        self.ids = ids
        return new

    def _drop(self, jid: str) -> None:
        """Forget one reservation's outcome. O(1)."""
        was = self.out.pop(jid, ...)
        if was is None:
            self.fails.discard(jid)
        elif was is not ...:
            key, got = was
            self.cols.pop(key, None)
            b = self.buckets[key]
            del b[jid]
            if not b:
                del self.buckets[key]
            e = self.by_epoch[got[0]]
            e.discard(jid)
            if not e:
                del self.by_epoch[got[0]]

    def _sort(self, jid: str, got, h, job, cr, start: int) -> None:
        """Sort one reservation again (sort_one). O(1)."""
        self._drop(jid)
        got_row = sort_one(got, h, job, cr, start, jid)
        if got_row is None:
            self.out[jid] = None
            self.fails.add(jid)
            return
        key, row = got_row
        self.cols.pop(key, None)
        self.out[jid] = (key, got)
        self.buckets.setdefault(key, {})[jid] = row
        self.by_epoch.setdefault(got[0], set()).add(jid)

    def views(self, now: int, e: int, old: bool) -> tuple[set[str], dict, dict]:
        """(to visit, rows, stale rows) as Want.first's loop builds them: the fails and the
        reservations whose start is by now to visit; per bucket the rows of the others, as
        columns (job ids, masks, spans, starts); and of those the rows stamped before e
        (none unless `old`; a stamp's epoch is never after e, `freed` only grows). O(R) in
        C plus O(rows of the buckets holding one taken out)."""
        want = set(self.fails)
        cols, buckets = self.cols, self.buckets
        rows = {k: cols[k] if k in cols else cols.setdefault(k, tuple(zip(*b.values())))
                for k, b in buckets.items()}
        if self.starts and min(self.starts) <= now:
            late = set(compress(self.ids, map(le, self.starts, repeat(now))))
            want |= late
            rows = _without(rows, late, buckets)
        if not old:
            return want, rows, {}
        fresh = self.by_epoch.get(e)
        return want, rows, _without(rows, fresh, buckets) if fresh else rows

    def _check(self, c, order, index: dict[str, int], at: dict) -> None:
        """The kept columns and outcomes equal those sorted from scratch. O(R)."""
        res = c.state.reservations
        ids = list(res)
        assert ids == self.ids, "rows: ids"
        holds = c.table.holds
        assert self.owners == [owners.priority(j) for j in ids], "rows: owners"
        out: dict = {}
        buckets: dict = {}
        for i, (jid, kr) in enumerate(res.items()):
            job, cr, _p = order[index[jid]]
            got, h = at.get(jid), holds.get(owners.priority(jid))
            assert self.stamps[i] is got and self.holds[i] is h, ("rows: stamp/hold", jid)
            assert self.starts[i] == kr.start, ("rows: start", jid)
            assert self.jobs[i] is job and self.crs[i] is cr, ("rows: entry", jid)
            one = sort_one(got, h, job, cr, kr.start, jid)
            out[jid] = None if one is None else (one[0], got)
            if one is not None:
                buckets.setdefault(one[0], {})[jid] = one[1]
        assert out == self.out, "rows: outcomes"
        assert buckets == self.buckets, "rows: buckets"
        for k, cols in self.cols.items():
            assert sorted(zip(*cols)) == sorted(buckets[k].values()), ("rows: columns", k)
        assert self.fails == {j for j, v in out.items() if v is None}, "rows: fails"
        by: dict = {}
        for jid, v in out.items():
            if v is not None:
                by.setdefault(v[1][0], set()).add(jid)
        assert by == self.by_epoch, "rows: epochs"
