"""The snapshot's jobs split as a cycle needs them (running, queued, by id), kept from one
snapshot to the next, and what moved in the running set since.

A full cycle used to walk every job of the snapshot to split it, and fair share
(FairShare.charge) and the active-job limits (ActiveUsage.usage) each walked every running
job again to find the few that started or ended: three walks of the running jobs per
cycle, the largest part of a fair-share cycle on a cluster running thousands of jobs. When
the adapter sends a SnapshotDelta following the snapshot the sets were made from, the jobs
it does not name are the very objects of that snapshot, in the same places: the sets are
brought forward from the delta alone, and the `Moves` handed to charge and usage name
exactly the running jobs that joined, changed or left.

Invariant (JobSets.check, tests/property/test_eligibility_cache.py): `running`, `queued`
and `by_id` are what the full split of the snapshot gives, `queued` in snapshot order.
Cost: O(changes) in Python, plus copying `by_id` and listing `running` in C; the full split
(no delta, a stale one, a node change, a job id twice) O(jobs).

The queued jobs' delta (DELTA): the sets also keep `queued` keyed by id (`keyed`, in
snapshot order) and the id() of every queued job (`ids`), brought forward by the same
changes, so that the list is made anew in C rather than filtered job by job, and they say
how the last forward moved the queue (`prev`, `out`, `added`, `replaced`): the fair-share
selection (core/selection._reuse) then finds which queued jobs it has not met from these
instead of walking the queue. Invariant (check): keyed == {j.id: j for j in queued} in
that order and ids == {id(j) for j in queued}.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import count

from ..model import ClusterSnapshot, Job, JobState

_IDLE, _COMPLETED, _REMOVED = JobState.IDLE, JobState.COMPLETED, JobState.REMOVED
_RUNNING, _STARTING, _SUSPENDED = JobState.RUNNING, JobState.STARTING, JobState.SUSPENDED
DELTA = True
"""Keep the queued jobs keyed by id and their id() set, and say how each forward moved the
queue (JobSets.prev, out, added, replaced); False: the queue filtered job by job and no
delta (prev 0), the definition tests/property/test_fs55_queue_delta.py compares against."""

_TOKENS = count(1)
"""Tokens naming one state of the running set, unique in the process: a structure synced
to one (FairShare, ActiveUsage) is never taken for synced to a set rebuilt since."""


@dataclass(frozen=True, slots=True)
class Moves:
    """How the running set with token `cur` differs from the one with token `prev`: the
    jobs running now that were not running then or are other objects (`jobs`), and the
    ids that were running then and are not now (`left`). A structure that last synced to
    `prev` syncs to `cur` from these alone; prev 0 (no token has it): a set made by the
    full split, to be walked in full once."""

    prev: int
    cur: int
    jobs: tuple[Job, ...]
    left: frozenset[str]


@dataclass(slots=True)
class JobSets:
    """One snapshot's jobs, split: see the module docstring."""

    seq: int
    token: int
    by_id: dict[str, Job]
    """Every job not finished, by id. Brought forward in place, so a cycle never changes
    it (Cycle.run copies it before a setspri or runjob override)."""
    running: dict[str, Job]
    queued: list[Job]
    """Not active and not finished, in snapshot order."""
    walked: int = 0
    """How many jobs the split examined one by one (the full split: all of them)."""
    keyed: dict | None = None
    """DELTA: `queued` by job id, in the same order; None without DELTA."""
    ids: set | None = None
    """DELTA: id() of every job of `queued` (never to be changed by a reader)."""
    prev: int = 0
    """The token before the last forward (0: made by the full split, or without DELTA)."""
    out: set | None = None
    """id() of the Job objects that left `queued` at the last forward (gone or replaced)."""
    added: int = 0
    """How many jobs the last forward appended to `queued` (its last `added` jobs)."""
    replaced: bool = False
    """The last forward put another Job object in a place of `queued`."""

    def check(self, snap: ClusterSnapshot) -> None:
        """Raise AssertionError unless the sets are the full split of `snap`, and the
        queue's keys and ids those of `queued`."""
        running, queued, by_id = _split(snap.jobs)
        assert self.running == {j.id: j for j in running}
        assert [id(j) for j in self.queued] == [id(j) for j in queued]
        assert self.by_id == by_id and all(self.by_id[k] is j for k, j in by_id.items())
        if self.keyed is not None:
            assert list(self.keyed) == [j.id for j in self.queued]
            assert all(a is b for a, b in zip(self.keyed.values(), self.queued))
            assert self.ids == {id(j) for j in self.queued}


def _split(jobs) -> tuple[list[Job], list[Job], dict[str, Job]]:
    """(running, queued, by_id) of a job list, in its order, finished jobs left out."""
    running: list[Job] = []
    queued: list[Job] = []
    by_id: dict[str, Job] = {}
    for j in jobs:
        s = j.state
        if s is _IDLE:
            queued.append(j)
        elif s is _COMPLETED or s is _REMOVED:
            continue
        elif s is _RUNNING or s is _STARTING or s is _SUSPENDED:
            running.append(j)
        else:
            queued.append(j)
        by_id[j.id] = j
    return running, queued, by_id


