"""Cycle.select for a whole queue at once, when no earlier order can be reused (the first
cycle from a fresh state, a new table or configuration): the same list, the same reports,
holds and defers, with the per-job work done per shape.

Cycle.select walks every queued job: its holds, defers and dependencies, its compiled
request and system limits, its priority. On a queue of 200,000 jobs that is most of a
first cycle's set-up, yet the jobs share a few thousand (class, wallclock, request) shapes
and a few hundred credential sets. Here:

- a job is "plain" when Cycle.select would keep it for its shape alone: no hold, its
  dependencies met, no batch hold, no defer running, no system priority, no queue time or
  bypass count of its own and no compiled entry from an earlier cycle; and its shape
  compiles to a placement with no system-limit violation. Everything Cycle.select reads
  of a plain job is then its shape (table.compile reads the request and class,
  Limits.system_violation the class, wallclock and processors) and its submit time;
- the other jobs go through Cycle.select itself, in snapshot order: only they report,
  defer or hold anything, so those effects come out in the same order;
- a plain job's priority is serv(job, now, submit time, bypass), which with the engine's
  order_fixed (a linear SERV, no caps) is PriorityEngine.fixed_priorities of its static
  part (PriorityEngine.static_sums: one static_sum per credential set or shape);
- both lists are merged by Cycle.select's key (priority, submit time, id length, id),
  unique per job, so the order is Cycle.select's.

Applies with Cycle.serv() (explain off, QUEUEPOLICY MAUI without fair share, only SERV
moving) and the engine's order_fixed; else None and the caller runs Cycle.select.
tests/property/test_first_select.py checks it against Cycle.select on random queues.
"""

from __future__ import annotations

from dataclasses import fields
from itertools import compress, count, repeat
from operator import add, attrgetter, itemgetter, neg, not_, truth
from typing import TYPE_CHECKING

from ..model import JobRequest, Resources
from ..planning.api import NoPlacement

if TYPE_CHECKING:
    from .context import CycleContext as Cycle

_SHAPE = attrgetter("class_", "wallclock",
                    *("request." + f.name for f in fields(JobRequest) if f.compare
                      and f.name != "per_task"),
                    *("request.per_task." + f.name for f in fields(Resources) if f.compare))
"""What Cycle.select reads of a plain job besides its id and submit time: its class,
wallclock and every compared field of its request (per_task's own fields apart), as one
flat tuple built in C: equal exactly when the requests are, without JobRequest's and
Resources' generated __hash__ (Python calls), and without a tuple per part."""
_PRIORITY = itemgetter(2)
_JOB, _CR, _WHY, _BAD = itemgetter(0), itemgetter(0), itemgetter(1), itemgetter(2)
_CR_OF = itemgetter(1)
_HOLDS, _DEPENDS = attrgetter("holds"), attrgetter("depends_satisfied")
_SYSPRIO, _ID, _SUBMIT = attrgetter("system_priority"), attrgetter("id"), attrgetter("submit_time")
SORT_IN_PASSES = True
"""Rank by stable sorts on one plain key each (see _order); False: one sort on the
tuple key, the definition (tests/property/test_first_select_order.py compares both)."""
RANK_IN_ONE_PASS = True
"""_ranked: jobs of several static parts get their priorities in one pass (each part plus
PriorityEngine.fixed_terms' term, the operations fixed_priorities makes in its order);
False: fixed_priorities per part, the definition (tests/property/test_first_select.py
compares both)."""
SKIP_PLAIN_MEMO = True
"""Leave the plain jobs out of the compiled-request cache (st.caches.compiled); False:
enter each as Cycle.select does, the definition tests/property/test_cyc54_first_memo.py
compares against. The cache is a memo: Cycle.select and deferouts.left_out, on a miss,
compile the request (table.compile keeps its own memo per shape: the same object) and
ask the system limits again, the same answers, and enter them. A plain job is not asked
again while the selection cache keeps it (selection._reuse); a first cycle's 200,000
entries cost a tuple and a dictionary insert each. With no entry, a later first_select
(a new configuration or table) finds the job plain again rather than asking Cycle.select."""
shapes_compiled = 0
"""Shapes compiled and limit-checked by first_select, summed (operation count)."""


