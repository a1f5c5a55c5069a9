"""Backfill, a pass over the cycle context (core/cycle.Cycle), with BACKFILLPOLICY's helpers:
the metric BESTFIT and GREEDY maximise, GREEDY's search, and BFPRIORITYPOLICY's candidate
order (shortest first: SJBF).

BESTFIT needs no search of its own: within one backfill pass resources only shrink, so
"start the fitting job with the largest metric, repeat" is first-fit over the candidates
sorted by metric (ties keep priority order). The cycle does exactly that.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate
from operator import attrgetter, itemgetter
from typing import Callable, Sequence

from ..cfg.choices import BackfillMetric, BackfillOrder, BackfillPolicy
from ..model import Job, StartKind
from ..planning import maui33, memo
from ..planning.api import Ability
from ..predict.predictors import accuracy
from .askable import Askable
from .limits import HARD, SOFT


METRICS: dict[BackfillMetric, Callable[[Job], float]] = {
    BackfillMetric.PROCS: lambda job: float(job.procs),
    BackfillMetric.PROCSECONDS: lambda job: float(job.procs * job.wallclock),
    BackfillMetric.SECONDS: lambda job: float(job.wallclock),
}
"""BACKFILLMETRIC -> what BESTFIT and GREEDY maximise (NODES is read as PROCS, as 3.3.1)."""


def metric(job: Job, kind: BackfillMetric) -> float:
    """BACKFILLMETRIC of one job."""
    return METRICS[kind](job)


def greedy_pick(cands: Sequence[tuple], procs: int, kind: BackfillMetric, max_schedules: int) -> list[tuple]:
    """The subset of (pos, job, ...) candidates with the largest total metric whose
    processors fit in `procs`: depth-first search with backtracking over at most
    `max_schedules` partial schedules (BACKFILLMAXSCHEDULES), best bound first.
    Returns the chosen candidates in priority (input) order. O(max_schedules)."""
    value = METRICS[kind]
    items = sorted(range(len(cands)), key=lambda i: -value(cands[i][1]))
    values = [value(cands[i][1]) for i in items]
    sizes = [cands[i][1].procs for i in items]
    suffix = [0.0] * (len(items) + 1)
    for k in range(len(items) - 1, -1, -1):
        suffix[k] = suffix[k + 1] + values[k]
    best_val, best_set = 0.0, []
    visited = 0
    stack = [(0, procs, 0.0, [])]
    while stack and visited < max_schedules:
        k, room, val, chosen = stack.pop()
        visited += 1
        if val > best_val:
            best_val, best_set = val, chosen
        if k >= len(items) or val + suffix[k] <= best_val:
            continue
        stack.append((k + 1, room, val, chosen))
        if sizes[k] <= room:
            stack.append((k + 1, room - sizes[k], val + values[k], chosen + [items[k]]))
    return [cands[i] for i in sorted(best_set)]


# ------------------------------------------------------------------ the pass
def backfill(c, order, first: int = 0) -> None:
    """Backfill over order[first:] (core/changes.py: the jobs before did not fit last cycle
    and fit no better now), the first BACKFILLDEPTH candidates only when it is set."""
    run = c.settings.bf_pass.run
    if run is None or (c.table.free_now <= 0 and not (c.settings.compat.windows and c.access)) \
            or _all_placed(c, order, first):
        return
    by = ORDERS[c.settings.bf_order]
    if c.settings.compat.windows:   # the free count leaves out what reservations hold for some
        by_windows(c, run, order, first, by)
        return
    if run is first_fit and by is None and c.settings.bf_depth <= 0:
        if not c.limits.any_active:
            first_fit(c, order[first:] if first else order, SOFT, first)
            return
        if IN_ORDER_LIMITS:
            _in_order_limited(c, order, first)
            return
    st = c.state
    started, reserved, nobf = c.started, st.reservations, c.settings.no_backfill
    base = [(k, job, cr) for k, (job, cr, _p) in enumerate(order[first:] if first else order, first)
            if job.id not in started and job.id not in reserved
            and not (nobf and job.qos in nobf)]
    # without throttling limits the hard pass would ask the same jobs again, after the soft
    # one, on resources that only shrank: it could start nothing
    soft_blocked: list | None = None
    for level in (SOFT, HARD) if c.limits.any_active else (SOFT,):
        if c.table.free_now <= 0:
            return
        # base left out the jobs started before; only a pass since can have started more
        cands = base[:] if level is SOFT else [e for e in base if e[1].id not in c.started]
        if c.settings.bf_depth > 0:
            cands = cands[: c.settings.bf_depth]
        if by is not None:
            cands.sort(key=by(c))
        if level is HARD and soft_blocked is not None:
            cands = hard_candidates(cands, soft_blocked)
        if run is first_fit and level is SOFT:
            soft_blocked = []
            first_fit(c, cands, level, blocked=soft_blocked)
        else:
            run(c, cands, level)


IN_ORDER_LIMITS = True
"""FIRSTFIT in priority order under throttling limits runs its soft pass over the order's
own entries (_in_order_limited); False: over a candidate list of the whole order, as the
other policies (the definition tests/property/test_backfill_in_order.py compares against)."""


def _in_order_limited(c, order, first: int) -> None:
    """backfill()'s two FIRSTFIT passes (soft limits, then hard) in priority order, no
    BACKFILLDEPTH, under throttling limits, without a candidate list of the whole queue:
    the soft pass walks order[first:] itself (first_fit's `first` mode, which passes over
    the jobs started, reserved or NOBF as the list leaves them out), noting the jobs a
    soft limit stopped; the hard pass asks those, in order, as hard_candidates gives them.
    Exact: the same candidates in the same order at the same positions; first_fit's early
    end (`least`, the fewest processors from here on) counts the passed-over jobs too, so
    it may walk further, but a candidate there is wider than what is free (which only
    shrinks in the pass) and is passed over before any limit is asked. O(order) for the
    walk, without the list."""
    if c.table.free_now <= 0:
        return
    blocked: list = []
    first_fit(c, order[first:] if first else order, SOFT, first, blocked=blocked)
    if blocked and c.table.free_now > 0:
        first_fit(c, blocked, HARD)


def hard_candidates(cands: list, soft_blocked: list) -> list:
    """The candidates of FIRSTFIT's hard pass after its soft pass: those a soft limit
    stopped, in order. The soft pass asked every candidate it reached; one no soft limit
    stopped started or did not fit (or failed a reservation's gate, a necessary condition
    of fitting), and fails again on what only shrank since (nothing is released between
    the passes: the candidates hold no reservation); one it did not reach was narrower
    than nothing free, and stays so. O(len(cands))."""
    held = set(map(id, soft_blocked))
    return [e for e in cands if id(e) in held]


def by_windows(c, run, order, first: int, by) -> None:
    """MAUICOMPAT 3.3: Maui's MQueueBackFill. Window after window, shortest first
    (planning/maui33.window_after), the candidates that fit the window's processors and
    duration go to the policy's pass, placed on the window's nodes only; the next window
    is found on the table as the starts left it. Soft limits only (Maui 3.3 backfills at
    its soft policy level). GREEDY starts nothing: MBFGreedy (src/MBF.c) walks its job
    list LBFQueue, which it clears and never fills (docs/compatibility.md S9)."""
    if run is greedy:
        return
    started, reserved, nobf = c.started, c.state.reservations, c.settings.no_backfill
    base = [(k, job, cr) for k, (job, cr, _p) in enumerate(order[first:] if first else order, first)
            if job.id not in reserved and not (nobf and job.qos in nobf)]
    if c.settings.bf_depth > 0:
        base = base[: c.settings.bf_depth]
    if by is not None:
        base.sort(key=by(c))
    prev = 0
    open_to_all = frozenset(c.table.with_credits(
        o for o, a in c.access.items() if maui33.bf_window_admits(a))) if c.access else frozenset()
    while c.table.free_now > 0 or open_to_all:
        w = maui33.window_after(c.table, prev, open_to_all)
        if w is None:
            return
        prev, mask, procs = w
        cands = [(k, job, maui33.within(cr, mask)) for k, job, cr in base
                 if job.id not in started and job.procs <= procs and c.span(job) <= prev]
        if cands:       # a window counts the processors of reservations BFWindow may use
            run(c, cands, SOFT, slack=procs if open_to_all else 0)


def _all_placed(c, order, first: int) -> bool:
    """Every job of order[first:] started this cycle or holds a reservation (conservative
    backfill, where every waiting job reserves): nothing is left to backfill. Set
    operations in C, tried only when the counts allow it. O(len(order) - first)."""
    res, started = c.state.reservations, c.started
    if len(order) - first > len(res) + len(started):
        return False
    ids = {e[0].id for e in (order[first:] if first else order)}
    ids.difference_update(started)
    return res.keys() >= ids


def first_fit(c, cands, level, first: int | None = None, slack: int = 0,
              blocked: list | None = None) -> None:
    """FIRSTFIT: each candidate (position in the order, job, compiled request), in the
    given order, starts if it fits now around every reservation and within the limits of
    `level`. With `first`, `cands` are the order's own entries from position `first` on,
    and the jobs started or holding a reservation or NOBF are passed over here: no list
    of candidates is built (backfill's one pass in priority order). `slack`: processors
    held by reservations some candidates may use, added to the free count that ends the
    pass early (by_windows: a window counts them). `blocked`: where the candidates a
    limit of `level` stopped are noted (the hard pass after a soft one asks only those)."""
    if GROUPED and first is not None and len(cands) >= GROUP_FROM and not c.limits.any_active \
            and not c.access and Ability.COUNTS not in c.table.abilities:
        _first_fit_grouped(c, cands, first, slack)
        return
    if DEAD_FIRST and DEAD and not c.access and not c.limits.any_active:
        _first_fit_dead_first(c, cands, first, slack)
        return
    table = c.table
    if first is None:
        procs = [e[1].procs for e in cands]
    else:                               # in C: a first cycle's order holds every queued job
        procs = list(map(_PROCS, map(_ENTRY_JOB, cands)))
        started, reserved, nobf = c.started, c.state.reservations, c.settings.no_backfill
    least = list(accumulate(reversed(procs), min))     # least[i]: the fewest from i on
    least.reverse()
    limited = c.limits.any_active
    shared = bool(c.access)
    gated = 0 < len(c.state.reservations) <= MAX_GATES and Ability.COUNTS in table.abilities
    gates = one = w = None              # made for the first candidate narrow enough
    span = c.span
    skip = DEAD and not shared          # ignore() may differ between jobs of one request
    dead: dict[int, int] = {}           # id(cr) -> shortest span failed at dead_at: see DEAD
    dead_at, shrink = memo.epoch(table), c.shrink     # fits_now's ceilings asked first
    for i, e in enumerate(cands):
        free = table.free_now + slack
        if free <= 0 or free < least[i]:
            break                       # no job left in this pass is narrow enough
        n = procs[i]
        if n > free:
            continue
        if first is None:
            k, job, cr = e
        else:
            job, cr, _p = e
            if job.id in started or job.id in reserved or (nobf and job.qos in nobf):
                continue
            k = first + i
        if gated and gates is None:
            gates = reservation_gates(c.state.reservations, table, c.now)
            one = gates[0] if len(gates) == 1 else None
        if gates and gated_out(gates, one, n, w := span(job)):
            continue                    # it would run into a reservation's start
        if limited and c.limits.active_violation(job, c.usage, level):
            if blocked is not None:
                blocked.append(e if first is None else (k, job, cr))
            continue
        if skip and ((fw := dead.get(id(cr))) is not None and span(job) >= fw
                     or shrink.above_most(memo.epoch(table), cr, ())):
            continue                    # (span asked only when cr failed before)
        p = c.fits_now(job, cr)
        if p:
            start_gated(c, job, p, k, gates, n, w)
        if skip:
            if memo.epoch(table) != dead_at:
                dead.clear()
                dead_at = memo.epoch(table)
            if not p:
                dead[id(cr)] = span(job)


def _first_fit_dead_first(c, cands, first: int | None, slack: int) -> None:
    """first_fit's walk without throttling limits or reservations some jobs may use, its
    pass memo (`dead`, DEAD) asked first of each candidate and the ceiling's verdict kept
    there: a candidate whose request failed at this epoch for a span no longer than its
    own is passed over before anything else is read. Exact: every other step that
    passes a candidate over only `continue`s (no limit notes it as blocked here), the
    early end (free < least) is met at the next candidate asked (free unchanged, least
    not decreasing), and a ceiling holds for every span until the epoch moves, when the
    memo is emptied as DEAD's is. O(1) per candidate, fewer steps than first_fit's."""
    table = c.table
    j, r = (1, 2) if first is None else (0, 1)      # where an entry holds the job, the request
    procs = list(map(_PROCS, map(itemgetter(j), cands)))
    least = list(accumulate(reversed(procs), min))     # least[i]: the fewest from i on
    least.reverse()
    started, reserved, nobf = c.started, c.state.reservations, c.settings.no_backfill
    gated = 0 < len(reserved) <= MAX_GATES and Ability.COUNTS in table.abilities
    gates = one = w = None
    span = c.span
    dead: dict[int, int] = {}           # id(cr) -> shortest span failed at dead_at (0: any)
    dead_at, shrink = memo.epoch(table), c.shrink
    for i, e in enumerate(cands):
        cr = e[r]
        fw = dead.get(id(cr))
        if fw is not None and span(e[j]) >= fw:
            continue
        free = table.free_now + slack
        if free <= 0 or free < least[i]:
            break                       # no job left in this pass is narrow enough
        n = procs[i]
        if n > free:
            continue
        job = e[j]
        if first is None:
            k = e[0]
        elif job.id in started or job.id in reserved or (nobf and job.qos in nobf):
            continue
        else:
            k = first + i
        if gated and gates is None:
            gates = reservation_gates(reserved, table, c.now)
            one = gates[0] if len(gates) == 1 else None
        if gates and gated_out(gates, one, n, w := span(job)):
            continue                    # it would run into a reservation's start
        if shrink.above_most(dead_at, cr, ()):
            dead[id(cr)] = 0            # fails for every span while the epoch holds
            continue
        p = c.fits_now(job, cr)
        if p:
            start_gated(c, job, p, k, gates, n, w)
        if memo.epoch(table) != dead_at:
            dead.clear()
            dead_at = memo.epoch(table)
        if not p:
            dead[id(cr)] = span(job)


DEAD_FIRST = True
"""first_fit without throttling limits or reservations some jobs may use walks its
candidates by _first_fit_dead_first (the pass memo asked first, ceilings kept in it);
False: first_fit's own walk (the definition tests/property/test_easy55_dead_first.py
compares against)."""


GROUPED = True
"""FIRSTFIT in priority order (first_fit's `first` mode: not BESTFIT's sorted lists, whose
first cycles share requests little) on the node table without throttling limits or
reservations open to some jobs asks only the candidates its failure memo lets through,
as policy/askable.Askable hands them out (_first_fit_grouped); False: first_fit visits every candidate (the definition
tests/property/test_askable.py compares against). Not on the count planner: its requests
are task counts (few share one object), and its start-now questions are cheap."""


def _first_fit_grouped(c, cands, first: int | None, slack: int) -> None:
    """first_fit's walk (no limits, no reservation some jobs may use: one failure memo per
    compiled request, nothing noted as blocked) over the candidates Askable hands out, in
    runs of CHUNK, 2 CHUNK, 4 CHUNK ... candidates (a pass that ends early groups little
    more than it walks), each run's Askable taking the failures of those before.
    Exact: a candidate it leaves out is one first_fit passes over by its `dead` memo (DEAD)
    (its request failed this pass, at this epoch, for a span no longer than its own), with
    no effect (nothing started, gates made later on the same table), or one of a group
    dropped as wider than what is free (_GroupedWalk.run); first_fit's early end at a
    left-out position is met at the next one handed out (free unchanged, `least` not
    decreasing, so that one is wider than what is free too); after a start that moves the
    planner's epoch every failure and drop is forgotten, as the memo forgets it. O(n) for
    the groups (a dict step per candidate) plus O(log groups) per candidate handed out,
    against first_fit's O(n) walk."""
    j, r = (1, 2) if first is None else (0, 1)     # where an entry holds the job, the request
    walk = _GroupedWalk(c, cands, j, first, slack)
    lo, size, failed = 0, CHUNK, None
    while lo < len(cands):
        run = cands[lo:lo + size]
        ask = Askable(map(id, map(itemgetter(r), run)), list(map(c.span, map(itemgetter(j), run))),
                      failed)
        if not walk.run(ask, run, lo, r):
            return
        lo, size, failed = lo + size, 2 * size, ask.failures()


