"""Quiet cycles under HIGHEST on the node table resume the last priority pass
(core/changes.run, issue 33).

A cycle from what changed is quiet when nothing ended or came free since the last cycle,
no change point of the planner passed, and only jobs arrived: every job already queued
fares as it did (changes.py's argument), except that under HIGHEST a full cycle first walks
the kept reservations (policy/kept.reserved_jobs). That walk is skipped when
kept.Stamps.quiet answers yes, and quiet() answers from its index (policy/keptindex.Quiet)
when the index's last yes is for the planner's epoch now, the stamps' floor is that epoch,
the usable nodes are the same, none is overcommitted, the earliest kept start lies after
now, no predictions, and the reservations' ids, jobs and compiled requests are the ones it
verified, looked up at their places in the order. Here the kept reservations head the
order, in the dictionary's order (changes.remember keeps a cache only then), so comparing
the order's first len(reservations) entries with the index's lists is the same test
without building the places' map: when it holds, the full cycle's R would change nothing
but operation counts (the walk skipped, the floor already the epoch, nothing dropped:
every reserved job is in the order), the planner's epoch is the one the last pass ended
at, and the priority pass and backfill over the jobs already queued would do what they
did then. So the pass resumes at the first new job (core/passes.Resume) from the state
the last pass ended in, whose counts hold the same reservations. Exact; anything else runs
the passes in full, as before.

Switch QUIET_HIGHEST; tests/property/test_quiet_highest.py compares on against off.
Cost: O(R) in C (the ids, jobs and requests compared), instead of R's places map, the
index's lookups, the priority pass's count of the reserved head and backfill's set of the
whole order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..planning import memo
from ..policy import kept, keptindex

if TYPE_CHECKING:
    from .context import CycleContext as Cycle

QUIET_HIGHEST = True
"""A quiet cycle under HIGHEST on the node table whose kept reservations the index shows
left in place resumes the last priority pass (left_in_place); False: its passes run in full
(the definition tests/property/test_quiet_highest.py compares against)."""



def left_in_place(c: Cycle, cache, order: list) -> bool:
    """For a quiet cycle (changes.run: nothing ended, freed or passed since `cache` was
    left) under HIGHEST on the node table, with kept reservations: would the full cycle's
    kept pass leave every one as it is without a walk (Stamps.quiet answering from its
    index)? If so, do the pass's bookkeeping as it would (its counts; under keptindex.CHECK
    the pass's own quiet(), which checks the index's yes against its loop) and say True:
    the priority pass may resume. Else False, nothing touched. O(R) in C."""
    if not (QUIET_HIGHEST and kept.QUIET and keptindex.QUIET_INDEX):
        return False
    st, table = c.state, c.table
    stamps, res = st.caches.kept_stamps, st.reservations
    if stamps is None or stamps.table is not table:
        return False
    e, q, n = memo.epoch(table), stamps.index, len(res)
    if (e != cache.epoch or len(order) < n or not q.current(c, e, stamps.floor)
            or stamps.settled(c) is None or not q.same_entries(order[:n])):
        return False
    if keptindex.CHECK:                 # the pass's own question, its loop asked too
        assert stamps.quiet(c, order, dict(zip(q.ids, range(n)))), "quietkept: not quiet"
    else:                               # what quiet() counts when the index answers
        q.hits += 1
        stamps.counted_quiet(e, n)
    stamps.prune(res)
    return True
