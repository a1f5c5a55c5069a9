"""A quiet cycle whose kept order only swapped neighbours behind the pass's stop resumes
(issue 33: config/easy.cfg's deep-queue stretch).

Under QUEUETIME + XFACTOR priorities the kinetic list (priority/kinlist.py) swaps crossed
neighbours of a deep queue at most cycles; core/keptorder.order_now then makes a quiet
cycle (nothing ended, came free or passed a change point, core/changes._usable) run its
passes in full, backfill asking the whole queue again, though the swaps were far behind
the jobs the priority pass reads.

**Invariant** (SWAP_RESUME on): a quiet cycle from what changed whose order was settled by
swaps alone (kinlist.SWAPPED: the kept jobs permuted, the arrivals after them) decides
what a full cycle over that order decides when the last priority pass ended for good
(`broke`) at the depth's limit at a job b (priority_pass names b in its stop reason:
"RESERVATIONDEPTH[g] d reached at job b") and the kept order up to b is the same jobs in
the same places. Why: a full pass over the new order reads the same jobs up to b, in the
same state, as one over the kept order, so it starts, reserves and stops as that one,
which a resumed pass is (core/changes, tests/property/test_incremental_cycle.py); in
backfill every kept job fails to start now in any order: it failed against at least
what is free now (a quiet cycle's resources only shrank, its reservations are the same)
and a start-now answer depends only on the table (the memos only repeat answers), so
each meets the table as it is now, and the arrivals, after them in both orders, meet it
as the resumed backfill does, at the same positions; bypass counts are worked out over
the one order both give to finish. The passes in full over a reordered queue re-make
the reservations (policy/kept.py: the node table's inplace.left re-stamps those it
leaves, KeptReservation.made_at, and the priority pass makes the others anew), so the
resumed cycle does as a quiet one whose reservations were touched does
(core/changes._placed_again: `kept` clears ChangeCache.untouched of the cache the cycle
took, which nothing reads after), and runs in full when one would land elsewhere. On
the node table only (the count planner keeps them as they are). No state of its own. Switch SWAP_RESUME;
tests/property/test_swap_resume.py replays on against off.
"""

from __future__ import annotations

from itertools import islice
from operator import is_, itemgetter

from ..priority import kinlist

SWAP_RESUME = True
"""Resume a quiet cycle whose order swapped only behind the pass's stop (resumes); False:
any reordered quiet cycle runs its passes in full (the definition
tests/property/test_swap_resume.py compares against)."""

_STOP = " reached at job "
"""What priority_pass's stop reason at the depth's limit puts before the job's id."""

_JOB = itemgetter(0)


def kept(c, cache, kept_order: tuple, quiet: bool) -> tuple:
    """keptorder.order_now's answer `kept_order` for core/changes.run, quiet again when
    the cycle was `quiet` before its order moved and `resumes` says it may resume."""
    fresh, static, reorder, now_quiet, dates = kept_order
    if now_quiet or not resumes(c, cache, fresh, reorder, quiet):
        return kept_order
    cache.untouched = False     # see the module's docstring: the reservations are re-made
    return fresh, static, reorder, True, dates


def resumes(c, cache, fresh: list, reorder, quiet: bool) -> bool:
    """May cycle `c` resume the last pass (cache.pass_end) over `fresh` (the kept order,
    settled: kinlist.SWAPPED) with its arrivals after it? `quiet`: the cycle was quiet
    before the order moved (core/changes._usable). Yes by the module's invariant: the
    last pass broke at the depth's limit at a job b of cache.order, and fresh holds the
    same jobs as cache.order up to b. The stop reason names the job the pass broke at
    only with one reservation group (RESERVATIONDEPTH[n] > 0 for one n): the first
    job stopped at a group's limit then fills every group, and the pass breaks there
    (with several, an earlier group's limit names its job and the pass goes on).
    O(place of b) in C."""
    if not (SWAP_RESUME and quiet and reorder is kinlist.SWAPPED) or cache.counts:
        return False
    if sum(d > 0 for d in c.groups.depth.values()) != 1:
        return False
    end = cache.pass_end
    if not end[4] or not end[3] or not end[3].startswith("RESERVATIONDEPTH["):
        return False
    _head, sep, jid = end[3].partition(_STOP)
    order = cache.order
    if not sep or len(fresh) != len(order):
        return False
    try:
        k = cache.ids.index(jid) + 1
    except ValueError:
        return False
    return all(map(is_, map(_JOB, islice(fresh, k)), map(_JOB, islice(order, k))))