GROUP_FROM = 512
"""The fewest candidates a pass groups: a shorter one walks them (on the site benchmark's
7 days, passes of 128-255 candidates, about five to a request, cost more grouped; deep
queues' passes of 700 and more, twenty to a request, less)."""

CHUNK = 256
"""_first_fit_grouped's first run of candidates (each next one twice as long)."""


class _GroupedWalk:
    """_first_fit_grouped's state over its runs: the epoch, the gates, what a candidate
    is passed over for (started, reserved, NOBF: `first` mode)."""

    __slots__ = ("c", "cands", "j", "first", "slack", "epoch", "gated", "gates", "one", "least")

    def __init__(self, c, cands, j: int, first: int | None, slack: int) -> None:
        self.c, self.cands, self.j, self.first, self.slack = c, cands, j, first, slack
        self.least: list[int] | None = None
        self.epoch = memo.epoch(c.table)
        self.gated = 0 < len(c.state.reservations) <= MAX_GATES and Ability.COUNTS in c.table.abilities
        self.gates = self.one = None

    def _least(self) -> list[int]:
        """least[i]: the fewest processors of cands[i:] (made when first needed). O(n) in C."""
        if self.least is None:
            least = list(accumulate(reversed(list(map(_PROCS, map(itemgetter(self.j),
                                                                  self.cands)))), min))
            least.reverse()
            self.least = least
        return self.least

    def run(self, ask: Askable, run, lo: int, r: int) -> bool:
        """Ask what `ask` hands out of run = cands[lo:...]; False: the pass is over. A
        candidate wider than what is free ends the pass when every one after it is too
        (first_fit's early end: a narrower one is never), else its group is dropped: its
        members ask for the same processors (one compiled request, one JobRequest), and
        what is free only shrinks until the epoch moves (`reset` brings them back)."""
        c, first, j = self.c, self.first, self.j
        table = c.table
        started, reserved, nobf = c.started, c.state.reservations, c.settings.no_backfill
        while (i := ask.pop()) is not None:
            free = table.free_now + self.slack
            if free <= 0:
                return False
            e = run[i]
            job = e[j]
            n = job.procs
            if n > free:
                if free < self._least()[lo + i]:
                    return False        # no job left in this pass is narrow enough
                ask.drop()
                continue
            if first is not None and (job.id in started or job.id in reserved
                                      or (nobf and job.qos in nobf)):
                ask.passed()
                continue
            if self.gated and self.gates is None:
                self.gates = reservation_gates(c.state.reservations, table, c.now)
                self.one = self.gates[0] if len(self.gates) == 1 else None
            gates, one, w = self.gates, self.one, ask.spans[i]
            if gates and gated_out(gates, one, n, w):
                ask.passed()            # it would run into a reservation's start
                continue
            p = c.fits_now(job, e[r])
            if not p:
                ask.failed()
                continue
            start_gated(c, job, p, e[0] if first is None else first + lo + i, gates, n, w)
            ask.passed()
            if memo.epoch(table) != self.epoch:
                self.epoch = memo.epoch(table)
                ask.reset(i)
        return True


