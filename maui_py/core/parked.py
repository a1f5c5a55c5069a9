"""Jobs a throttling limit stops, kept out of the fair-share order between cycles (issue 33).

Under fair share with throttling limits a deep queue is mostly jobs one limit stops (a QOS
MAXJOB): every cycle ranked, walked by the priority pass and by backfill, and passed over.
A kept job whose limit plan (policy/limits.Limits.active_plan) is over a limit at both
levels (SOFT and HARD) with the usage of the cycle's start is *parked*: left out of the
order the passes get, in a group per (plan, credential set, static priority part), each
group's jobs in (queue time, submit, id length, id) order. A plan's jobs are woken (back in
the ranked rows) the first cycle its verdict at either level is no longer "over" (a job
under the limit ended, the configuration changed), and a job leaves its group when it
leaves the queue, changes (a new Job object: a hold, a runjob) or is held or deferred.

Exactness (the definition is the same cycle with PARK off). Within a cycle usage only
grows (Usage.add), so a parked job would be stopped by its limit wherever the priority
pass or backfill (its soft and its hard pass) asked it: it starts nothing, reserves
nothing, is deferred by nothing, and with explain off nothing reports it. What it does in
the order is only where it stands: (1) the priority pass counts the jobs after the first
blocked one as waiting (StartKind.BACKFILL, QFLAGS=NOBF): `Cycle.parked_at` is where the
first parked job would stand in the order the passes get; (2) each backfill start adds one
to the bypass count of every waiting job before it: `bump` adds it to the parked jobs that
rank before the started one; (3) the cycle's result lists every queued job in order:
`FullOrder` merges the parked jobs back in when it is read. A parked job's priority is
core/fsrank.rank's arithmetic, and within a group it falls with the queue time, so the
jobs before a key are a prefix of the group plus a run of equal priorities (bisect).
Positions the passes record are positions in the order they get, and the unparked jobs'
bypass counts come from that order (core/finish._bypassed), so every count is the one the
whole order gives. Parking applies only where nothing else reads a blocked job: explain
off, no idle limits, no REJECTNEGPRIOJOBS, no BACKFILLDEPTH (which counts blocked jobs),
no MAUICOMPAT windows, no HIGHEST re-make and no re-plan of kept reservations (both read
the order's head); a job holding a reservation, with a runjob or with a fair-share cap is
never parked. tests/property/test_parked.py replays random queues with PARK on and off.

Cost per cycle: O(plans parked) verdicts, O(groups x log jobs) for where the first parked
job stands, O(groups + parked jobs) for the bump (BUMP_AT_ONCE); the ranking and the
walks cost O(jobs not parked).
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate, chain, repeat
from operator import add, itemgetter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..planning.api import Ability
from ..priority.engine import entry_key
from ..cfg.choices import ReservationPolicy
from ..policy.limits import HARD, SOFT
from .fsrank import merge, row_key
from .lazyids import LazyIds

if TYPE_CHECKING:
    from .context import CycleContext as Cycle

PARK = True
"""Keep limit-stopped jobs out of the fair-share order between cycles; False: every job
ranked and walked, the definition tests/property/test_parked.py compares against."""


@dataclass(slots=True)
class Group:
    """Parked jobs of one plan, credential set (index `ci` into fsrank.Rows.creds) and
    static part: `members` (queue time, submit, id length, id, row), sorted. A new tuple
    on every change: a cycle's view keeps the one it saw."""

    plan: Any
    ci: int
    static: float
    members: tuple = ()
    ids: tuple = ()
    """The members' job ids, in members' order (set with them: _put)."""


@dataclass(slots=True)
class Parked:
    """The parked jobs of one selection cache (same table, configuration and engine)."""

    groups: dict = field(default_factory=dict)
    """(id(plan), ci, static) -> Group."""
    plans: dict = field(default_factory=dict)
    """id(plan) -> (plan, a parked job of it: the job its verdict is asked for)."""
    ids: set = field(default_factory=set)
    """id(job) of every parked job (the live queue's objects: matched by identity)."""

    def rows(self) -> list:
        return [m[4] for g in self.groups.values() for m in g.members]

    def check(self, qt: dict) -> None:
        """Raise AssertionError unless the groups hold `ids`, each sorted, each job's
        queue time and row as recorded."""
        seen = set()
        for (pid, ci, s), g in self.groups.items():
            assert g.members and list(g.members) == sorted(g.members, key=_MKEY)
            assert g.ids == tuple(m[3] for m in g.members)
            assert pid == id(g.plan) and pid in self.plans and g.ci == ci and g.static == s
            for m in g.members:
                job = m[4][0]
                assert m[0] == qt.get(job.id, job.submit_time), job.id
                assert m[4][2] == s and m[4][3] == ci
                seen.add(id(job))
        assert seen == self.ids