def first_select(c: Cycle, queued: list) -> tuple[list, bool, float | None] | None:
    """(Cycle.select(queued), fixed, static) as core/selection.select makes them from it
    (selection._fixed), or None when this does not apply (see the module's docstring).
    O(queued) keys and look-ups in C and a few comprehensions, plus O(shapes) compiles and
    limit checks, plus Cycle.select of the other jobs, plus O(queued log queued) to sort."""
    serv = c.serv()
    eng = c.engine
    if serv is None or not eng.order_fixed or len(queued) < 2:
        return None
    global shapes_compiled
    st, now, table, cfg = c.state, c.now, c.table, c.cfg
    compiled = st.caches.compiled
    own = set(st.batch_holds)
    own.update(k for k, rec in st.deferred.items() if rec.until > now)
    own.update(st.queue_time)
    own.update(st.bypass)
    own.update(compiled)
    first: dict = {}        # shape -> where it first appears: one hash per job, in C
    at = list(map(first.setdefault, map(_SHAPE, queued), count()))
    verdict = [None] * len(queued)
    for k in first.values():
        job = queued[k]
        cr = table.compile(job.request, job.class_)
        why = c.limits.system_violation(job)
        verdict[k] = (cr, why, bool(why) or isinstance(cr, NoPlacement))
        shapes_compiled += 1
    got = list(map(verdict.__getitem__, at))
    # special: a hold, a dependency unmet, a system priority, a state entry or a bad shape
    ids = list(map(_ID, queued))    # read once: 200,000 job objects are slow to visit
    special = _special(queued, ids, got, own)
    if special is None:             # every job plain: nothing to leave out
        jobs, vs = queued, got
    else:
        keep = list(map(not_, special))
        jobs, vs = list(compress(queued, keep)), list(compress(got, keep))
        ids = None if SKIP_PLAIN_MEMO else list(compress(ids, keep))   # read by the memo only
    crs = list(map(_CR, vs))
    if not SKIP_PLAIN_MEMO:
        compiled.update(zip(ids, zip(jobs, repeat(table), crs, repeat(cfg), map(_WHY, vs))))
    ranked, values = _ranked(eng, now, list(zip(jobs, crs, repeat(0.0))))
    if special is not None:
        ids = None                  # not the plain jobs' alone: _order reads them again
        rest = list(compress(queued, special))
        others = c.select(rest)
        if any(j.system_priority or j.id in st.queue_time for j, _cr, _p in others):
            values = None           # selection._fixed: not fixed
        elif values is not None and others:
            values.update(eng.static_sums([e[0] for e in others]))
        if _nan_in(ranked) or _nan_in(others):
            ranked = _in_snapshot_order(ranked, others, queued)
        else:                       # unique keys, a total order: any list sorts the same
            ranked += others
    if len(ranked) > 1:             # Cycle.select's sort, from the same list: the same order
        ranked = list(map(ranked.__getitem__, _order(ranked, ids)))
    if not values:
        return ranked, values is not None, None
    if len(values) > 1 or any(v != v for v in values):
        return ranked, False, None
    return ranked, True, eng.static_sum(ranked[0][0])


def _special(queued: list, ids: list[str], got: list, own: set) -> list[bool] | None:
    """special[k]: does queued[k] go through Cycle.select (a hold, a dependency unmet, a
    system priority, an entry in `own`, a bad shape: got[k]'s flag)? None when no job
    does. Each condition is first asked of the whole queue in C (any, all), and only those
    some job meets are combined: a first cycle's queue meets one or two at most (bad
    shapes), so most of a per-job tuple of five is never built. O(queued) in C."""
    parts = []
    if any(map(_HOLDS, queued)):
        parts.append(map(_HOLDS, queued))
    if not all(map(_DEPENDS, queued)):
        parts.append(map(not_, map(_DEPENDS, queued)))
    if any(map(_SYSPRIO, queued)):
        parts.append(map(_SYSPRIO, queued))
    if own and not own.isdisjoint(ids):
        parts.append(map(own.__contains__, ids))
    if any(map(_BAD, got)):
        parts.append(map(_BAD, got))
    if not parts:
        return None
    if len(parts) == 1:
        return list(map(truth, parts[0]))
    return list(map(any, zip(*parts)))