DEAD = True
"""first_fit passes over a candidate whose compiled request failed to start now earlier in
the pass, at the same epoch, for a span no longer than its own; False: it asks fits_now
(the definition tests/property/test_easy54_dead.py compares against). Within a pass that
only starts jobs what is free only shrinks until something is given back (the planner's
`freed`, planning/memo), so while it stays the request fails again for that span or longer:
fits_now's own memo says the same, at the cost of a call per candidate (a pass's tail,
where nothing fits the last free resources, asks it for thousands). A dict keyed by
id(cr) (the candidates keep the requests alive for the pass) holding the shortest span
failed, emptied when the epoch moved after a question or a start: O(1) a candidate. Not
with reservations some jobs may use (ignore() may differ between jobs of one request)."""


_PROCS, _ENTRY_JOB = attrgetter("procs"), itemgetter(0)
MAX_GATES = 4
"""Gates are made when there are at most this many reservations (EASY and shallow depths);
with many, making them costs more than the scans they save."""


def gated_out(gates: list[list[int]], one: list[int] | None, n: int, w: int) -> bool:
    """Would a job of n processors running w seconds run into a reservation's start (a
    gate (room, cap) it outlasts with fewer than n processors left there)? `one`: the
    only gate, if there is one. O(gates)."""
    return (n > one[1] and w > one[0] if one is not None
            else any(n > cap and w > room for room, cap in gates))