def split(snap: ClusterSnapshot, last: JobSets | None
          ) -> tuple[list[Job], list[Job], dict[str, Job], JobSets | None, Moves | None]:
    """(running, queued, by_id, the sets to keep for the next snapshot, the moves since
    `last`): brought forward from `last` by the snapshot's delta when it follows `last`'s
    snapshot, else the full split (moves from no token; None when no sets are kept).
    O(changes), or O(jobs)."""
    got = _forward(snap, last) if last is not None else None
    if got is not None:
        sets, moves = got
        return list(sets.running.values()), sets.queued, sets.by_id, sets, moves
    running, queued, by_id = _split(snap.jobs)
    if len(by_id) != len(running) + len(queued):
        return running, queued, by_id, None, None          # a job id twice: no sets kept
    sets = JobSets(snap.seq, next(_TOKENS), by_id, {j.id: j for j in running}, queued,
                   len(snap.jobs))
    if DELTA:
        sets.keyed, sets.ids = {j.id: j for j in queued}, set(map(id, queued))
    return running, queued, by_id, sets, Moves(0, sets.token, (), frozenset())


def _forward(snap: ClusterSnapshot, last: JobSets) -> tuple[JobSets, Moves] | None:
    """`last` brought forward in place by snap.delta, or None (`last` untouched) when the
    delta does not follow it or names a change the sets cannot place: a job that arrived
    not at the snapshot's end, one queued now that was running, or a job new to the sets
    that is not listed as arrived. O(changes + queued)."""
    d = snap.delta
    if d is None or d.prev_seq != last.seq:
        return None
    arrived = d.arrived
    jobs = snap.jobs
    if arrived and [j.id for j in jobs[len(jobs) - len(arrived):]] != list(arrived):
        return None
    by_id, running = last.by_id, last.running
    new = set(arrived)
    for jid, job in d.jobs.items():
        s = job.state
        if (jid not in by_id and jid not in new
                or jid in running and s is not _RUNNING and s is not _STARTING
                and s is not _SUSPENDED and s is not _COMPLETED and s is not _REMOVED):
            return None                 # unknown, or back in the queue: its place is not known
    gone: set[str] = set()
    left: set[str] = set()
    moved: list[Job] = []
    replaced: dict[str, Job] = {}
    added: list[Job] = []
    for jid in d.ended:
        if by_id.pop(jid, None) is not None:
            gone.add(jid)
        if running.pop(jid, None) is not None:
            left.add(jid)
    for jid, job in d.jobs.items():
        s = job.state
        was = by_id.get(jid)
        if s is _COMPLETED or s is _REMOVED:
            by_id.pop(jid, None)
            gone.add(jid)
            if running.pop(jid, None) is not None:
                left.add(jid)
            continue
        by_id[jid] = job
        if s is _RUNNING or s is _STARTING or s is _SUSPENDED:
            if running.get(jid) is not job:
                running[jid] = job
                moved.append(job)
            gone.add(jid)
        elif was is None:
            added.append(job)
        else:
            replaced[jid] = job
    if added:
        order = {jid: k for k, jid in enumerate(arrived)}
        added.sort(key=lambda j: order[j.id])
    prev = last.token
    if last.keyed is not None:
        queued = _moved(last, gone, replaced, added)
    else:
        last.prev = 0
        queued = last.queued
        if replaced:
            queued = [replaced.get(j.id, j) for j in queued if j.id not in gone]
        elif gone:                      # the same list without a look-up per job
            queued = [j for j in queued if j.id not in gone]
        if added:
            queued = queued + added
    last.seq, last.token, last.queued = snap.seq, next(_TOKENS), queued
    last.walked = len(d.ended) + len(d.jobs)
    return last, Moves(prev, last.token, tuple(moved), frozenset(left))


def _moved(last: JobSets, gone: set, replaced: dict, added: list) -> list:
    """`last.queued` less the ids `gone`, with the `replaced` jobs in their places and
    `added` appended: the keyed queue and its ids brought forward and the move recorded
    (prev, out, added, replaced), the list made from the keys (in C). O(changes), plus
    the list when anything moved."""
    keyed, ids = last.keyed, last.ids
    out: set = set()
    last.prev, last.out, last.added, last.replaced = last.token, out, len(added), False
    for jid in gone:
        j = keyed.pop(jid, None)
        if j is not None:
            out.add(id(j))
    for jid, job in replaced.items():
        old = keyed.get(jid)
        if old is not None and old is not job:
            keyed[jid] = job
            out.add(id(old))
            ids.add(id(job))
            last.replaced = True
    ids.difference_update(out)
    for job in added:
        keyed[job.id] = job
        ids.add(id(job))
    if not (out or added):
        return last.queued
    return list(keyed.values())
