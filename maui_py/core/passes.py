"""The pass sequence of a cycle, written once for the full cycle and for a cycle from what
changed (core/changes.py).

R, the jobs holding a priority reservation from an earlier cycle (policy/kept.py); I, the
priority pass (policy/priority_pass.py); B, backfill (policy/backfill.py); then the cycle's
finish (bypass counts, reports, the Reserve decisions). A cycle that only added jobs behind
where the last priority pass stopped resumes there: R has nothing to redo, I and B start at
the first new job.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..policy import backfill, kept, priority_pass
from .finish import finish


@dataclass(frozen=True, slots=True)
class Resume:
    """Where the last cycle's priority pass stopped: the first job not looked at yet, and
    the pass's own state then (priority_pass.pass_end)."""

    first: int
    pass_end: tuple


def run_passes(c, order, running, *, resume: Resume | None = None, reuse=None,
               known=None) -> None:
    """Run R, I and B over `order` (eligible jobs in priority order) and finish the cycle
    `c`. `reuse`/`known`: the last cycle's Reserve decisions (finish.finish)."""
    c.in_passes = True
    if resume is None:
        kept.reserved_jobs(c, order)
        priority_pass.priority_pass(c, order)
        backfill.backfill(c, order)
    else:
        priority_pass.priority_pass(c, order, resume.first, resume.pass_end)
        backfill.backfill(c, order, resume.first)
    finish(c, order, running, reuse=reuse, known=known)