def start_gated(c, job, p, k: int, gates, n: int, w: int | None) -> None:
    """Start a backfill candidate at position k; each gate it outlasts (w: its span,
    known whenever there are gates) has n processors fewer left. O(gates)."""
    c.start(job, p, StartKind.BACKFILL, k)
    if gates:
        for g in gates:
            if w > g[0]:
                g[1] -= n


def reservation_gates(reservations, table, now: int) -> list[list[int]]:
    """[seconds from now to its start, free processors at that instant] of the
    reservations to come, on a count table: a job planned to run longer than that (its
    max(span, 1) would reach the start, which is at least a second away) needs that many
    free there, a necessary condition checked in O(1) before the planner is asked (which
    stays the judge). first_fit keeps them up to date as it starts jobs;
    core/changes.arrivals_wait reads them. O(P) per reservation."""
    starts = sorted({kr.start for kr in reservations.values() if kr.start > now})
    return [[s - now, table.free_procs_at(s)] for s in starts]


def greedy(c, cands, level) -> None:
    """GREEDY as documented: per backfill window, the combination of jobs with the
    largest total metric (3.3.1 starts nothing here: docs/compatibility.md)."""
    while True:
        left = [e for e in cands if e[1].id not in c.started
                and not c.limits.active_violation(e[1], c.usage, level)]
        if not left or c.table.free_now <= 0:
            return
        progress = False
        for w in c.table.windows():
            fit = [e for e in left if e[1].procs <= w.procs and c.span(e[1]) <= w.duration]
            if not fit:
                continue
            for k, job, cr in greedy_pick(fit, w.procs, c.settings.bf_metric, c.settings.bf_max):
                p = c.fits_now(job, cr)
                if p:
                    c.start(job, p, StartKind.BACKFILL, k)
                    progress = True
            if progress:
                break
        if not progress:
            for k, job, cr in sorted(left, key=lambda e: -metric(e[1], c.settings.bf_metric)):
                if job.procs <= c.table.free_now:
                    p = c.fits_now(job, cr)
                    if p:
                        c.start(job, p, StartKind.BACKFILL, k)
            return


