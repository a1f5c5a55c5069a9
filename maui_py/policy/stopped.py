"""Which jobs of an order a throttling limit stops now, found per limit plan, not per job.

Within a cycle the active usage only grows (Usage.add, non-negative amounts; nothing is
taken out until the next cycle's usage), so a job whose limit plan a limit of some level
stops now is stopped at that level wherever a pass of this cycle asks it later. A deep
queue held by one limit (QOS MAXJOB) shares one plan (Limits.active_plan interns them):
the plans are looked up in C over the order (Limits.plan_of, by Job object, so a job
whose kept plan is another object's is not found and is asked as before), and each
distinct plan asked once, of its first job (Limits.active_violation: one walk per plan
and usage). Used by policy/priority_pass.pre_blocked and policy/backfill's FIRSTFIT
passes under limits. O(jobs) in C plus O(distinct plans).
"""

from __future__ import annotations

from operator import itemgetter

_JOB = itemgetter(0)


def stopped(c, jobs: list, level) -> tuple[list[bool], list[int]] | None:
    """(mask, plan ids): mask[i] when a limit of `level` stops jobs[i] now (its Job object
    holds a kept plan whose verdict is a violation); plan ids as id() of each job's kept
    plan (id(None) for none). None when no job is stopped. O(len(jobs)) in C plus one
    verdict per distinct plan."""
    lim, usage = c.limits, c.usage
    plans = list(map(lim.plan_of.get, map(id, jobs)))
    pids = list(map(id, plans))
    by_pid = dict(zip(pids, plans))
    firsts = dict(zip(reversed(pids), reversed(jobs)))      # each plan's first job
    out = {p for p, plan in by_pid.items() if plan and lim.active_violation(firsts[p], usage, level)}
    if not out:
        return None
    mask = list(map(out.__contains__, pids))
    return mask, pids


def verdicts(c, jobs: list, pids: list, level) -> set[int]:
    """The plan ids among `pids` (stopped()'s, of `jobs`) that a limit of `level` stops
    now, each asked of its first job. O(len(jobs)) in C plus one verdict per plan."""
    lim, usage = c.limits, c.usage
    firsts = dict(zip(reversed(pids), reversed(jobs)))
    plan_of = lim.plan_of
    return {p for p, j in firsts.items()
            if plan_of.get(id(j)) and lim.active_violation(j, usage, level)}
