"""The queue edits the cycle-cache property tests share (selection cache, eligibility cache,
first-cycle selection): a step of a random scenario applied to the jobs the resource manager
reports, before both sides of a comparison run their cycle on the same snapshot."""

from __future__ import annotations

from dataclasses import replace

from maui_py.model import HoldType, JobState


def queue_of(jobs: dict, pick: int) -> tuple[list[str], list[str], str | None]:
    """(queued ids, running ids, the queued job `pick` points at or None), ids sorted."""
    queued = sorted(j for j, job in jobs.items() if job.state is JobState.IDLE)
    running = sorted(j for j, job in jobs.items() if job.state is JobState.RUNNING)
    return queued, running, queued[pick % len(queued)] if queued else None


def edit_queue(jobs: dict, kind: str, pick: int) -> bool:
    """Apply one of the shared edits: `end` (a running job leaves), `hold` (a user hold),
    `release` (every queued job's holds and dependencies cleared), `depend` (an unmet
    dependency), `copy` (an equal job in a new object), `change` (a longer wallclock).
    False when `kind` is none of them or has nothing to act on: the caller's own kinds."""
    queued, running, one = queue_of(jobs, pick)
    if kind == "end" and running:
        del jobs[running[pick % len(running)]]
    elif kind == "hold" and one:
        jobs[one] = replace(jobs[one], holds=frozenset({HoldType.USER}))
    elif kind == "release":
        for j in queued:
            jobs[j] = replace(jobs[j], holds=frozenset(), depends_satisfied=True)
    elif kind == "depend" and one:
        jobs[one] = replace(jobs[one], depends_satisfied=False)
    elif kind == "copy" and one:
        jobs[one] = replace(jobs[one])
    elif kind == "change" and one:
        jobs[one] = replace(jobs[one], wallclock=jobs[one].wallclock + 60)
    else:
        return False
    return True
