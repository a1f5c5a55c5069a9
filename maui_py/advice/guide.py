"""Cheap guesses for the exact search: planner questions on the table the cycle at `now`
left (its running jobs and the reservations it holds), the job's own reservation left out,
as showstart asks them (Planner.earliest_start with `until`).

A guess only saves exact questions (advice/search.py): a wrong one costs questions, never
a promise. Each answer is O(one earliest-start scan); a bisection over a job's walltime or
size asks O(log value) of them. A planner that cannot answer (planning/api.Unsupported)
gives no guess.
"""

from __future__ import annotations

from typing import Callable

from ..model import Job
from ..planning import owners
from ..planning.api import Planner, Unsupported
from .search import largest


class Guide:
    """Planner questions about changed versions of one job at `now`."""

    def __init__(self, table: Planner | None, now: int, policy, job_id: str,
                 ignore: tuple[str, ...] = ()):
        self.table, self.now, self.policy = table, now, policy
        self.ignore = ignore + (owners.priority(job_id),)
        self.asked = 0

    def earliest(self, job: Job, until: int | None = None, ignore: tuple[str, ...] = ()) -> int | None:
        """The earliest start of `job` on the table (None: never, or not by `until`)."""
        if self.table is None:
            return None
        self.asked += 1
        try:
            p = self.table.earliest_start(job.request, job.wallclock, self.now, policy=self.policy,
                                          until=until, ignore=self.ignore + ignore,
                                          job_class=job.class_)
        except (Unsupported, ValueError):
            return None
        return p.start if p else None

    def boundary(self, make: Callable[[int], Job], lo: int, hi: int, by: int) -> int | None:
        """The largest v in [lo, hi] whose job the table starts by `by` (it only grows as v
        shrinks: less time or fewer tasks fit wherever more do), None when lo does not."""
        def fits(v: int) -> bool:
            s = self.earliest(make(v), until=by)
            return s is not None and s <= by
        return largest(fits, lo, hi)        # no guess: fits(lo), then a bisection
