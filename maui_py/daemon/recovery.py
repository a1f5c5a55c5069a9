"""Keeping the saved pending starts true to what the resource manager reports.

A start stays pending until the resource manager shows the job RUNNING (keep_starting),
and a restarted daemon first checks the pending starts it inherits (reconcile).

Reconcile, before the first cycle after a restart:

The store holds the starts the last committed cycle decided (state.pending), journaled
and saved BEFORE they were pushed. If the daemon died after that commit, each of them was
pushed or not; only the resource manager knows. So the first snapshot decides:
  * the job is running (or starting) -> it was pushed; the cycle confirms it as usual;
  * the job has left the queue -> the cycle forgets it as usual;
  * the job is still idle -> maybe never pushed: the pending start is dropped without
    counting a failed start (no defer for a start that perhaps never reached the resource
    manager), journaled as start-unconfirmed, and the job is scheduled again.
A job can therefore never be started twice by a restart: a start is only re-decided for a
job the resource manager reports idle. The price of the doubt is that a start Slurm
refused just before the crash is not counted towards DEFERSTARTCOUNT.
"""

from __future__ import annotations

from ..core.state import SchedulerState
from ..model import ClusterSnapshot, JobState
from ..store.journal import START_UNCONFIRMED, JournalEntry


def reconcile(state: SchedulerState, snapshot: ClusterSnapshot) -> list[JournalEntry]:
    """Drop the pending starts of jobs the snapshot shows idle. O(pending + jobs)."""
    jobs = {j.id: j for j in snapshot.jobs}
    out = []
    for jid, p in list(state.pending.items()):
        job = jobs.get(jid)
        if job is None or job.state.active or job.state.finished:
            continue
        del state.pending[jid]
        state.failed.pop(jid, None)
        out.append(JournalEntry(START_UNCONFIRMED, jid,
                                "mauid restarted before it saw this start carried out; the job is "
                                "idle, so it is scheduled again", {"nodes": [n for n, _ in p.allocation]}))
    return out


def keep_starting(before_pending: dict, state: SchedulerState, snapshot: ClusterSnapshot) -> list[str]:
    """After a cycle: starts the resource manager accepted but does not run yet (STARTING:
    with Slurm, released and waiting for its scheduler pass) stay pending, so that the
    next cycle settles them again. The cycle counts a job in state.pending as started once
    it is active; a STARTING job can still turn idle (Slurm finds its pinned node drained:
    ReqNodeNotAvail), and that is a failed start (DEFERSTARTCOUNT, defer), not a new idle
    job. Returns the job ids kept. O(pending)."""
    jobs = {j.id: j for j in snapshot.jobs}
    kept = []
    for jid, p in before_pending.items():
        job = jobs.get(jid)
        if job is not None and job.state is JobState.STARTING and jid not in state.pending:
            state.pending[jid] = p
            kept.append(jid)
    return kept
