"""Whether a queue-time restart touches the queued jobs (issue 33, cons37).

A cycle from what changed (core/changes.py) keeps the last order as fixed, (submit, id),
when priority is one slope in queue time from submission for every queued job. A restart
(JOBPRIOACCRUALPOLICY: the state's queue_time, set when a deferral is released or a job
held back) makes a job's queue time count from then; the entry stays until the job ends,
so under DEFERTIME the map keeps the entries of jobs long started (on the site's month
under config/conservative.cfg, every cycle had some, none of them a queued job's), and
each cycle then worked out every queued job's priority again. A job's priority reads its
own entry only (queue_time.get(job id)), so the entries of jobs not queued change no
queued job's priority and the order stays fixed: the question is whether any queued job
has one. Cost: O(queued) in C (a set difference over the ids).
"""

from __future__ import annotations

from operator import attrgetter, itemgetter

QUEUED_ONLY = True
"""Ask whether a queued job's queue time restarted; False: whether any job's did (an
entry of a running job counts), the definition tests/property/test_restarts.py compares
against."""

_ID, _JOB = attrgetter("id"), itemgetter(0)


def none_queued(queue_time: dict[str, int], *entries) -> bool:
    """No job of `entries` (lists of order entries: job, request, priority) has a
    queue-time restart; with QUEUED_ONLY off, no job at all has one. O(1) when none has;
    else O(len(entries)) in C."""
    if not queue_time:
        return True
    if not QUEUED_ONLY:
        return False
    return all(queue_time.keys().isdisjoint(map(_ID, map(_JOB, e))) for e in entries)


def none_arrived(queue_time: dict[str, int], jobs) -> bool:
    """none_queued for a list of jobs (arrivals). O(len(jobs)) in C."""
    if not queue_time:
        return True
    return QUEUED_ONLY and queue_time.keys().isdisjoint(map(_ID, jobs))
