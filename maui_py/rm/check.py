"""The snapshot check: the last line between a resource manager's facts and the cycle.

`check_snapshot(snapshot) -> (snapshot, warnings)` resolves every inconsistency the cycle
cannot live with, so that one bad record never stops all scheduling. The rule is always
the same: what a bad record touches becomes unavailable, the record is named in a warning,
and everything else is scheduled as usual. Nothing is ever freed by the check: resources
that may be in use stay held or their nodes become unusable, so no start can over-allocate.

- a node listed twice: kept once; when the copies disagree, the node is unusable;
- a node with impossible resources (negative, absurd, not integers): unusable, no capacity;
- a job listed twice: identical copies are kept once; otherwise the waiting copies are
  dropped, the first running copy is kept and the nodes of the other running copies are
  unusable;
- a running job on a node the snapshot does not list: that part of its allocation is
  dropped (the node is not schedulable anyway), the rest still holds its nodes;
- an allocation with impossible amounts: dropped, and its nodes are unusable;
- an allocation naming a generic resource its node lacks: the amount is dropped, and the
  node is unusable (it is over-committed);
- allocations beyond a node's capacity: the node is unusable;
- a waiting job with impossible values (times, sizes, an empty id): dropped;
- a running job with an impossible limit is planned to run MAX_SECONDS, an impossible start
  time becomes "now", an impossible request becomes one task of its allocation;
- a reservation naming unknown nodes loses those; one with impossible times or amounts is
  dropped.

The bounds (MAX_SECONDS, MAX_COUNT, MAX_TASKS, MAX_MEM_MB) are shared with the adapters'
parsers, which refuse values beyond them record by record. O(nodes + jobs + allocation
entries + reservations).
"""

from __future__ import annotations

import math
from dataclasses import replace

from ..model import (ZERO, ClusterSnapshot, Job, JobRequest, JobState, Node, NodeState,
                     Reservation, Resources)

MAX_SECONDS = 100 * 365 * 86400
"""The longest time span (a limit, a duration) anything may claim: 100 years."""
MAX_COUNT = 1_000_000
"""Processors or one generic resource on one node, processors of one task, nodes of a job."""
MAX_TASKS = 10_000_000
"""Tasks of one job."""
MAX_MEM_MB = 1 << 30
"""Memory of one node or one task in MB (1 PiB)."""
MAX_EPOCH = 1 << 34
"""The latest absolute time a parser accepts (the year 2514): beyond it a time is garbage."""
MAX_ID = 1 << 32
"""Numeric job ids (Slurm's are 32-bit)."""
SKEW_SECONDS = 3600
"""A running job's start up to this far after "now" is clock skew: taken as now quietly."""

_LIST_AT_MOST = 5


def _is_int(x: object) -> bool:
    return type(x) is int


def _time_ok(t: object, now: int) -> bool:
    """An absolute time: an integer between the epoch and 100 years past now."""
    return _is_int(t) and 0 <= t <= now + MAX_SECONDS  # type: ignore[operator]


def resources_problem(r: object, count_max: int = MAX_COUNT, mem_max: int = MAX_MEM_MB
                      ) -> str | None:
    """Why `r` cannot be a resource amount (None when it can): integers, 0 <= each <= bound."""
    if not isinstance(r, Resources):
        return f"not a resource vector: {type(r).__name__}"
    if not (_is_int(r.procs) and _is_int(r.mem) and isinstance(r.gres, tuple)):
        return "non-integer amounts"
    if not 0 <= r.procs <= count_max:
        return f"processors {r.procs} out of range"
    if not 0 <= r.mem <= mem_max:
        return f"memory {r.mem} MB out of range"
    for item in r.gres:
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)
                and item[0] and _is_int(item[1])):
            return f"bad generic resource {item!r}"
        if not 0 <= item[1] <= count_max:
            return f"{item[0]}={item[1]} out of range"
    return None


def request_problem(q: object) -> str | None:
    """Why a job request is impossible (None when it is not)."""
    if not isinstance(q, JobRequest):
        return "no request"
    for name in ("tasks", "nodes", "tasks_per_node"):
        v = getattr(q, name)
        if not _is_int(v):
            return f"{name} not an integer"
    if not 1 <= q.tasks <= MAX_TASKS:
        return f"tasks {q.tasks} out of range"
    if not 0 <= q.nodes <= MAX_COUNT or not 0 <= q.tasks_per_node <= MAX_TASKS:
        return f"nodes {q.nodes} / tasks per node {q.tasks_per_node} out of range"
    bad = resources_problem(q.per_task)
    if bad:
        return f"per task: {bad}"
    return None


