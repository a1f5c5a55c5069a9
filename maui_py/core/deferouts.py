"""Defers that run out, in a cycle from what changed (core/changes.py).

A full cycle releases every defer record that runs out by now (policy/deferral
.release_defers: its `until` back to 0, the job's queue time restarted, a ReleaseHold
decision) and then examines the released queued jobs again, with the others its selection
cache does not hold, through Cycle.select in snapshot order. A job deferred for what it is
(over a system limit, a request the nodes can never hold; or, by now, held or waiting on a
dependency) is deferred or held again there and never enters the order. Each such expiry
used to cost a full cycle: conservative.cfg's SYSTEMMAXPROCPERJOB defers every job of more
than 512 processors seven times, 11 % of the cycles of the site benchmark's month.

A cycle from what changed now takes them (RELEASES): when every queued job whose record
runs out is one select() leaves out of the order (`left_out`, read-only, asked before
anything changes), it releases the same records with the same function after the same
steps (_forget of the ended, settle_starts), then hands the released queued jobs, in
snapshot order, and the arrivals (at the snapshot's end, after them) to Cycle.select: the
Defer and Hold decisions and the state they write (defer counts, batch holds, queue
times) are the full cycle's, in its order. Exact: the full cycle's order is then the kept
order with the arrivals (changes.py's argument, none of the released jobs joining it), and
the released jobs' new queue times are of jobs outside the order, so keptorder.QT_CARRIED's
fact ("no job of the order has a restart") still holds; a released record of a running job
is released and its job not examined, in both. A job select() would admit makes the cycle
run in full, as before.

The jobs' objects: the delta names only the jobs that arrived, started or ended, so the
cache carries the object of every job whose defer record still runs (`held`; the
snapshot's object, since no delta the chain of caches accepted named it changed), taken
from the full cycle's jobs or brought forward from the last cache and the cycle's own
Defer decisions. Cost: O(records) once per expiry (the walk release_defers makes anyway),
O(running defers + decisions) per cycle for `held`, against a full cycle's O(jobs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model import Defer, Job
from ..planning.api import NoPlacement

if TYPE_CHECKING:
    from .context import CycleContext as Cycle

RELEASES = True
"""A cycle from what changed releases the defers that run out by now when each released
queued job is left out of the order again; False: such a cycle runs in full, the definition
tests/property/test_defer_outs.py compares against."""


HELD_ONLY = True
"""released() walks the cache's `held` (the jobs whose record ran at the last cycle's end)
instead of every defer record: a record runs out by now only if it ran then (between
cycles nothing sets an `until`; the daemon's handlers only drop records), and check()
holds `held` to exactly those. The walk's order does not matter: two or more released jobs
are sorted by their place in the snapshot. False: every record (the definition
tests/property/test_defer_outs.py compares against)."""


def held(c: Cycle, last) -> dict[str, Job] | None:
    """job id -> the snapshot's object of every job whose defer record still runs
    (0 < until) after cycle `c`, or None when one is not known. A full cycle (`last`
    None) reads its jobs (c.by_id: all of them); a cycle from what changed brings `last`'s
    map forward: the records still running, the jobs this cycle deferred (arrivals or
    released ones), each by the delta's object when it names one. O(records) for a full
    cycle, else O(len(last's map) + decisions)."""
    deferred, by_id = c.state.deferred, c.by_id
    if last is None:
        out = {}
        for jid, rec in deferred.items():
            if rec.until > 0:
                job = by_id.get(jid)
                if job is None:
                    return None
                out[jid] = job
        return out
    prev = last.held
    if prev is None:
        return None
    out = {}
    for jid, job in prev.items():
        rec = deferred.get(jid)
        if rec is not None and rec.until > 0:
            out[jid] = by_id.get(jid, job)
    for d in c.decisions:
        if type(d) is Defer and (rec := deferred.get(d.job_id)) is not None and rec.until > 0:
            job = by_id.get(d.job_id) or prev.get(d.job_id)
            if job is None:
                return None
            out[d.job_id] = job
    return out


def released(c: Cycle, cache, new: list[Job]) -> list[Job] | None:
    """The queued jobs whose defer record runs out by now, in snapshot order, when each
    is one select() leaves out of the order and the arrivals `new` stand after them in
    the snapshot; else None (run in full). Reads, changes nothing. O(held) (HELD_ONLY;
    else O(records)), plus O(jobs) in C to place two or more released jobs."""
    if not RELEASES or cache.held is None:
        return None
    st, now, d = c.state, c.now, c.snap.delta
    jobs, ended, deferred = d.jobs, d.ended, st.deferred
    out = []
    for jid, kept in cache.held.items() if HELD_ONLY else deferred.items():
        rec = deferred.get(jid) if HELD_ONLY else kept
        if rec is not None and 0 < rec.until <= now and jid not in ended:   # an ended
            job = jobs.get(jid) or cache.held.get(jid)      # job's record goes first
            if job is None:
                return None
            if not job.state.active:
                if job.state.finished or not left_out(c, job):
                    return None
                out.append(job)
    if len(out) > 1:
        ids = list(map(id, c.snap.jobs))
        out.sort(key=lambda j: ids.index(id(j)))
    if out and new:
        tail = c.snap.jobs[len(c.snap.jobs) - len(new):]
        if any(a is not b for a, b in zip(tail, new)):
            return None
    return out


def left_out(c: Cycle, job: Job) -> bool:
    """Would Cycle.select leave `job` (queued, no defer running) out of the order? A hold,
    a batch hold, a dependency not satisfied, a system limit (deferred or held again) or
    a request the nodes can never hold (deferred; blocked while a node's state is unknown)
    under the queue policy changes.applies() allows (MAUI: no caps asked). The compiled
    request is the cache's when select() would take it. O(1) with the compile cache."""
    st = c.state
    if job.holds or job.id in st.batch_holds or not job.depends_satisfied:
        return True
    hit = st.caches.compiled.get(job.id)
    if hit is not None and hit[0] is job and hit[1] is c.table and hit[3] is c.cfg:
        return bool(hit[4]) or isinstance(hit[2], NoPlacement)
    if c.limits.system_violation(job):
        return True
    return isinstance(c.table.compile(job.request, job.class_), NoPlacement)


def check(cache, state, jobs: dict[str, Job]) -> None:
    """The cache's `held` names exactly the jobs with a running defer record, each by its
    object in `jobs` (the resource manager's live jobs). O(records)."""
    if cache is None or cache.held is None:
        return
    running = {jid for jid, rec in state.deferred.items() if rec.until > 0}
    assert set(cache.held) == running, (set(cache.held), running)
    for jid, job in cache.held.items():
        assert jobs.get(jid) is job, jid
