"""The last committed cycle as Maui's commands present it.

Maui's server answered the commands from its own tables; maui-py's commands answer from
the store (the snapshot the last cycle saw, its reports, priorities, order and placed
reservations, and the scheduler state). This module turns that into Maui's notions:

- job lists (UIQueueShowAllJobs): ACTIVE (running, starting, suspended, and the jobs the
  last cycle started, shown Starting until the resource manager reports them), IDLE (the
  eligible queue in priority order, Maui's MUIQ), BLOCKED (every other waiting job);
- Maui's state names: a batch, system or user hold, then a defer, takes precedence over
  the raw state (BatchHold, SystemHold, UserHold, Deferred);
- reservations as showres lists them: every active job holds one over its run (Maui's
  J->R), a job with a priority reservation holds it, then the non-job ones;
- a reservation table rebuilt from all that (for showbf and showstart).

Cost: O(jobs + nodes + reservations); the table is built only when asked, O(holds).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

from ..cfg import SchedulerConfig
from ..core.result import JobReport
from ..core.state import SchedulerState
from ..model import Access, HoldType, Job, JobState, NodeState, Reservation, ReservationKind
from ..planning import owners
from ..planning.plancache import PlanCache
from ..planning.sync import build_table
from ..policy.prediction import planned_span
from ..model.report import ReportStatus
from ..planning.api import Planner
from ..store import LastCycle
from ..store.reader import ADMIN, PRIORITY, RM, STANDING

WAITING_BLOCKED = (ReportStatus.BLOCKED, ReportStatus.DEFERRED, ReportStatus.HELD)
"""Report statuses that keep a job out of the idle list (Maui: not in MUIQ)."""
UP_STATES = (NodeState.IDLE, NodeState.RUNNING, NodeState.BUSY, NodeState.DRAINING)


@dataclass(frozen=True)
class ResRow:
    """One reservation as showres, checkjob and diagnose -r show it."""

    name: str
    type: str                   # Maui's MResType: Job or User
    kind: str                   # maui-py's kind: Job, User, Standing, System
    state: str                  # S column: first letter of the job's state, '-' otherwise
    start: int
    end: int
    allocation: tuple[tuple[str, int, int], ...]
    """(node, procs, tasks) per node."""
    owner: str = ""
    job_id: str = ""
    acl: dict = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    whole_nodes: bool = False

    @property
    def nodes(self) -> int:
        return len(self.allocation)

    @property
    def procs(self) -> int:
        return sum(p for _n, p, _t in self.allocation)


def acl_dict(r: Reservation) -> dict[str, list[str]]:
    a = r.acl
    out = {"users": a.users, "groups": a.groups, "accounts": a.accounts, "classes": a.classes,
           "qos": a.qos, "jobs": a.jobs}
    return {k: sorted(v) for k, v in out.items() if v}


def tasks_of(job: Job, node_procs: int) -> int:
    per = job.request.per_task.procs
    return node_procs // per if per > 0 else 1


class View:
    """The last cycle (`last`), the state it left (`state`) and the configuration."""

    def __init__(self, last: LastCycle, cfg: SchedulerConfig, state: SchedulerState):
        self.last, self.cfg, self.state = last, cfg, state
        self.now = last.info.now
        self.snapshot = last.snapshot
        self.reports: dict[str, JobReport] = last.reports

    # -------------------------------------------------------------------- jobs
    def started(self, job_id: str) -> bool:
        rep = self.reports.get(job_id)
        return rep is not None and rep.status == ReportStatus.STARTED

    @cached_property
    def jobs(self) -> dict[str, Job]:
        """Every known job, those the last cycle started shown as Starting on their nodes."""
        out = {}
        for j in self.snapshot.jobs:
            if not j.state.active and self.started(j.id):
                p = self.state.pending.get(j.id)
                alloc = p.allocation if p is not None else j.allocation
                j = replace(j, state=JobState.STARTING, start_time=self.now, allocation=alloc)
            out[j.id] = j
        return out

    @cached_property
    def active(self) -> list[Job]:
        """Active jobs, earliest completion first (Maui's MAQ order)."""
        act = [j for j in self.jobs.values() if j.state.active]
        return sorted(act, key=lambda j: ((j.start_time or self.now) + j.wallclock, j.id))

    @cached_property
    def idle(self) -> list[Job]:
        """The eligible queue in priority order."""
        out = []
        for jid in self.last.order:
            j = self.jobs.get(jid)
            rep = self.reports.get(jid)
            if j is None or j.state.active or j.state.finished:
                continue
            if rep is not None and rep.status in WAITING_BLOCKED:
                continue
            out.append(j)
        return out

    @cached_property
    def blocked(self) -> list[Job]:
        """Waiting jobs not in the eligible queue, in the resource manager's order."""
        idle = {j.id for j in self.idle}
        return [j for j in self.jobs.values()
                if not j.state.active and not j.state.finished and j.id not in idle]

    def state_name(self, job: Job) -> str:
        """Maui's state for showq: holds, then a defer, take precedence."""
        if job.state.active:
            return job.state.value
        holds = job.holds
        if HoldType.BATCH in holds or job.id in self.state.batch_holds:
            return "BatchHold"
        if HoldType.SYSTEM in holds:
            return "SystemHold"
        if HoldType.USER in holds:
            return "UserHold"
        rec = self.state.deferred.get(job.id)
        if HoldType.DEFER in holds or job.state is JobState.DEFERRED or (rec and rec.until > self.now):
            return "Deferred"
        return job.state.value

    def priority(self, job: Job) -> int:
        """The start priority Maui shows (clipped), from the job's last breakdown or report."""
        b = self.last.priorities.get(job.id)
        if b is not None:
            return b.clipped
        rep = self.reports.get(job.id)
        return rep.priority if rep is not None and rep.priority is not None else 0

    def system_priority(self, job: Job) -> int:
        return self.state.system_priority.get(job.id, job.system_priority)

    def queue_time(self, job: Job) -> int:
        """Maui's SystemQueueTime: when the job last became eligible."""
        return self.state.queue_time.get(job.id, job.submit_time)

    # ------------------------------------------------------------------- nodes
    @cached_property
    def proc_summary(self) -> dict[str, int]:
        """Up/busy processors and nodes, as showq's summary lines count them."""
        up = [n for n in self.snapshot.nodes if n.state in UP_STATES]
        up_names = {n.name for n in up}
        used = {n for j in self.active for n, _r in j.allocation if n in up_names}
        up_procs = sum(n.resources.procs for n in up)
        busy = sum(j.procs for j in self.active)
        return {"up_procs": up_procs, "busy_procs": min(up_procs, busy), "up_nodes": len(up),
                "active_nodes": len(used),
                "idle_procs": sum(self.free_now.get(n.name, 0) for n in up if n.state.usable)}

    @cached_property
    def free_now(self) -> dict[str, int]:
        """Processors of each node not allocated to an active job."""
        free = {n.name: n.resources.procs for n in self.snapshot.nodes}
        for j in self.active:
            for n, r in j.allocation:
                if n in free:
                    free[n] -= r.procs
        return free

    # ------------------------------------------------------------ reservations
    @cached_property
    def reservations(self) -> list[ResRow]:
        """Job reservations in job order (active jobs over their run, waiting jobs with a
        priority reservation), then the standing, administrative and resource-manager ones."""
        prio = {r.job_id or r.name: r for r in self.last.reservations.get(PRIORITY, ())}
        rows = []
        for j in self.jobs.values():
            if j.state.active:
                start = j.start_time if j.start_time is not None else self.now
                rows.append(self._job_row(j, start, start + j.wallclock, j.allocation))
            elif j.id in prio:
                r = prio[j.id]
                rows.append(self._job_row(j, r.start, r.end, r.allocation))
        for source in (STANDING, ADMIN, RM):
            for r in self.last.reservations.get(source, ()):
                if r.kind is ReservationKind.JOB or r.end <= self.now:
                    continue
                per = r.per_task.procs if r.per_task is not None else 0
                alloc = tuple((n, res.procs, res.procs // per if per > 0 else 1) for n, res in r.allocation)
                rows.append(ResRow(r.name, "User", r.kind.value, "-", r.start, r.end, alloc,
                                   r.owner, r.job_id or "", acl_dict(r), tuple(sorted(r.flags)),
                                   r.hosts, r.per_task is None))
        return rows

    def _job_row(self, j: Job, start: int, end: int, allocation) -> ResRow:
        alloc = tuple((n, r.procs, tasks_of(j, r.procs)) for n, r in allocation)
        return ResRow(j.id, "Job", "Job", j.state.value[0], start, end, alloc, j.user, j.id)

    def visible(self, row: ResRow, user: str, admin: bool) -> bool:
        """Maui shows non-job reservations only to admins, their owner and users in their ACL."""
        return (row.type == "Job" or admin or row.owner == user
                or user in row.acl.get("users", ()) or "ALL" in row.acl.get("users", ()))

    # ---------------------------------------------------------------- planning
    @cached_property
    def access(self) -> dict[str, tuple[Reservation, Access]]:
        """Table owner -> (reservation, access list) of the non-job reservations in force."""
        out = {}
        for source in (STANDING, ADMIN, RM):
            for r in self.last.reservations.get(source, ()):
                if r.kind is not ReservationKind.JOB and r.end > self.now and r.allocation:
                    out[owners.reservation(r)] = (r, Access(r.acl))
        return out

    def usable_by(self, job: Job) -> tuple[str, ...]:
        """The reservations this job may use (it plans as if they held nothing)."""
        return tuple(o for o, (_r, a) in self.access.items() if a.admits(job))

    def table(self) -> Planner:
        """The reservation table as the cycle builds it (planning.sync.build_table): active
        jobs, the non-job reservations in force, then the kept priority reservations (inside
        the reservations their jobs may use). O(holds)."""
        reserved = []
        for r in self.last.reservations.get(PRIORITY, ()):
            j = self.jobs.get(r.job_id or r.name)
            if j is not None and not j.state.active and r.end > self.now and r.allocation:
                reserved.append((j, r.start, r.end, r.allocation, self.usable_by(j)))
        return build_table(PlanCache(), self.snapshot.nodes, self.now, self.active,
                           int(self.cfg.get("JOBMAXOVERRUN") or 0),
                           wanted=list(self.access.values()), reserved=reserved,
                           span=planned_span(self.cfg, self.state.predictions))