def job_problem(job: Job) -> str | None:
    """Why a parsed job cannot be believed without a snapshot's context (None when it can):
    its limit, times, request and allocation amounts are checked against the bounds."""
    if not _is_int(job.wallclock) or not 0 <= job.wallclock <= MAX_SECONDS:
        return f"time limit {job.wallclock!r} s out of range"
    for what, t in (("submit", job.submit_time), ("start", job.start_time)):
        if t is not None and not (_is_int(t) and 0 <= t <= MAX_EPOCH):
            return f"{what} time {t!r} out of range"
    bad = request_problem(job.request)
    if bad:
        return bad
    for name, res in job.allocation:
        bad = resources_problem(res)
        if bad:
            return f"allocation on {name}: {bad}"
    return None


def _names(items) -> str:
    items = list(items)
    text = ", ".join(str(x) for x in items[:_LIST_AT_MOST])
    return text + (f" (+{len(items) - _LIST_AT_MOST} more)" if len(items) > _LIST_AT_MOST else "")


class _Check:
    """One pass over a snapshot; `bad_nodes` maps node name -> why it is made unusable."""

    def __init__(self, snap: ClusterSnapshot):
        self.snap = snap
        self.now = snap.now
        self.warnings: list[str] = []
        self.bad_nodes: dict[str, str] = {}
        self.nodes: dict[str, Node] = {}
        self.changed = False

    def warn(self, text: str) -> None:
        self.warnings.append(text)
        self.changed = True

    def unusable(self, name: str, why: str) -> None:
        if name in self.nodes and name not in self.bad_nodes:
            self.bad_nodes[name] = why

    # ------------------------------------------------------------------ nodes
    def check_nodes(self) -> None:
        for n in self.snap.nodes:
            if not isinstance(n, Node) or not isinstance(n.name, str) or not n.name:
                self.warn(f"node record {getattr(n, 'name', n)!r}: no usable name; skipped")
                continue
            bad = resources_problem(n.resources)
            if bad:
                self.warn(f"node {n.name}: impossible resources ({bad}); made unusable")
                n = replace(n, resources=ZERO, state=NodeState.DOWN)
            if not (isinstance(n.load, (int, float)) and math.isfinite(n.load)) or \
                    not (isinstance(n.speed, (int, float)) and math.isfinite(n.speed)
                         and n.speed > 0) or not _is_int(n.priority):
                self.warn(f"node {n.name}: impossible load, speed or priority; reset")
                n = replace(n, load=0.0, speed=1.0,
                            priority=n.priority if _is_int(n.priority) else 0)
            first = self.nodes.get(n.name)
            if first is None:
                self.nodes[n.name] = n
            elif first == n:
                self.warn(f"node {n.name}: listed twice; kept once")
            else:
                self.warn(f"node {n.name}: listed twice with different facts; made unusable")
                self.unusable(n.name, "listed twice with different facts")

    # ------------------------------------------------------------------- jobs
    def check_jobs(self) -> list[Job]:
        groups: dict[object, list[Job]] = {}
        for j in self.snap.jobs:
            if not isinstance(j, Job) or not isinstance(j.id, str) or not j.id:
                self._drop(j, "no usable id")
                continue
            groups.setdefault(j.id, []).append(j)
        kept: list[Job] = []
        for jid, copies in groups.items():
            job = copies[0] if len(copies) == 1 else self._one_of(jid, copies)
            if job is not None:
                job = self._job(job)
            if job is not None:
                kept.append(job)
        return kept

    def _drop(self, j: object, why: str) -> None:
        """Drop a job record; whatever it may be running on becomes unusable."""
        ident = getattr(j, "id", None)
        self.warn(f"job {ident!r}: {why}; not scheduled")
        self._hold_nodes_of(j, f"job {ident!r} dropped: {why}")

    def _hold_nodes_of(self, j: object, why: str) -> None:
        state = getattr(j, "state", None)
        if isinstance(state, JobState) and state.active:
            for entry in getattr(j, "allocation", ()) or ():
                if isinstance(entry, tuple) and entry and isinstance(entry[0], str):
                    self.unusable(entry[0], why)

    def _one_of(self, jid: str, copies: list[Job]) -> Job | None:
        """Several records with one id: identical ones are one job; otherwise keep the first
        running copy (its nodes stay held) and make the other copies' nodes unusable."""
        first = copies[0]
        if all(c == first for c in copies[1:]):
            self.warn(f"job {jid}: listed {len(copies)} times; kept once")
            return first
        active = [c for c in copies if isinstance(c.state, JobState) and c.state.active]
        keep = active[0] if active else None
        for c in active[1:]:
            self._hold_nodes_of(c, f"job {jid} listed twice with different allocations")
        self.warn(f"job {jid}: listed {len(copies)} times with different facts; "
                  + ("the first running copy kept, the other copies' nodes made unusable"
                     if keep is not None else "not scheduled"))
        return keep

    def _job(self, j: Job) -> Job | None:
        state = j.state
        if not isinstance(state, JobState):
            self._drop(j, "no job state")
            return None
        if not state.active:
            bad = self._waiting_problem(j)
            if bad:
                self._drop(j, bad)
                return None
            return j
        return self._running(j)

    def _waiting_problem(self, j: Job) -> str | None:
        now = self.now
        if not _is_int(j.wallclock) or not 0 <= j.wallclock <= MAX_SECONDS:
            return f"impossible time limit {j.wallclock!r}"
        if not _time_ok(j.submit_time, now):
            return f"impossible submit time {j.submit_time!r}"
        if j.start_time is not None and not _time_ok(j.start_time, now):
            return f"impossible start time {j.start_time!r}"
        if not _is_int(j.system_priority):
            return "non-integer system priority"
        if not isinstance(j.allocation, tuple):
            return "malformed allocation"
        return request_problem(j.request)

    def _running(self, j: Job) -> Job:
        """A running job is real whatever its record says: repair, never free its nodes."""
        now, fixes = self.now, []
        if not _is_int(j.wallclock) or not 0 <= j.wallclock <= MAX_SECONDS:
            fixes.append(f"impossible time limit {j.wallclock!r} planned as {MAX_SECONDS} s")
            j = replace(j, wallclock=MAX_SECONDS)
        if j.start_time is not None and not (_is_int(j.start_time) and 0 <= j.start_time <= now):
            if not (_is_int(j.start_time) and now < j.start_time <= now + SKEW_SECONDS):
                fixes.append(f"impossible start time {j.start_time!r} taken as now")
            j = replace(j, start_time=None)
        if not _time_ok(j.submit_time, now):
            fixes.append(f"impossible submit time {j.submit_time!r} taken as its start")
            j = replace(j, submit_time=j.start_time if j.start_time is not None else now)
        if not _is_int(j.system_priority):
            fixes.append("non-integer system priority ignored")
            j = replace(j, system_priority=0)
        alloc: tuple = ()
        if j.allocation:
            if not isinstance(j.allocation, tuple):
                fixes.append("malformed allocation dropped")
            else:
                known, unknown, bad = self._split_allocation(j)
                if bad:
                    fixes.append(f"impossible allocation ({bad}) dropped, its nodes "
                                 "made unusable")
                    self._hold_nodes_of(j, f"job {j.id}: impossible allocation")
                else:
                    alloc = self._fit_gres(j, known)
                    if unknown:
                        fixes.append(f"runs on unknown node(s) {_names(unknown)}: that part "
                                     "of its allocation is not planned")
            if alloc != j.allocation:
                j = replace(j, allocation=alloc)
        bad = request_problem(j.request)
        if bad:
            total = ZERO
            for _n, r in alloc:
                total = total + r
            fixes.append(f"impossible request ({bad}) taken as its allocation")
            j = replace(j, request=JobRequest(1, total if not total.is_zero() else Resources(1)))
        if fixes:
            self.warn(f"job {j.id} (running): " + "; ".join(fixes))
        return j

    def _split_allocation(self, j: Job) -> tuple[list[tuple[str, Resources]], list[str], str]:
        """(entries on known nodes, unknown node names, why the amounts are impossible)."""
        known, unknown = [], []
        for entry in j.allocation:
            if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str)):
                return known, unknown, f"malformed entry {entry!r:.60}"
            name, res = entry
            bad = resources_problem(res)
            if bad:
                return known, unknown, f"on {name}: {bad}"
            if name in self.nodes:
                known.append((name, res))
            else:
                unknown.append(name)
        return known, unknown, ""

    def _fit_gres(self, j: Job, known: list[tuple[str, Resources]]) -> tuple:
        """Generic resources a node does not have cannot be planned on it: the amount is
        dropped and the node made unusable (what the job holds there is unknown)."""
        out = []
        for name, res in known:
            if res.gres:
                cap = self.nodes[name].resources.gres_dict()
                missing = [g for g, _c in res.gres if cap.get(g, 0) <= 0]
                if missing:
                    self.warn(f"job {j.id} (running): holds {_names(missing)} on node {name} "
                              "which has none; node made unusable")
                    self.unusable(name, f"job {j.id} holds {_names(missing)} it does not have")
                    res = Resources(res.procs, res.mem,
                                    tuple(g for g in res.gres if g[0] not in missing))
            out.append((name, res))
        return tuple(out)

    def check_capacity(self, jobs: list[Job]) -> None:
        """Nodes whose active allocations add up beyond their capacity become unusable."""
        used: dict[str, Resources] = {}
        who: dict[str, list[str]] = {}
        for j in jobs:
            if j.state.active:
                for name, res in j.allocation:
                    used[name] = used[name] + res if name in used else res
                    who.setdefault(name, []).append(j.id)
        for name, total in used.items():
            if not total.fits_in(self.nodes[name].resources):
                self.warn(f"node {name}: jobs {_names(who[name])} hold {total}, more than its "
                          f"{self.nodes[name].resources}; made unusable")
                self.unusable(name, "over-committed")

    # ----------------------------------------------------------- reservations
    def check_reservations(self) -> list[Reservation]:
        out, seen = [], set()
        now = self.now
        for r in self.snap.reservations:
            name = getattr(r, "name", None)
            if not isinstance(r, Reservation) or not isinstance(name, str):
                self.warn(f"reservation {name!r}: malformed; ignored")
                continue
            key = (r.kind, name)
            if key in seen:
                self.warn(f"reservation {name}: listed twice; the first kept")
                continue
            seen.add(key)
            if not (_is_int(r.start) and _is_int(r.end)) or r.start < 0 or r.end <= r.start:
                self.warn(f"reservation {name}: impossible times [{r.start!r}, {r.end!r}); "
                          "ignored")
                continue
            if not _is_int(r.tasks) or not 0 <= r.tasks <= MAX_TASKS or \
                    (r.per_task is not None and resources_problem(r.per_task)) or \
                    not _is_int(r.priority):
                self.warn(f"reservation {name}: impossible size; ignored")
                continue
            if r.end > now + MAX_SECONDS:
                self.warn(f"reservation {name}: ends more than 100 years ahead; cut there")
                r = replace(r, end=max(now + MAX_SECONDS, r.start + 1))
                if r.start >= r.end:
                    continue
            if r.allocation:
                r = self._reservation_allocation(r)
                if r is None:
                    continue
            out.append(r)
        return out

    def _reservation_allocation(self, r: Reservation) -> Reservation | None:
        alloc, unknown = [], []
        for entry in r.allocation if isinstance(r.allocation, tuple) else (None,):
            if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str)) \
                    or resources_problem(entry[1]):
                self.warn(f"reservation {r.name}: impossible allocation; ignored")
                return None
            name, res = entry
            if name not in self.nodes:
                unknown.append(name)
                continue
            cap = self.nodes[name].resources.gres_dict()
            if any(cap.get(g, 0) <= 0 for g, _c in res.gres):
                res = Resources(res.procs, res.mem,
                                tuple(g for g in res.gres if cap.get(g[0], 0) > 0))
                unknown.append(f"{name} (generic resources it lacks)")
            alloc.append((name, res))
        if unknown:
            self.warn(f"reservation {r.name}: names {_names(unknown)}; that part ignored")
            if not alloc:
                return None
            r = replace(r, allocation=tuple(alloc))
        return r

    # ------------------------------------------------------------------ result
    def node_list(self, jobs: list[Job]) -> tuple[Node, ...]:
        if not self.bad_nodes:
            return tuple(self.nodes.values())
        busy = {name for j in jobs if j.state.active for name, _r in j.allocation}
        out = []
        for n in self.nodes.values():
            if n.name in self.bad_nodes and n.state.usable:
                n = replace(n, state=NodeState.DRAINING if n.name in busy else NodeState.DRAINED)
            out.append(n)
        return tuple(out)


def check_snapshot(snapshot: ClusterSnapshot) -> tuple[ClusterSnapshot, list[str]]:
    """A snapshot the cycle can rely on, and one warning per record it had to change.

    When nothing is wrong the same snapshot object comes back (the cycle's caches key on
    identity). A changed snapshot loses its delta hint, so the cycle diffs it in full.
    """
    c = _Check(snapshot)
    c.check_nodes()
    jobs = c.check_jobs()
    c.check_capacity(jobs)
    reservations = c.check_reservations()
    if not c.changed and len(c.nodes) == len(snapshot.nodes):
        return snapshot, c.warnings
    return replace(snapshot, nodes=c.node_list(jobs), jobs=tuple(jobs),
                   reservations=tuple(reservations), delta=None), c.warnings


__all__ = ["MAX_COUNT", "MAX_EPOCH", "MAX_ID", "MAX_MEM_MB", "MAX_SECONDS", "MAX_TASKS",
           "check_snapshot", "job_problem",
           "request_problem", "resources_problem"]
