"""How long the queue's order stays as it is under QUEUETIME + XFACTOR priorities (issue 33).

With SERV = QUEUETIME + XFACTOR uncapped (PriorityEngine.xf_terms: config/easy.cfg) a
job's priority moves with time, so a cycle from what changed (core/changes.py) re-ranked
the whole queue every cycle, though the order moves only when two neighbours' priorities
cross. Here a ranked order gets a date up to which it stays ranked; until then the cycle
re-ranks nothing (the entries keep the priorities of the instant they were ranked at:
only their order is read, core/changes.run sorts by them only after working them out
again).

**Invariant.** A job queued since q0 <= t (no queue-time restart: the state's queue_time
is empty) has, as a real number, p(t) = S + cw (wq (t - q0) / 60 + wx (t - q0 + wc) / d),
linear in t with slope B = cw (wq / 60 + wx / d) (S its static part, wc its wallclock at
least 1, d = max(XFMINWCLIMIT, wc); PriorityEngine.xf_const). The float the engine works
out is within 8 ulp of a bound M on the terms' magnitudes over [now, now + HORIZON] of p.
So for neighbours a before b with float priorities pa - pb = gap > m = REL x M, the floats
stay strictly falling, a before b, while (B_b - B_a + slope margin) x (t - now) <= gap - m
(REL = 1e-9 against 8 x 2^-53 leaves a factor of 10^6 for the rounding); neighbours with
the same S, q0, wc and d get the same floats at every instant and keep their tie's order
(submit time, id); any other pair is dated `now`. The order is ranked up to the earliest
neighbour's date; a subsequence of it (the jobs started are taken out) too, as order is
transitive at each instant. `tests/property/test_kinetic_order.py` checks the dates
against ranking at each instant and a replay against KINETIC off.
"""

from __future__ import annotations

from itertools import islice
from operator import gt

from .engine import order_key

KINETIC = True
"""Date a ranked order (until) and let core/changes skip re-ranking it before then; False:
every cycle re-ranks the whole queue (the definition the property tests compare against)."""

PAIR_MEMO = True
"""until keeps each neighbours' pair date in the engine (PriorityEngine.pair_dates) and
takes it again, without working it out, while the pair is still neighbours and the date
not past: a pair's date holds whatever else the queue holds (it is about the two jobs'
lines only), so a re-ranked queue re-dates only the pairs it made new. False: every pair
is worked out at every call (the definition the property tests compare against)."""

HORIZON = 86_400
"""The furthest date given, in seconds after the ranking: bounds the magnitudes M."""

REL = 1e-9
"""The margin relative to M a priority gap must clear to be dated beyond now."""


def ranked(jobs: list, ps: list[float]) -> bool:
    """Are the entries (jobs[k], ps[k]) in strictly increasing order_key order? Priorities
    strictly falling decide it (compared in C); only where two are equal are the keys'
    tails (submit time, id) compared. O(len(jobs))."""
    if all(map(gt, ps, islice(ps, 1, None))):
        return True
    for k in range(1, len(ps)):
        if not order_key(jobs[k - 1], ps[k - 1]) < order_key(jobs[k], ps[k]):
            return False
    return True


def until(engine, jobs: list, ps: list[float], now: int, queue_time) -> int:
    """The last instant up to which `jobs`, ranked at `now` with the engine's priorities
    `ps` (serv_priorities at now, strictly increasing order_key), stay ranked by the
    module's invariant; -1 when it does not apply (off, another priority, or a queue time
    restarted). A neighbours' pair already dated in `engine.pair_dates` (PAIR_MEMO) at or
    after now keeps that date. O(len(jobs))."""
    if not KINETIC or engine.xf_terms is None or queue_time:
        return -1
    memo = engine.pair_dates if PAIR_MEMO else None
    if memo is not None and len(memo) > 4 * len(jobs) + 50_000:
        memo.clear()
    t = now + HORIZON
    prev = pp = pm = None
    for j, p in zip(jobs, ps):
        if j.submit_time > now:
            return now              # its wait is clipped at 0 until q0: not linear yet
        if prev is not None:
            h = memo.get(prev.id) if memo is not None else None
            if h is not None and h[1] is j and h[0] is prev and h[2] >= now:
                d, cur = h[2], None
            else:
                cur = moving(engine, j, p)
                d = pair_date(pm or moving(engine, prev, pp), cur, now)
                if memo is not None and d > now:
                    memo[prev.id] = (prev, j, d)
            if d < t:
                t = d
                if t <= now:
                    return now
            pm = cur
        prev, pp = j, p
    return t


def check_pairs(engine, now: int) -> None:
    """_check() of `engine.pair_dates`: each entry is keyed by its first job's id, and
    each date not yet past keeps its pair in order (the engine's floats, order_key) at
    now and at the date. O(len(pair_dates)) priorities."""
    for jid, h in engine.pair_dates.items():
        a, b, d = h[:3]
        assert a.id == jid and a is not b, jid
        for at in {now, d} if d >= now else ():
            pa, pb = engine.serv_priorities([a, b], at, {}, {})
            assert order_key(a, pa) < order_key(b, pb), (jid, b.id, at, d)


def extend(engine, t: int, last: tuple | None, added: list, now: int, queue_time) -> int:
    """The date of an order ranked up to `t` (-1: not dated) with the entries `added`
    (job, request, priority at now), ranked after it and among themselves, put at its end
    (`last`: its last job and priority at now; None when it is empty). O(len(added))."""
    if t < now or not added:
        return t
    jobs = ([last[0]] if last else []) + [e[0] for e in added]
    ps = ([last[1]] if last else []) + [e[2] for e in added]
    return min(t, until(engine, jobs, ps, now, queue_time))


def moving(engine, job, p: float) -> tuple:
    """(job, p, S, wc, d, q0, |slope| bound, slope) of a job. O(1)."""
    wq, wx, cw, _xm = engine.xf_terms
    _j, s, wc, d = engine.xf_const(job)
    return (job, p, s, wc, d, job.submit_time, abs(cw) * (abs(wq) / 60.0 + abs(wx) / d),
            cw * (wq / 60.0 + wx / d))


def pair_date(a: tuple, b: tuple, now: int) -> int:
    """The last instant up to which a stays before b (a before b at now). O(1)."""
    if a[2:6] == b[2:6]:
        return now + HORIZON        # the same floats at every instant: the tie stays
    gap = a[1] - b[1]
    reach = now + HORIZON - min(a[5], b[5]) + max(a[3], b[3])
    m = REL * (abs(a[2]) + abs(b[2]) + (a[6] + b[6]) * reach + 1.0)
    if not gap > m:
        return now
    closing = b[7] - a[7] + REL * (a[6] + b[6])
    if closing <= 0:
        return now + HORIZON
    return now + min(HORIZON, int((gap - m) / closing))
