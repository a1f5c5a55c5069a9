"""Quiet cycles answered from what changed (issue 33): policy/kept.Stamps.quiet without its
pass over every kept reservation.

quiet() asks, per kept reservation, a predicate of: its stamp (request, span), its start,
its retry hold, its job and compiled request now, its hold (there, its node mask), and
of the planner's epoch, floor, usable nodes and overcommitted nodes. Once it has answered
yes at epoch e (every reservation passed), or HIGHEST's walk reached its fixed point at e
(`Quiet.walked`: the same yes, see there), the index keeps that answer (`Quiet.verified`):
the ids in the dictionary's order, their jobs and requests, the earliest start. At a later
cycle with the floor still e (nothing given back since: every release moves `freed`, and
so does a forced hold), the same usable nodes and none overcommitted, every input of the
predicate is unchanged for the verified ones, except:
- a reservation made since (the priority pass, stamped as made at e, its hold just made,
  its start after now): added by the hook `placed` (one made at another epoch drops the
  kept answer);
- a stamp rewritten by a walk with another request or span (hook `restamped`: dropped);
- the job's entry in the order (another job object or compiled request): compared, in C,
  list against list;
- the earliest start passing now: the kept minimum (a start moves only with a release or a
  forced hold, which moves the epoch) is compared with now;
- a reservation gone or added elsewhere (a retry hold, policy/deferral.py): the ids are
  compared, in C, with the dictionary's;
- the floor: the loop reads a stamp older than e as e only while the floor is e.
A hold cannot go or move without a release or a forced hold, so its presence and nodes are
those verified. So when all those checks pass, quiet()'s loop would answer yes again
(exact). `QUIET_INDEX` off: the loop every time, the definition
tests/property/test_kept_index.py compares against; `CHECK` on: every answer from the
index is checked against the loop (`check`). Cost: a few C passes over the ids per quiet
cycle, O(1) per hook, instead of the loop's Python pass over every reservation.
"""

from __future__ import annotations

from operator import attrgetter, itemgetter

QUIET_INDEX = True
"""Answer Stamps.quiet from the kept answer when nothing it reads changed; False: its loop
every time (the definition)."""

CHECK = False
"""Check every answer the index gives against quiet()'s loop (the property tests)."""

_START, _JOB, _CR = attrgetter("start"), itemgetter(0), itemgetter(1)


class Quiet:
    """The last yes quiet()'s loop gave, kept while nothing it read changed (see the
    module docstring)."""

    __slots__ = ("e", "usable", "ids", "jobs", "crs", "low", "hits")

    def __init__(self):
        self.e: int | None = None
        """The epoch the kept answer is for; None: none kept."""
        self.usable = 0
        self.ids: list[str] = []
        self.jobs: list = []
        self.crs: list = []
        self.low = 0
        """The earliest start among the verified and placed reservations."""
        self.hits = 0
        """Quiet cycles answered from the index (operation count)."""

    def verified(self, e: int, table, res, order, index: dict[str, int]) -> None:
        """quiet()'s loop answered yes at epoch e: keep it. O(R), in C."""
        ids = list(res)
        ents = list(map(order.__getitem__, map(index.__getitem__, ids)))
        self.e, self.usable, self.ids = e, table.usable, ids
        self.jobs, self.crs = list(map(_JOB, ents)), list(map(_CR, ents))
        self.low = min(map(_START, res.values()), default=1 << 62)

    def walked(self, c, order, index: dict[str, int], e: int) -> None:
        """HIGHEST's walk reached its fixed point at epoch e with settled() applying (the
        floor is e): quiet()'s loop would now answer yes but for a start by now, which
        `answer` compares, so keep that answer. Each reservation left is stamped (at e, or
        one the walk passed over with the stamp first() found for its job's request and
        span), with its hold there (made again by _slide, or one first() found), and no
        retry hold is active (the walk would not be fixed). A hold first() passed over or
        _slide kept may sit on an unusable node or over capacity: kept only when every
        node is usable and none is overcommitted. O(R), in C."""
        table = c.table
        if (table.overcommitted or table.usable != getattr(table, "all_mask", None)
                or c.settings.predicting.on):
            self.e = None
            return
        self.verified(e, table, c.state.reservations, order, index)

    def lost(self) -> None:
        """Something the kept answer read changed in a way no hook follows: drop it."""
        self.e = None

    def placed(self, e: int, jid: str, job, cr, start: int) -> None:
        """The priority pass made and stamped a reservation at epoch e (policy/kept.placed):
        it joins the kept answer when that is for e (it passes the predicate: stamped at e
        for its job's request and span, held, its start after now, no retry hold, on the
        nodes the table chose, usable ones), else the answer is dropped. O(1)."""
        if self.e is None:
            return
        if e != self.e:
            self.e = None
            return
        self.ids.append(jid)
        self.jobs.append(job)
        self.crs.append(cr)
        if start < self.low:
            self.low = start

    def answer(self, c, order, index: dict[str, int], e: int, floor: int | None) -> bool:
        """True when the kept answer holds now (quiet() would answer yes: see the module
        docstring); False: not known, ask the loop. O(R) in C."""
        if not (QUIET_INDEX and self.current(c, e, floor)):
            return False
        if not self.same_entries(list(map(order.__getitem__, map(index.__getitem__, self.ids)))):
            return False
        self.hits += 1
        return True

    def current(self, c, e: int, floor: int | None) -> bool:
        """The kept answer's conditions but the order's entries: kept for epoch e, the
        floor e, the same usable nodes and none overcommitted, no start by now, no
        predictions, the reservations' ids those verified (in the dictionary's order).
        O(R) in C."""
        table, res = c.table, c.state.reservations
        return (self.e == e and floor == e and table.usable == self.usable
                and not table.overcommitted and self.low > c.now
                and not c.settings.predicting.on and len(res) == len(self.ids)
                and list(res) == self.ids)

    def same_entries(self, ents: list) -> bool:
        """The rest: `ents`, the order's entries of the verified ids in their order, hold
        the jobs and compiled requests verified. O(R) in C."""
        return list(map(_CR, ents)) == self.crs and list(map(_JOB, ents)) == self.jobs
