"""The eligible queued jobs in priority order, carried from one cycle to the next.

Cycle.select classifies every queued job (holds, defers, limits, its compiled request) and
sorts the eligible ones by priority: at 50,000 queued jobs the largest part of a steady
cycle. Most of that repeats the last cycle. A job the last cycle found eligible that is
the same Job object now (so the same holds, dependencies and request), with the same table
and configuration (so the same compiled request and system limits), not batch-held and not
deferred since, is eligible again: only its priority is computed anew; the other jobs go
through Cycle.select as before, in snapshot order (so holds and defers come out in the
same order).

The order: when every eligible job has the same static priority part, no system priority
and its queue time counted from submission, and priority grows linearly with queue time
(PriorityEngine.order_fixed), priority falls with the submit time at every instant, so the
order is (submit time, id length, id) and never changes: the last order is kept and the new
jobs are merged into it. Otherwise the list is sorted again, as Cycle.select sorts it; keys
are unique, so the result is the same list either way.

Applies with explain off and QUEUEPOLICY MAUI, with or without fair share (with it, a
kept job's fair-share caps are asked again, as usage moves every cycle, but only while some
queued credential set has a cap: SelectionCache.capped; and every kept job is re-ranked, its
(TARG, FS) tail found per credential set and worked out once per distinct subfactor value;
with QUEUETIME SERV's only weighted subfactor the kept jobs are carried in (submit, id)
order and ranked by one stable sort, core/fsrank.py; the other policies arrange the queue
themselves). A cache: the store never writes it, a full cycle that does not rebuild it drops
it, a cycle answered from what changed (core/changes.py) leaves it for the next full cycle,
and a cycle without it classifies and sorts in full. tests/property/test_selection_cache.py
checks the decisions against cycles without it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

from ..model.report import ReportStatus
from . import firstselect, fsrank
from . import parked as parkedmod
from ..policy import deferral
from ..priority.engine import entry_key
from ..priority.policy import MauiFairShare

if TYPE_CHECKING:
    from .context import CycleContext as Cycle

_SYSTEM_PRIORITY = attrgetter("system_priority")
_JOB = itemgetter(0)
_ID = attrgetter("id")
_NO_FS: dict = {}
"""The subfactors of a credential set FairShare.empty says has none (never written)."""


@dataclass(slots=True)
class SelectionCache:
    """The eligible jobs of a cycle, sorted, and what they were classified with."""

    cfg: Any
    table: Any
    engine: Any
    order: list
    """(job, compiled request, priority) in priority order, as Cycle.select returns it.
    While the order is fixed a kept entry keeps the priority it was given: nothing reads it
    but REJECTNEGPRIOJOBS (which has it recomputed) and a re-sort once the order is no
    longer fixed (which recomputes every one), so rewriting 43,000 entries a cycle with
    their new queue time is left out (a fifth of a steady cycle at depth 1)."""
    fixed: bool
    """order is (submit time, id) order and stays so (see the module's docstring)."""
    static: float | None
    """The static priority part every job in order shares, when fixed."""
    capped: bool = True
    """Some job of order may have a credential set with a fair-share cap (FairShare.capped,
    a function of the configuration): when False the next cycle asks no kept job's cap."""
    rows: Any = None
    """The jobs of order in (submit, id) order (core/fsrank.Rows) when this cycle ranked
    them so under fair share, else None."""
    parked: Any = None
    """The kept jobs a throttling limit stops, left out of order and rows
    (core/parked.Parked), or None."""
    token: int = 0
    """The token of the job sets (core/jobsets.JobSets) whose `queued` this cycle selected
    from, or 0 (another list: an override, no sets kept)."""


@dataclass(slots=True)
class FsTails:
    """The (TARG, FS) priority components of each fair-share subfactor set a cycle met.

    Invariant: every entry `id(fs) -> (fs, tail)` holds the very dict the queue policy
    returned (FairShare memoises one per credential set until its next charge and never
    changes it; holding it keeps its id from being reused) and tail == engine.fs_tail(fs)
    for this `engine`; `check()` recomputes every entry so. Made anew when the engine or
    the cycle changes, so it holds at most the credential sets of one cycle."""

    engine: Any
    iteration: int
    tails: dict
    by_creds: dict = field(default_factory=dict)
    """(user, group, account, qos, class) -> the tail of the subfactors the queue policy
    gave that credential set this cycle (`fs_of`), or None when they are empty: the
    re-ranking of kept jobs (fs_entries) finds a job's tail with one look-up."""
    fs_of: dict = field(default_factory=dict)
    by_value: dict = field(default_factory=dict)
    """tuple(subfactors.items()) -> engine.fs_tail of them: the credential sets of one user
    (several QOS, groups, classes) often have equal subfactors, and fs_tail is a function
    of the items alone."""

    def check(self) -> None:
        """Raise AssertionError unless every entry equals its from-scratch value."""
        for key, (fs, tail) in self.tails.items():
            assert key == id(fs) and tail == self.engine.fs_tail(fs), (fs, tail)
        assert self.by_creds.keys() == self.fs_of.keys()
        for creds, tail in self.by_creds.items():
            fs = self.fs_of[creds]
            assert tail == (self.engine.fs_tail(fs) if fs else None), (fs, tail)
        for items, tail in self.by_value.items():
            assert tail == self.engine.fs_tail(dict(items)), (items, tail)


def fast_priority(c: Cycle, job, fs: dict) -> float:
    """Cycle._priority with explain off, no system priority and engine.serv_only: the
    static part and SERV (serv_priority), then, with fair-share subfactors, the (TARG, FS)
    components from c.state.caches.fs_tails, added in breakdown()'s order (the same
    float). O(1), plus O(subfactors) per credential set and cycle."""
    st, eng = c.state, c.engine
    qt, bp = st.queue_time.get(job.id, job.submit_time), st.bypass.get(job.id, 0)
    if not fs:
        return eng.serv_priority(job, c.now, qt, bp)
    cache = _tails(c)
    hit = cache.tails.get(id(fs))
    if hit is None or hit[0] is not fs:
        hit = cache.tails[id(fs)] = (fs, eng.fs_tail(fs))
    return eng.fs_priority(job, c.now, qt, bp, hit[1])


def _tails(c: Cycle) -> FsTails:
    """This cycle's FsTails (made anew for another engine or cycle). O(1)."""
    st, eng = c.state, c.engine
    cache = st.caches.fs_tails
    if cache is None or cache.engine is not eng or cache.iteration != st.iteration:
        cache = st.caches.fs_tails = FsTails(eng, st.iteration, {})
    return cache


def fs_entries(c: Cycle, kept: list) -> list:
    """`kept` (job, compiled, old priority) with each priority Cycle._priority gives now,
    under fair share with explain off and engine.serv_only: the (TARG, FS) tail found per
    credential set (FsTails.by_creds), then fast_priority's operations
    (PriorityEngine.fs_priorities: the same floats); with a system priority among them,
    through Cycle._priority. O(1) per job, plus O(subfactors) per credential set and
    cycle."""
    if any(map(_SYSTEM_PRIORITY, map(_JOB, kept))):
        return [(j, cr, c._priority(j)) for j, cr, _p in kept]
    st, eng = c.state, c.engine
    cache = _tails(c)
    return eng.fs_priorities(kept, c.now, st.queue_time, st.bypass, cache.by_creds,
                             _miss(c, cache))


def _miss(c: Cycle, cache: FsTails):
    """miss(job) for PriorityEngine.fs_priorities: the tail of the job's
    credential set, worked out and recorded in `cache` (by_creds, fs_of; by_value shares
    one fs_tail among sets with equal subfactors). O(subfactors)."""
    of = _of_creds(c, cache)

    def miss(j):
        return of((j.user, j.group, j.account, j.qos, j.class_))
    return miss


def _of_creds(c: Cycle, cache: FsTails):
    """of(creds): _miss's tail of a credential set (user, group, account, qos, class),
    recorded in `cache`; a set met before this cycle is looked up. A set FairShare.empty
    says has no subfactor gets None at once (subfactors_of would give {}: the same
    tail), no dictionary built. O(subfactors)."""
    tails, fs_of, by_value = cache.by_creds, cache.fs_of, cache.by_value
    fair = c.policy.fs
    subfactors, empty, fs_tail = fair.subfactors_of, fair.empty, c.engine.fs_tail

    def miss(creds):
        t = tails.get(creds, miss)
        if t is not miss:
            return t
        if empty(creds):                # most sets: no subfactor, no dictionary made
            fs_of[creds] = _NO_FS
            tails[creds] = None
            return None
        fs = fs_of[creds] = subfactors(creds)
        if not fs:
            t = None
        else:
            items = tuple(fs.items())
            t = by_value.get(items)
            if t is None:
                t = by_value[items] = fs_tail(fs)
        tails[creds] = t
        return t
    return miss


BATCH_TAILS = True
"""Work out the tails of the sets a cycle re-ranks with one FairShare.empties call for
the sets not met yet this cycle (_sets_tails); False: one _of_creds call per set, the
definition tests/property/test_fs_batch_tails.py compares against."""


def _sets_tails(c: Cycle, cache: FsTails):
    """tails_of(sets) for core/fsrank.rank: [_of_creds(c, cache)(s) for s in sets], the
    sets this cycle has not met asked FairShare.empties in one call first (its answers
    are empty()'s, so the same sets get None at once, recorded as _of_creds records
    them; the rest go through _of_creds, which then finds them or works out their
    subfactors). O(sets x KINDS), with one call per set fewer than four."""
    of = _of_creds(c, cache)
    if not BATCH_TAILS:
        return lambda sets: [of(s) for s in sets]
    tails, fs_of, empties = cache.by_creds, cache.fs_of, c.policy.fs.empties

    def tails_of(sets: list) -> list:
        ask = [s for s in sets if s not in tails]
        if ask:
            for s, none in zip(ask, empties(ask)):
                if none:
                    fs_of[s] = _NO_FS
                    tails[s] = None
        return [tails[s] if s in tails else of(s) for s in sets]
    return _known_first(c, tails_of) if KNOWN_EMPTY else tails_of


KNOWN_EMPTY = True
"""Answer None at once for the sets a kept bound says are empty (FairShare.known_empty),
before _sets_tails' batch; False: every set through the batch, the definition
tests/property/test_fs54_known_empty.py compares against."""


def _known_first(c: Cycle, tails_of):
    """tails_of(sets) answering None for the sets FairShare.known_empty says are empty
    (empties() would say so: _sets_tails gives them None) and asking `tails_of` for the
    others only; those sets are not recorded in FsTails (nothing reads them there but
    this cycle's later asks, which answer them so again). O(1) per known set."""
    known_empty = c.policy.fs.known_empty

    def known_first(sets: list) -> list:
        known = known_empty(sets)
        if known is None:
            return tails_of(sets)
        if all(known):
            return [None] * len(known)
        got = iter(tails_of([s for s, k in zip(sets, known) if not k]))
        return [None if k else next(got) for k in known]
    return known_first


def select(c: Cycle, queued: list, cache: SelectionCache | None) -> list:
    """Cycle.select(queued), from `cache` (the last cycle's) where it applies; leaves this
    cycle's cache in c.state.caches.selection. O(queued) set look-ups, plus Cycle.select for the
    jobs not eligible last cycle and O(new x log queued) to merge them; or, when the order
    is not fixed, one O(1) priority per eligible job and O(queued log queued) to sort."""
    st = c.state
    if c.explain or not (c.passive_policy or type(c.policy) is MauiFairShare):
        st.caches.selection = None
        return c.select(queued)
    if len(c.by_id) != len(c.running) + len(queued):     # a job id twice: no cache
        st.caches.selection = None
        return c.select(queued)
    if (cache is None or cache.cfg is not c.cfg or cache.table is not c.table
            or cache.engine is not c.engine):
        first = firstselect.first_select(c, queued)     # the same, per shape
        if first is not None:
            out, fixed, static = first
        else:
            out = c.select(queued)
            fixed, static = _fixed(c, out)
        capped = _any_capped(c, out)
    else:
        out, fixed, static, capped, rows, parked = _reuse(c, cache, queued)
        st.caches.selection = SelectionCache(c.cfg, c.table, c.engine, out, fixed, static,
                                             capped, rows, parked, _token(c, queued))
        return out
    st.caches.selection = SelectionCache(c.cfg, c.table, c.engine, out, fixed, static,
                                         capped, token=_token(c, queued))
    return out


def _token(c: Cycle, queued: list) -> int:
    """SelectionCache.token for a cycle selecting from `queued`. O(1)."""
    sets = c.state.caches.jobsets
    return sets.token if sets is not None and sets.queued is queued else 0


QUEUE_DELTA = True
"""Find the queued jobs _reuse has not met from the job sets' delta (core/jobsets: the
queue's ids, the jobs that left it and those appended since the cache's cycle) rather
than a set of every queued job and a walk of the queue (_delta); False: the walk, the
definition tests/property/test_fs55_queue_delta.py compares against."""


def _delta(c: Cycle, cache: SelectionCache, queued: list):
    """The job sets whose last forward took the queue from the one `cache` selected from
    to `queued`, with no job replaced in place, or None. O(1)."""
    sets = c.state.caches.jobsets
    if (not QUEUE_DELTA or not cache.token or sets is None or sets.queued is not queued
            or sets.prev != cache.token or sets.ids is None or sets.replaced):
        return None
    return sets


def _appended(sets, queued: list, kept: list, parked, live: set) -> list | None:
    """The jobs of `queued` whose id() is in `live` and neither in `kept` nor in
    `parked`, in queue order, when they are exactly the ones the last forward appended
    (`sets.added`: the queue's tail), else None. The kept rows and the parked jobs are
    disjoint subsets of `live`; the tail is in `live` and, when none of its jobs is kept
    or parked, a subset of the jobs asked for: of their number, so those jobs. O(kept +
    appended)."""
    n = sets.added
    if len(kept) + (len(parked.ids) if parked is not None else 0) + n != len(live):
        return None
    if not n:
        return []
    tail = queued[len(queued) - n:]
    mine = set(map(id, map(_JOB, kept)))
    if parked is not None:
        mine |= parked.ids
    return None if any(id(j) in mine for j in tail) else tail


def _reuse(c: Cycle, cache: SelectionCache, queued: list
           ) -> tuple[list, bool, float | None, bool, Any, Any]:
    """select() with a cache of this table, configuration and engine: (order, fixed,
    static, capped, rows, parked). The jobs of `queued` found in the cache by identity, not batch-held or
    deferred since, keep their entry (with a new priority unless the order is fixed: see
    SelectionCache.order); the rest go through
    Cycle.select in snapshot order. O(queued) set operations plus what select() says; with
    the job sets' delta (_delta, _appended) O(changes + kept rows) instead."""
    st, now, by_id = c.state, c.now, c.by_id
    order = cache.order
    # Jobs are matched by id(): the cache's jobs and the queued ones are alive together, so
    # equal ids are the same object (a copied cache holds other objects, which match
    # nothing). Job ids are unique (select() checks), so by_id names the queued job of an id.
    sets = _delta(c, cache, queued)
    live = set(map(id, queued)) if sets is None else sets.ids     # the latter: read only
    timed = {id(j) for jid in st.queue_time if (j := by_id.get(jid)) is not None}
    timed &= live                       # queued jobs with a queue time of their own
    again = [jid for jid, rec in st.deferred.items() if rec.until > now]
    again += st.batch_holds
    redo = {id(j) for jid in again if (j := by_id.get(jid)) is not None}
    redo &= live                        # held or deferred since
    if redo:
        live, sets = live - redo, None
    rows, parked = cache.rows, cache.parked
    if parked is not None and (not parked.ids.isdisjoint(sets.out) if sets is not None
                               else not parked.ids <= live):  # gone, changed, held, deferred
        parkedmod.drop(parked, parked.ids - live)
    kept = [e for e in (order if rows is None else rows.rows) if id(e[0]) in live]
    rest = _appended(sets, queued, kept, parked, live) if sets is not None else None
    if rest is None:
        if len(kept) + (len(parked.ids) if parked is not None else 0) < len(live):
            live = live - set(map(id, map(_JOB, kept)))     # some not in the cache
            if parked is not None:
                live -= parked.ids
            redo |= live
        rest = [j for j in queued if id(j) in redo] if redo else []
    elif rest:
        redo = set(map(id, rest))
    capped = False
    if cache.capped and not c.passive_policy and c.policy.fs.has_caps:
        kept = _under_caps(c, kept)
        capped = _any_capped(c, kept)
    new = c.select(rest)
    capped = capped or _any_capped(c, new)
    if cache.fixed and c.engine.order_fixed and timed <= redo:    # none kept has one
        fixed, static = _fixed(c, new, cache.static)
        if fixed:
            if kept and c.settings.reject_neg:   # the only reader of a kept entry's priority here
                kept = c.engine.fixed_priorities(kept, now, static)
            return ((fsrank.merge(kept, new, _key) if new else kept), True, static, capped,
                    None, None)
    serv, prio, bp, qt = c.serv(), c._priority, st.bypass, st.queue_time
    fs = serv is None and not c.passive_policy and c.engine.serv_only
    ranked = _fs_rank(c, kept, new, rows, parked) if fs else None
    if ranked is not None:
        return ranked[0], False, None, capped, ranked[1], ranked[2]
    if parked is not None and parked.ids:           # ranked with the rest, as they were
        kept += parked.rows()
    if rows is not None:                # rows: (job, compiled, static, set index)
        kept = [(e[0], e[1], 0.0) for e in kept]
    if fs:
        out = fs_entries(c, kept)
    else:
        out = [(j, cr, serv(j, now, qt.get(j.id, j.submit_time), bp.get(j.id, 0))
                if serv and not j.system_priority else prio(j)) for j, cr, _p in kept]
    out += new
    out.sort(key=entry_key)
    return out, *_fixed(c, out), capped, None, None


def _fs_rank(c: Cycle, kept: list, new: list, rows, parked) -> tuple[list, Any, Any] | None:
    """(order, rows, parked) of the kept jobs (rows of `rows`, or entries without it), the
    parked ones (`parked`, core/parked.py) and the new entries, ranked by core/fsrank
    where it applies (no system priority), else None; the jobs a limit stops are parked
    where core/parked.applies, else ranked with the rest."""
    if not fsrank.applies(c) or fsrank.any_system_priority(new) or (
            rows is None and fsrank.any_system_priority(kept)):
        return None
    made = fsrank.rows_of(c, kept, new, rows)
    if parked is not None and parked.ids and (
            rows is None or made.creds is not rows.creds or not parkedmod.applies(c)):
        back = fsrank.new_rows(c, parked.rows(), made)       # credential indexes anew
        made.rows = fsrank.merge(made.rows, back)
        parked = None
    if parkedmod.applies(c):
        parked = parked if parked is not None else parkedmod.Parked()
        made.rows = parkedmod.settle(c, parked, made.rows, made.creds)
    tails_of = _sets_tails(c, _tails(c))
    order = fsrank.rank(c, made, tails_of)
    parkedmod.place(c, parkedmod.view(c, parked, tails_of, made.creds)
                    if parked is not None else None)
    return order, made, parked


def _any_capped(c: Cycle, entries: list) -> bool:
    """Whether a job of `entries` has a credential set with a fair-share cap (always False
    without caps or with a passive policy). O(len(entries)) look-ups when caps exist."""
    if c.passive_policy or not c.policy.fs.has_caps:
        return False
    capped = c.policy.fs.capped
    return any(capped((j.user, j.group, j.account, j.qos, j.class_)) for j in map(_JOB, entries))


def _under_caps(c: Cycle, kept: list) -> list:
    """The kept entries whose job no fair-share cap blocks now; the others are dealt with
    as Cycle.select deals with a capped job (fair-share usage moves every cycle, so a
    kept job's cap is asked again: one look-up per job whose credentials have no cap,
    FairShare.capped)."""
    fs = c.policy.fs
    cap, capped, out = fs.cap_violation, fs.capped, []
    for e in kept:
        j = e[0]
        if not capped((j.user, j.group, j.account, j.qos, j.class_)):
            out.append(e)
            continue
        why = cap(j)
        if why:
            jid = e[0].id
            deferral.reset_accrual(c, jid, "limit")
            c.report(jid, ReportStatus.BLOCKED, f"blocked: {why}")
        else:
            out.append(e)
    return out


def _fixed(c: Cycle, entries: list, static: float | None = None) -> tuple[bool, float | None]:
    """Whether the order of `entries` stays fixed in time, with every static part equal (to
    `static` when given), and that static part (None for no entries). O(len(entries))."""
    eng, qt = c.engine, c.state.queue_time
    if c.serv() is None or not eng.order_fixed:
        return False, None
    jobs = list(map(_JOB, entries))
    if any(map(_SYSTEM_PRIORITY, jobs)) or (qt and any(j.id in qt for j in jobs)):
        return False, None
    hits = map(eng._prefix.get, map(_ID, jobs))             # the look-ups in C: 200,000 jobs
    values = {static} if static is not None else set()      # the first value seen is kept
    values.update([h[1] if h is not None and h[0] is j else eng.static_sum(j)
                   for j, h in zip(jobs, hits)])
    if len(values) > 1 or any(v != v for v in values):      # NaN equals nothing
        return False, None
    return True, next(iter(values), None)


def _key(e) -> tuple:
    job = e[0]
    return (job.submit_time, len(job.id), job.id)


