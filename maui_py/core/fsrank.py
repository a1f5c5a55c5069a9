"""The fair-share re-ranking of the kept queue, from a standing (submit, id) order.

Under fair share every kept job's priority moves each cycle (its queue time, and its
credentials' usage against the system's), so the queue is ranked again each cycle. The
order is order_key: (-priority, submit time, id length, id). A list already in (submit
time, id length, id) order, sorted by priority alone, descending, with a stable sort, is in
exactly that order, whatever the priorities: so the kept jobs are carried from cycle to
cycle in (submit, id) order (`rows`, new jobs merged in by bisection), their priorities are
computed in one loop without a call per job, and one stable sort in C by priority ranks
them. No per-job key tuple and no Python key function.

Each row keeps what its priority is made of besides the clock: the job's static part
(PriorityEngine.static_sum, fixed for the Job object and the engine) and its credential
set's index; the (TARG, FS) tail is looked up once per credential set and cycle
(core/selection.FsTails). The arithmetic is PriorityEngine.fs_priorities' with SERV's
QUEUETIME as its only weighted subfactor and no caps (_queue_time_only): the same operations
in the same order, so the same floats. Applies when the engine is serv_only with
QUEUETIME alone uncapped, and no job has a system priority; else the caller ranks as before.
Invariant: rows hold exactly the jobs of the cache's order, in (submit, id length, id)
order (check()). Cost per cycle: O(kept) arithmetic in one comprehension, O(credential sets)
tails, O(kept log runs) for the sort in C; tests/property/test_selection_cache.py checks
the decisions against cycles that rank from scratch.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .context import CycleContext as Cycle

_SYSTEM_PRIORITY = attrgetter("system_priority")
_JOB = itemgetter(0)
_CI = itemgetter(3)


@dataclass(slots=True)
class Rows:
    """Kept jobs in (submit, id length, id) order: (job, compiled, static part, set index)."""

    rows: list
    classes: dict = field(default_factory=dict)
    """(user, group, account, qos, class) -> index into `creds`."""
    creds: list = field(default_factory=list)

    def check(self, engine) -> None:
        """Raise AssertionError unless rows are in key order with their static parts and
        credential sets as made from scratch."""
        keys = [row_key(r) for r in self.rows]
        assert keys == sorted(keys) and len(set(keys)) == len(keys)
        for j, _cr, s, ci in self.rows:
            assert s == engine.static_sum(j), j.id
            assert self.creds[ci] == (j.user, j.group, j.account, j.qos, j.class_), j.id


def row_key(r) -> tuple:
    job = r[0]
    return (job.submit_time, len(job.id), job.id)


def applies(c: Cycle) -> bool:
    """The engine's priority is fs_priorities' with QUEUETIME SERV's only weighted
    subfactor and no QUEUETIME or SERV cap (the arithmetic rank() repeats). O(1)."""
    eng = c.engine
    if not (eng.serv_only and getattr(eng, "_qt_only", False)):
        return False
    _w, cap, scap, _cw = eng._qt_terms
    return cap <= 0 and scap <= 0


def rows_of(c: Cycle, kept: list, new: list, last: Rows | None) -> Rows:
    """Rows of `kept` (rows of `last`, in order; or, without `last`, entries in any order)
    and `new` (entries (job, compiled, priority)), sharing `last`'s credential-set indexes
    (made anew, with every row, once they outnumber the rows four times over).
    O(len(new) log len(new) + len(kept)), or O(all log all) when made anew."""
    if last is None or len(last.creds) > 4 * len(kept) + 1000:
        out = Rows([])
        out.rows = new_rows(c, kept + new, out)
        return out
    out = Rows([], last.classes, last.creds)
    out.rows = merge(kept, new_rows(c, new, out))
    return out


def new_rows(c: Cycle, entries: list, rows: Rows) -> list:
    """Rows of `entries`, sorted by row_key. O(len(entries) log len(entries))."""
    static, classes, creds = c.engine.static_sum, rows.classes, rows.creds
    out = []
    for e in entries:
        j = e[0]
        key = (j.user, j.group, j.account, j.qos, j.class_)
        ci = classes.get(key)
        if ci is None:
            ci = classes[key] = len(creds)
            creds.append(key)
        out.append((j, e[1], static(j), ci))
    out.sort(key=row_key)
    return out


def merge(kept: list, new: list, key=row_key) -> list:
    """Two lists in `key` order (rows: row_key; core/selection's entries: (submit, id))
    merged, stably: kept before new at equal keys. O(len(kept) + len(new) x log len(kept))."""
    if not kept:
        return new
    out: list = []
    lo = 0
    for r in new:
        k = bisect_right(kept, key(r), lo, key=key)
        out += kept[lo:k]
        out.append(r)
        lo = k
    out += kept[lo:]
    return out


def rank(c: Cycle, rows: Rows, tails_of) -> list:
    """The entries (job, compiled, priority) of `rows` in priority order (order_key), each
    priority as PriorityEngine.fs_priorities gives it. `tails_of(sets)`: the (TARG, FS)
    tail of each credential set of the list `sets` (None for no subfactors), asked once
    a cycle for the sets of the rows. O(rows) plus a sort in C."""
    eng, now, qt = c.engine, c.now, c.state.queue_time
    w, _cap, _scap, cw = eng._qt_terms
    rs, creds = rows.rows, rows.creds
    tails: list[Any] = [None] * len(creds)
    used = list(set(map(_CI, rs)))
    for ci, t in zip(used, tails_of([creds[ci] for ci in used])):
        tails[ci] = t
    if qt:
        ps = [(s + cw * (0.0 + w * ((q if (q := now - qt.get(j.id, j.submit_time)) > 0 else 0)
                                    / 60.0)))
              if (t := tails[ci]) is None else
              (s + cw * (0.0 + w * ((q if (q := now - qt.get(j.id, j.submit_time)) > 0 else 0)
                                    / 60.0))) + t[0] + t[1] + 0.0 + 0.0
              for j, _cr, s, ci in rs]
    else:
        ps = [(s + cw * (0.0 + w * ((q if (q := now - j.submit_time) > 0 else 0) / 60.0)))
              if (t := tails[ci]) is None else
              (s + cw * (0.0 + w * ((q if (q := now - j.submit_time) > 0 else 0) / 60.0)))
              + t[0] + t[1] + 0.0 + 0.0
              for j, _cr, s, ci in rs]
    # stable, descending: equal priorities keep the rows' (submit, id length, id) order
    idx = sorted(range(len(rs)), key=ps.__getitem__, reverse=True)
    return [(rs[i][0], rs[i][1], ps[i]) for i in idx]


def any_system_priority(entries: list) -> bool:
    return any(map(_SYSTEM_PRIORITY, map(_JOB, entries)))