_UNKNOWN = object()


def _mkey(m) -> tuple:
    return m[:4]


def _put(g: Group, members: tuple) -> None:
    """Set a group's members (sorted) and their ids. O(members)."""
    g.members = members
    g.ids = tuple([m[3] for m in members])


_MKEY = _mkey
_IDS = itemgetter(2)
"""A View group's job ids."""


def applies(c: Cycle) -> bool:
    """Parking may apply this cycle (see the module's docstring). O(1)."""
    s = c.settings
    return (PARK and not c.explain and c.limits.any_active and not c.limits.any_idle
            and not s.reject_neg and s.bf_depth <= 0 and not s.compat.windows
            and s.res_policy is not ReservationPolicy.HIGHEST
            and Ability.REPLAN not in c.table.abilities)


def _stopped(c: Cycle, job) -> bool:
    lim, usage = c.limits, c.usage
    return bool(lim.active_violation(job, usage, SOFT)) and bool(
        lim.active_violation(job, usage, HARD))


def settle(c: Cycle, parked: Parked, rows: list, creds: list) -> list:
    """Wake the plans no longer stopped (their rows merged back into `rows`, which are in
    fsrank.row_key order) and park the rows of `rows` now stopped; returns the rows left
    to rank (a row's verdict is a look-up in Limits.active_violation's per-plan memo:
    settle adds to no usage; a row whose job's kept plan is empty, most of them, is
    kept without asking: active_violation answers None for it). O(plans parked + rows),
    plus O(woken log) to merge them back."""
    st = c.state
    woken: list = []
    for pid, (plan, job) in list(parked.plans.items()):
        if not _stopped(c, job):
            woken += _unpark_plan(parked, pid)
    if st.run_now:
        for jid in st.run_now:
            job = c.by_id.get(jid)
            if job is not None and id(job) in parked.ids:
                woken += drop(parked, {id(job)})
    capped = c.policy.fs.capped if c.policy.fs.has_caps else None
    res, run_now, plans = st.reservations, st.run_now, c.limits.plans
    keep, park = [], []
    for r in rows:
        job = r[0]
        jid = job.id
        if (jid in res or jid in run_now
                or ((hit := plans.get(jid)) is not None and hit[0] is job and not hit[1])
                or not _stopped(c, job) or (capped is not None and capped(creds[r[3]]))):
            keep.append(r)
        else:
            park.append(r)
    if park:
        qt, touched = st.queue_time, set()
        for r in park:
            job = r[0]
            plan = plans[job.id][1]
            key = (id(plan), r[3], r[2])
            g = parked.groups.get(key)
            if g is None:
                g = parked.groups[key] = Group(plan, r[3], r[2])
            touched.add(key)
            parked.plans.setdefault(id(plan), (plan, job))
            g.members += ((qt.get(job.id, job.submit_time), job.submit_time, len(jid := job.id),
                           jid, r),)
            parked.ids.add(id(job))
        for key in touched:
            g = parked.groups[key]
            _put(g, tuple(sorted(g.members, key=_MKEY)))
    if woken:
        woken.sort(key=row_key)
        keep = merge(keep, woken)
    return keep


def _unpark_plan(parked: Parked, pid: int) -> list:
    """Take every job of plan `pid` out; their rows. O(its jobs)."""
    out = []
    for key in [k for k in parked.groups if k[0] == pid]:
        g = parked.groups.pop(key)
        out += [m[4] for m in g.members]
        parked.ids.difference_update(id(m[4][0]) for m in g.members)
    del parked.plans[pid]
    return out


def drop(parked: Parked, gone: set) -> list:
    """Take the jobs whose id() is in `gone` out of their groups; their rows.
    O(parked jobs)."""
    out = []
    for key, g in list(parked.groups.items()):
        left = tuple(m for m in g.members if id(m[4][0]) not in gone)
        if len(left) < len(g.members):
            out += [m[4] for m in g.members if id(m[4][0]) in gone]
            if left:
                _put(g, left)
            else:
                del parked.groups[key]
    parked.ids.difference_update(gone)
    alive = {k[0] for k in parked.groups}
    for pid in [p for p in parked.plans if p not in alive]:
        del parked.plans[pid]
    for key, g in parked.groups.items():        # a plan's asked job must be parked
        plan, job = parked.plans[key[0]]
        if id(job) not in parked.ids:
            parked.plans[key[0]] = (plan, g.members[0][4][0])
    return out