def _order(ranked: list, ids: list[str] | None = None) -> list[int]:
    """The places of `ranked`'s entries sorted by Cycle.select's key (-priority, submit
    time, id length, id), unique per job. With SORT_IN_PASSES and no NaN priority, four
    stable sorts on one plain key each (id, then id length, submit time, -priority): a
    stable sort keeps the order of equal keys, so the last pass decides first and each
    earlier one breaks the ties of those after it, which is the tuple's order; a float,
    int or str key compares in C without the tuple's element-by-element equality tests
    (a 200,000-job queue: about half the sort's time). -0.0 and 0.0 are equal to both.
    A NaN compares neither below nor above anything, so with one the tuple sort is kept.
    `ids`: the entries' job ids, when the caller has them. O(n log n) either way."""
    n = len(ranked)
    jobs = list(map(_JOB, ranked))
    if ids is None:
        ids = list(map(_ID, jobs))
    if SORT_IN_PASSES and not _nan_in(ranked):
        at = sorted(range(n), key=ids.__getitem__)
        at.sort(key=list(map(len, ids)).__getitem__)
        at.sort(key=list(map(_SUBMIT, jobs)).__getitem__)
        at.sort(key=list(map(neg, map(_PRIORITY, ranked))).__getitem__)
        return at
    keys = [(-p, j.submit_time, len(j.id), j.id) for j, _cr, p in ranked]   # entry_key's
    return sorted(range(n), key=keys.__getitem__)


def _ranked(eng, now: int, entries: list) -> tuple[list, set]:
    """`entries` (job, compiled, 0.0) of plain jobs with each priority serv() gives it
    (fixed_priorities per static part: static_sums gives one float object per part, and
    parts with the same bits, float.hex, share one call), in the same order; and the set
    of their static parts. O(entries) plus O(credential sets)."""
    if not entries:
        return [], set()
    jobs = list(map(_JOB, entries))
    statics = eng.static_sums(jobs)
    parts = dict(zip(map(id, statics), statics))
    bits = {k: v.hex() for k, v in parts.items()}
    if len(set(bits.values())) == 1:
        return eng.fixed_priorities(entries, now, statics[0]), set(parts.values())
    if RANK_IN_ONE_PASS:    # static part + SERV term, the same floats (fixed_terms)
        prios = map(add, statics, eng.fixed_terms(list(map(_SUBMIT, jobs)), now))
        return list(zip(jobs, map(_CR_OF, entries), prios)), set(parts.values())
    at: dict[str, list[int]] = {}
    for k, s in enumerate(map(bits.__getitem__, map(id, statics))):
        at.setdefault(s, []).append(k)
    out = list(entries)
    for ks in at.values():
        part = statics[ks[0]]
        for k, e in zip(ks, eng.fixed_priorities([entries[k] for k in ks], now, part)):
            out[k] = e
    return out, set(parts.values())


def _nan_in(entries: list) -> bool:
    """Might a priority of `entries` be NaN (their sum is: a NaN, or infinities of both
    signs)? O(len(entries)) in C."""
    total = sum(map(_PRIORITY, entries))
    return total != total


def _in_snapshot_order(plain: list, others: list, queued: list) -> list:
    """The entries of both lists in the order of their jobs in `queued`, as Cycle.select
    holds them before it sorts (NaN priorities make the sort's result depend on it);
    `plain` is in that order already. O(queued), one sort of two runs."""
    if not plain:
        return others
    place = {id(j): k for k, j in enumerate(queued)}
    out = plain + sorted(others, key=lambda e: place[id(e[0])])
    out.sort(key=lambda e: place[id(e[0])])     # two sorted runs: merged in O(n)
    return out