def best_fit(c, cands, level, slack: int = 0) -> None:
    """BESTFIT: first fit over the candidates by BACKFILLMETRIC, largest first (ties keep
    priority order)."""
    value = METRICS[c.settings.bf_metric]
    first_fit(c, sorted(cands, key=lambda e: -value(e[1])), level, slack=slack)


@dataclass(frozen=True, slots=True)
class BackfillPass:
    """One BACKFILLPOLICY: the pass run over the candidates, once per limit level, and what
    the cycle may assume about it (the only place a backfill policy is described)."""

    run: Callable | None
    """None: no backfill."""
    countable: bool
    """Its starts depend only on the order and what is free, not on the shape of the free
    windows: the count planner (planning/counts.py) can plan it."""
    resumable: bool
    """A cycle that only added jobs may resume it where the last cycle's pass stopped
    (core/changes.py)."""


PASSES: dict[BackfillPolicy, BackfillPass] = {
    BackfillPolicy.FIRSTFIT: BackfillPass(first_fit, countable=True, resumable=True),
    BackfillPolicy.BESTFIT: BackfillPass(best_fit, countable=True, resumable=True),
    BackfillPolicy.GREEDY: BackfillPass(greedy, countable=False, resumable=False),
    BackfillPolicy.PREEMPT: BackfillPass(first_fit, countable=True, resumable=False),
    BackfillPolicy.NONE: BackfillPass(None, countable=True, resumable=True),
}
"""BACKFILLPOLICY -> its pass (PREEMPT: maui-py preempts nothing and backfills first fit;
NONE: no backfill). A new policy is a row here and a keyword in cfg/choices.py."""


def _by_span(c) -> Callable[[tuple], float]:
    """DURATION: shortest planned runtime first (SJBF): the prediction when one is made,
    else the request."""
    span = c.span
    return lambda e: span(e[1])


def _by_accuracy(c) -> Callable[[tuple], float]:
    """HWDURATION: shortest request x the user's past runtime / request (Maui's WCAccuracy)."""
    history = c.state.history
    return lambda e: e[1].wallclock * accuracy(history, e[1].user)


ORDERS: dict[BackfillOrder, Callable | None] = {
    BackfillOrder.NONE: None, BackfillOrder.RANDOM: None,
    BackfillOrder.DURATION: _by_span, BackfillOrder.HWDURATION: _by_accuracy,
}
"""BFPRIORITYPOLICY -> the sort key of the backfill candidates, made per pass (None: priority
order; Maui's RANDOM gives every job the same backfill priority, so the first found wins).
Sorting is stable: ties keep priority order. Maui 3.3.1 orders PREEMPT's candidates so
(MJobGetBackfillPriority); maui-py every backfill policy's."""