class View:
    """What one cycle's parked jobs are: each group's (members, static part, ids) as the
    cycle saw them (`groups`, tuples: the Group objects change later), its credential
    set, and the clock and QUEUETIME terms fsrank.rank used. The groups' (TARG, FS) tails
    (None: no subfactors) are asked of `tails_of` (core/selection: found once per set and
    cycle) when first needed, which must be before the state's next cycle (`stale`)."""

    __slots__ = ("groups", "now", "w", "cw", "_sets", "_tails_of", "_tails", "_state",
                 "_iteration", "_heads")

    def __init__(self, groups: list, now: int, w: float, cw: float, sets: list, tails_of,
                 state):
        self.groups, self.now, self.w, self.cw = groups, now, w, cw
        self._sets, self._tails_of = sets, tails_of
        self._tails: list = [_UNKNOWN] * len(groups)
        self._state, self._iteration = state, state.iteration
        self._heads: list = [None] * len(groups)
        """Each group's first order key, once worked out (head)."""

    def tail(self, i: int):
        """The (TARG, FS) tail of group i's credential set (None: no subfactors).
        O(1) once known."""
        t = self._tails[i]
        if t is _UNKNOWN:
            if self._state.iteration != self._iteration:
                raise RuntimeError("parked jobs' priorities read after the state's next cycle")
            t = self._tails[i] = self._tails_of([self._sets[i]])[0]
        return t

    def tails(self) -> list:
        """The tail of every group's credential set, the unknown ones asked in one call."""
        ask = [i for i, t in enumerate(self._tails) if t is _UNKNOWN]
        if ask:
            if self._state.iteration != self._iteration:
                raise RuntimeError("parked jobs' priorities read after the state's next cycle")
            for i, t in zip(ask, self._tails_of([self._sets[i] for i in ask])):
                self._tails[i] = t
        return self._tails

    def head(self, i: int) -> tuple:
        """The order key of group i's first job: among its jobs of the highest priority,
        the smallest (submit, id length, id). O(ties)."""
        h = self._heads[i]
        if h is None:
            members, s, _ids = self.groups[i]
            t = self.tail(i)
            p = self.priority(s, t, members[0][0])
            h = (-p, *members[0][1:4])
            k = 1
            while k < len(members) and self.priority(s, t, members[k][0]) == p:
                h = min(h, (-p, *members[k][1:4]))
                k += 1
            self._heads[i] = h
        return h

    def before_entry(self, entry) -> bool:
        """Does some parked job rank before order entry `entry` (job, compiled, priority)?
        The groups asked one by one, the first that has one ends the question.
        O(groups) at most, each group's tail asked once a cycle."""
        key = entry_key(entry)
        for i in range(len(self.groups)):
            if self.head(i) < key:
                return True
        return False

    def priority(self, s: float, tail, qt: int) -> float:
        """fsrank.rank's priority of a job of queue time `qt`: the same operations."""
        q = self.now - qt
        q = q if q > 0 else 0
        p = s + self.cw * (0.0 + self.w * (q / 60.0))
        return p if tail is None else p + tail[0] + tail[1] + 0.0 + 0.0

    def keys(self, g: tuple, tail) -> list:
        """order_key of each member of view group `g` (members, static part, ids)."""
        prio, s = self.priority, g[1]
        return [(-prio(s, tail, m[0]), m[1], m[2], m[3]) for m in g[0]]

    def before(self, members: tuple, s: float, t, key: tuple) -> int:
        """How many of `members` (a group's, static part `s`, tail `t`) rank before
        order key `key`: those of higher priority (a prefix: priority falls with the
        queue time) and those of equal priority with a smaller (submit, id length, id).
        O(1) when all or none do, else O(log members + ties)."""
        prio, px = self.priority, -key[0]
        n = len(members)
        if prio(s, t, members[-1][0]) > px:
            return n
        if prio(s, t, members[0][0]) < px:
            return 0
        lo = bisect_left(members, key[0], key=lambda m: -prio(s, t, m[0]))
        k = lo
        while k < n and -prio(s, t, members[k][0]) == key[0]:
            if members[k][1:4] < key[1:]:
                lo += 1
            k += 1
        return lo


def view(c: Cycle, parked: Parked, tails_of, creds: list) -> View | None:
    """This cycle's View of `parked` (None when nothing is parked). O(groups)."""
    if not parked.groups:
        return None
    gs = list(parked.groups.values())
    w, _cap, _scap, cw = c.engine._qt_terms
    return View([(g.members, g.static, g.ids) for g in gs], c.now, w, cw,
                [creds[g.ci] for g in gs], tails_of, c.state)


def place(c: Cycle, v: View | None) -> None:
    """Tell the cycle what is parked (Cycle.parked) and how to ask whether a parked job
    ranks before an entry of the passes' order (Cycle.parked_at, asked by the priority
    pass only while no job waits before it). O(1)."""
    c.parked = v
    c.parked_at = None if v is None else v.before_entry


BUMP_AT_ONCE = True
"""bump: a group all of whose jobs rank before the highest-priority backfill start of the
cycle gets all of the cycle's starts at once, one dictionary update per job; False: one
update per job and start it ranks before, the definition tests/property/test_parked_bump.py
compares against."""


def bump(c: Cycle, order: list, bf: list[int]) -> None:
    """Each backfill start at position p of `order` adds one to the bypass count of every
    parked job ranked before it (core/finish._bypassed does the jobs of the order).

    At once (BUMP_AT_ONCE): the jobs ranked before an order key K are those whose order
    key is smaller, so those before the smallest start key K0 are before every start; a
    group whose `before` count for K0 is all of its jobs (nearly every group: parked jobs
    have waited long) gets len(bf) added to each job's count. Its last job has its
    lowest priority; when that is above K0's (`_wholly`, View.priority's operations in
    comprehensions: the same floats), `before` answers all of them at once, so the groups
    are told apart without a call each, and the runs of such groups get one update made
    in C, sliced from one list of every group's ids (the dictionary's keys met in the
    same order as group by group; no Python step per whole group). Other groups
    take the starts one by one, as the definition does. The counts are the same sums of
    the same ones. O(groups + parked jobs), plus O(jobs before each start) for the other
    groups."""
    v = c.parked
    bypass = c.state.bypass
    tails = v.tails()
    keys = [entry_key(order[p]) for p in bf]
    k0, nb, get = min(keys), len(keys), bypass.get
    if BUMP_AT_ONCE:
        groups = v.groups
        split = [i for i, whole in enumerate(_wholly(v, tails, -k0[0])) if not whole]
        split = [i for i in split                   # View.before's answer: not all
                 if v.before(groups[i][0], groups[i][1], tails[i], k0) < len(groups[i][0])]
        if not split:                               # every group wholly before: one run
            run = list(chain.from_iterable(map(_IDS, groups)))
            bypass.update(zip(run, map(add, map(get, run, repeat(0)), repeat(nb))))
            return
        offsets = list(accumulate(map(len, map(_IDS, groups)), initial=0))
        every = list(chain.from_iterable(map(_IDS, groups)))
        lo = 0
        for i in split + [len(groups)]:         # the runs of whole groups between them
            if offsets[i] > offsets[lo]:
                run = every[offsets[lo]:offsets[i]]
                bypass.update(zip(run, map(add, map(get, run, repeat(0)), repeat(nb))))
            if i < len(groups):
                members, s, ids = groups[i]
                _bump_each(v, bypass, members, s, tails[i], ids, keys)
            lo = i + 1
        return
    for (members, s, ids), t in zip(v.groups, tails):
        _bump_each(v, bypass, members, s, t, ids, keys)


def _wholly(v: View, tails: list, px: float) -> list[bool]:
    """For each group of `v`: is its last job's priority (View.priority's operations,
    the same floats) above `px`, so that all of its jobs rank before an order key of
    priority px (View.before's first answer)? O(groups) in two comprehensions."""
    now, w, cw = v.now, v.w, v.cw
    ps = [g[1] + cw * (0.0 + w * ((q if (q := now - g[0][-1][0]) > 0 else 0) / 60.0))
          for g in v.groups]
    return [(p if t is None else p + t[0] + t[1] + 0.0 + 0.0) > px for p, t in zip(ps, tails)]


def _bump_each(v: View, bypass: dict, members: tuple, s: float, t, ids: tuple,
               keys: list) -> None:
    """The definition for one group: one added to each of its jobs per start key of
    `keys` it ranks before. O(keys x (log members + jobs before))."""
    get = bypass.get
    for key in keys:
        n = v.before(members, s, t, key)
        for jid in ids[:n] if n < len(ids) else ids:
            bypass[jid] = get(jid, 0) + 1


class FullOrder(LazyIds):
    """The ids of the whole queue in order: the order the passes got with the parked
    jobs merged back in, worked out when first read (a replay never reads it), which
    must be before the state's next cycle (View.tails)."""

    __slots__ = ("_order", "_view", "_ids")

    def __init__(self, order: list, v: View):
        self._order, self._view, self._ids = order, v, None

    def _all(self) -> list:
        if self._ids is None:
            v = self._view
            keyed = [(entry_key(e), e[0].id) for e in self._order]
            for g, t in zip(v.groups, v.tails()):
                keyed += [(k, k[3]) for k in v.keys(g, t)]
            keyed.sort()
            self._ids = [jid for _k, jid in keyed]
            self._order = self._view = None
        return self._ids
