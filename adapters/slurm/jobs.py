"""Slurm job records (squeue JSON or `scontrol show job -o`) -> maui_py Job objects.

Both readers first build a `RawJob` (the fields maui-py uses, in one shape), then
`to_jobs` maps it; the mapping rules are listed in parse.py's docstring. Every function
here handles one record and is linear in its size (an unsplit job array is expanded into
one Job per task, at most MAX_ARRAY_TASKS). A record whose numbers are beyond
maui_py.rm.check's bounds (ids, limits, times, sizes), or whose array spec names no task
(`5-1`), raises ValueError and is skipped with a warning by parse.py.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from maui_py.model import HoldType, Job, JobRequest, JobState, Resources
from maui_py.rm.check import MAX_ID, job_problem
from maui_py.rm.protocol import RecordWarning

from . import hostlist
from .values import (
    UNLIMITED_WALLCLOCK, epoch, gres, mem_mb, opt_int, split_outside_parens, text,
    time_limit_seconds, tres_gres,
)

MAX_ARRAY_TASKS = 10_000
_MARKER = re.compile(r"maui-py:nodes=([^;]*);min=(\d*);max=(\d*)")

RUNNING_STATES = frozenset({"RUNNING", "CONFIGURING", "COMPLETING", "RESIZING", "SIGNALING",
                            "STAGE_OUT"})
PENDING_STATES = frozenset({"PENDING", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD",
                            "SPECIAL_EXIT", "RESV_DEL_HOLD"})
COMPLETED_STATES = frozenset({"COMPLETED", "FAILED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"})
REMOVED_STATES = frozenset({"CANCELLED", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "REVOKED"})
STARTING_REASONS = frozenset({"", "None", "Priority", "Resources"})
"""A released pending job with one of these reasons waits only for Slurm's scheduler loop
(or for its pinned nodes to free up): maui-py started it, so it is STARTING, not idle."""
ADMIN_HOLD_STATES = frozenset({"REQUEUE_HOLD", "SPECIAL_EXIT", "RESV_DEL_HOLD"})


@dataclass(slots=True)
class RawJob:
    """The fields of one Slurm job record that maui-py reads, already typed."""

    job_id: int
    user: str
    state: str
    reason: str = ""
    priority: int = 0
    group: str = ""
    account: str = ""
    partition: str = ""
    qos: str = ""
    name: str = ""
    submit_time: int = 0
    start_time: int | None = None
    time_limit: int | None = None            # seconds; None = unlimited
    array_job_id: int = 0
    array_task: str = ""                    # "3" (one task) or "0-9%2" (unsplit tasks)
    nodes: list[str] = field(default_factory=list)   # allocated
    required_nodes: str = ""
    min_nodes: int = 1
    max_nodes: int | None = None
    tasks: int = 1
    cpus: int = 1
    cpus_per_task: int | None = None
    tasks_per_node: int | None = None
    mem_per_cpu: int | None = None
    mem_per_node: int | None = None
    gres_per_node: dict[str, int] = field(default_factory=dict)
    gres_per_task: dict[str, int] = field(default_factory=dict)
    gres_per_job: dict[str, int] = field(default_factory=dict)
    features: str = ""
    exclusive: bool = False
    dependency: str = ""
    reservation: str = ""
    admin_comment: str = ""
    alloc: list[tuple[str, Resources]] | None = None   # per node, when Slurm says


def _name_before_paren(s: str) -> str:
    """`alice(1001)` -> `alice`."""
    return text(s).split("(")[0]


def _alloc_from_json(res: Mapping[str, Any] | None, gres_detail: list[str]) -> list[tuple[str, Resources]] | None:
    """job_resources.allocated_nodes -> [(node, Resources(cores, memory, gres))]."""
    if not res or not res.get("allocated_nodes"):
        return None
    out = []
    for i, entry in enumerate(res["allocated_nodes"]):
        cores = sum(1 for sock in (entry.get("sockets") or {}).values()
                    for v in (sock.get("cores") or {}).values()
                    if "allocated" in str(v) and "unallocated" not in str(v))
        g = gres(gres_detail[i]) if i < len(gres_detail) else {}
        out.append((str(entry["nodename"]), Resources.of(cores, int(entry.get("memory_allocated") or 0), g)))
    return out


def raw_from_json(d: Mapping[str, Any]) -> RawJob:
    """One element of `squeue --json` jobs[] (openapi v0.0.38). KeyError/ValueError when a
    field maui-py needs is missing or malformed."""
    task_id = opt_int(d.get("array_task_id"))
    return RawJob(
        job_id=int(d["job_id"]), user=text(d["user_name"]) or str(d.get("user_id", "")),
        state=text(d["job_state"]).upper(), reason=text(d.get("state_reason")),
        priority=opt_int(d.get("priority")) or 0, group=text(d.get("group_name")),
        account=text(d.get("account")), partition=text(d.get("partition")),
        qos=text(d.get("qos")), name=str(d.get("name") or ""),
        submit_time=epoch(d.get("submit_time")) or 0, start_time=epoch(d.get("start_time")),
        time_limit=time_limit_seconds(d.get("time_limit")),
        array_job_id=opt_int(d.get("array_job_id")) or 0,
        array_task=str(task_id) if task_id is not None else text(d.get("array_task_string")),
        nodes=hostlist.expand(text(d.get("nodes"))),
        required_nodes=text(d.get("required_nodes")),
        min_nodes=opt_int(d.get("node_count")) or 1, max_nodes=opt_int(d.get("max_nodes")) or None,
        tasks=opt_int(d.get("tasks")) or 1, cpus=opt_int(d.get("cpus")) or 1,
        cpus_per_task=opt_int(d.get("cpus_per_task")),
        tasks_per_node=opt_int(d.get("tasks_per_node")) or None,
        mem_per_cpu=mem_mb(d.get("memory_per_cpu")), mem_per_node=mem_mb(d.get("memory_per_node")),
        gres_per_node=tres_gres(d.get("tres_per_node")),
        gres_per_task=tres_gres(d.get("tres_per_task")),
        gres_per_job=tres_gres(d.get("tres_per_job")),
        features=text(d.get("features")), exclusive=text(d.get("shared")).lower() == "none",
        dependency=text(d.get("dependency")), reservation=text(d.get("resv_name")),
        admin_comment=text(d.get("admin_comment")),
        alloc=_alloc_from_json(d.get("job_resources"), list(d.get("gres_detail") or [])),
    )


def _num_nodes(s: str) -> tuple[int, int | None]:
    """`2-2` -> (2, 2); `1` -> (1, None)."""
    lo, sep, hi = text(s).partition("-")
    return int(lo or 1), (int(hi) if sep and hi else None)


def raw_from_text(d: Mapping[str, str]) -> RawJob:
    """One `scontrol show job -o` record (see records.parse_line)."""
    min_n, max_n = _num_nodes(d.get("NumNodes", "1"))
    tpn = (d.get("NtasksPerN:B:S:C") or "0").split(":")[0]
    return RawJob(
        job_id=int(d["JobId"]), user=_name_before_paren(d["UserId"]),
        state=text(d["JobState"]).upper(), reason=text(d.get("Reason")),
        priority=opt_int(d.get("Priority")) or 0, group=_name_before_paren(d.get("GroupId", "")),
        account=text(d.get("Account")), partition=text(d.get("Partition")),
        qos=text(d.get("QOS")), name=d.get("JobName", ""),
        submit_time=epoch(d.get("SubmitTime")) or 0, start_time=epoch(d.get("StartTime")),
        time_limit=time_limit_seconds(d.get("TimeLimit")),
        array_job_id=opt_int(d.get("ArrayJobId")) or 0, array_task=text(d.get("ArrayTaskId")),
        nodes=hostlist.expand(text(d.get("NodeList"))), required_nodes=text(d.get("ReqNodeList")),
        min_nodes=min_n, max_nodes=max_n,
        tasks=opt_int(d.get("NumTasks")) or 1, cpus=opt_int(d.get("NumCPUs")) or 1,
        cpus_per_task=opt_int(d.get("CPUs/Task")),
        tasks_per_node=int(tpn) if tpn.isdigit() and int(tpn) > 0 else None,
        mem_per_cpu=mem_mb(d.get("MinMemoryCPU")), mem_per_node=mem_mb(d.get("MinMemoryNode")),
        gres_per_node=tres_gres(d.get("TresPerNode")), gres_per_task=tres_gres(d.get("TresPerTask")),
        gres_per_job=tres_gres(d.get("TresPerJob")),
        features=text(d.get("Features")), exclusive=text(d.get("OverSubscribe")).upper() == "NO",
        dependency=text(d.get("Dependency")), reservation=text(d.get("Reservation")),
        admin_comment=text(d.get("AdminComment")),
    )


def _features(expr: str) -> frozenset[str]:
    """Only plain AND lists (`a&b`, `a,b`) map onto maui-py features; OR, counts and
    brackets cannot be expressed and are left to Slurm (a wrong push fails the start)."""
    if not expr or any(c in expr for c in "|[]*()"):
        return frozenset()
    return frozenset(f.strip() for f in re.split(r"[&,]", expr) if f.strip())


@dataclass(frozen=True, slots=True)
class Pin:
    """What the adapter pushed for a job (`nodes`) and what the user had asked for before."""

    nodes: frozenset[str]
    hostlist: tuple[str, ...]
    fixed_nodes: int


def _user_nodes(raw: RawJob, pin: Pin | None) -> tuple[tuple[str, ...], int, int]:
    """(hostlist, fixed node count or 0, minimum node count) as the USER asked, not as
    maui-py pinned them.

    Our job_submit.lua stores the submit-time values in AdminComment (users cannot edit
    it); failing that, the adapter's memory of what it pinned (`pin`); failing that, the
    job's current fields.
    """
    m = _MARKER.search(raw.admin_comment)
    if m:
        hosts, lo, hi = m.group(1), opt_int(m.group(2) or None), opt_int(m.group(3) or None)
    elif pin is not None and pin.nodes == frozenset(hostlist.expand(raw.required_nodes)):
        return pin.hostlist, pin.fixed_nodes, max(1, pin.fixed_nodes)
    else:
        hosts, lo, hi = raw.required_nodes, raw.min_nodes, raw.max_nodes
    fixed = lo if lo and hi and lo == hi else 0
    return tuple(hostlist.expand(hosts)), fixed, max(1, lo or 1)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b) if b > 0 else a


def request_of(raw: RawJob, pin: Pin | None = None) -> JobRequest:
    """The JobRequest of a job: see parse.py ("Request") for the rules."""
    hosts, fixed, min_nodes = _user_nodes(raw, pin)
    tasks = max(1, raw.tasks)
    cpt = raw.cpus_per_task or (raw.cpus // tasks if raw.cpus >= tasks else 1) or 1
    exclusive = raw.exclusive or raw.mem_per_node == 0
    per_node_mem = raw.mem_per_node or None
    if per_node_mem is None and not raw.gres_per_node:
        mem = (raw.mem_per_cpu or 0) * cpt
        g = dict(raw.gres_per_task)
        for k, v in raw.gres_per_job.items():
            g[k] = g.get(k, 0) + _ceil_div(v, tasks)
        return JobRequest(tasks, Resources.of(cpt, mem, g), fixed, raw.tasks_per_node or 0,
                          _features(raw.features), hosts, exclusive)
    if raw.tasks_per_node:
        tpn = raw.tasks_per_node
        mem = _ceil_div(per_node_mem, tpn) if per_node_mem else (raw.mem_per_cpu or 0) * cpt
        g = {k: _ceil_div(v, tpn) for k, v in raw.gres_per_node.items()}
        for k, v in raw.gres_per_task.items():
            g[k] = g.get(k, 0) + v
        return JobRequest(tasks, Resources.of(cpt, mem, g), fixed, tpn,
                          _features(raw.features), hosts, exclusive)
    # Per-node amounts without a tasks-per-node split: one "task" per node, each holding a
    # node's share of the processors plus the per-node memory and gres (exactly what Slurm
    # needs on each of the n nodes we pin).
    n = fixed or min_nodes
    procs = _ceil_div(tasks * cpt, n)
    mem = per_node_mem if per_node_mem else (raw.mem_per_cpu or 0) * procs
    g = dict(raw.gres_per_node)
    for k, v in raw.gres_per_task.items():
        g[k] = g.get(k, 0) + _ceil_div(v * tasks, n)
    return JobRequest(n, Resources.of(procs, mem, g), n, 1, _features(raw.features), hosts, exclusive)


def spread(nodes: list[str] | tuple[str, ...], total: Resources) -> tuple[tuple[str, Resources], ...]:
    """total split evenly over nodes (remainders go to the first nodes)."""
    if not nodes:
        return ()
    n = len(nodes)

    def share(amount: int, i: int) -> int:
        return amount // n + (1 if i < amount % n else 0)

    return tuple((node, Resources.of(share(total.procs, i), share(total.mem, i),
                                     {k: share(v, i) for k, v in total.gres}))
                 for i, node in enumerate(nodes))


def _state(raw: RawJob, hold_all: bool) -> tuple[JobState, frozenset[HoldType]]:
    base = raw.state.split("+")[0].split(",")[0]
    if base in RUNNING_STATES:
        return JobState.RUNNING, frozenset()
    if base == "SUSPENDED":
        return JobState.SUSPENDED, frozenset()
    if base in COMPLETED_STATES:
        return JobState.COMPLETED, frozenset()
    if base in REMOVED_STATES:
        return JobState.REMOVED, frozenset()
    if base not in PENDING_STATES:
        raise ValueError(f"unknown job state {raw.state!r}")
    if base in ADMIN_HOLD_STATES or raw.reason == "JobHeldAdmin":
        return JobState.IDLE, frozenset({HoldType.SYSTEM})
    if raw.reason == "JobHeldUser":
        return JobState.IDLE, frozenset() if hold_all else frozenset({HoldType.USER})
    if hold_all and raw.priority > 0 and raw.reason in STARTING_REASONS:
        return JobState.STARTING, frozenset()
    return JobState.IDLE, frozenset()


def job_key(raw: RawJob) -> str:
    """Our id of a record that is one job: `A_T` for an array element, else the job id
    (for an unsplit array record: its Slurm id)."""
    spec = raw.array_task.split("%")[0]
    if raw.array_job_id and spec.isdigit():
        return f"{raw.array_job_id}_{spec}"
    return str(raw.job_id)


def _array_ids(raw: RawJob) -> list[str]:
    """`A_T` ids for array elements; one id per task for an unsplit array record."""
    spec = raw.array_task.split("%")[0]
    if not raw.array_job_id or not spec or spec.isdigit():
        return [job_key(raw)]
    ids: dict[str, None] = {}
    repeated = 0
    for piece in split_outside_parens(spec):
        lo, _, rest = piece.partition("-")
        hi, _, step = rest.partition(":")
        a = int(lo)
        b = int(hi) if hi else a
        by = int(step) if step else 1
        if a < 0 or b < a or by < 1:
            raise ValueError(f"job array {raw.array_job_id}: task range {piece[:40]!r} "
                             "names no task")
        for t in range(a, b + 1, by):
            if len(ids) >= MAX_ARRAY_TASKS:
                warnings.warn(f"job array {raw.array_job_id}: only the first {MAX_ARRAY_TASKS} "
                              f"pending tasks are scheduled this cycle", RecordWarning, stacklevel=2)
                return list(ids)
            key = f"{raw.array_job_id}_{t}"
            repeated += key in ids
            ids[key] = None
    if repeated:
        warnings.warn(f"job array {raw.array_job_id}: task spec {spec[:40]!r} names {repeated} "
                      "task(s) twice; each is scheduled once", RecordWarning, stacklevel=2)
    return list(ids)


def to_jobs(raw: RawJob, *, hold_all: bool = True,
            pin: Pin | None = None) -> list[Job]:
    """One RawJob -> Jobs (several for an unsplit job array)."""
    state, holds = _state(raw, hold_all)
    request = request_of(raw, pin)
    allocation: tuple[tuple[str, Resources], ...] = ()
    if state in (JobState.RUNNING, JobState.SUSPENDED):
        if raw.alloc:
            allocation = tuple(raw.alloc)
        else:
            mem = (raw.mem_per_node * len(raw.nodes) if raw.mem_per_node
                   else (raw.mem_per_cpu or 0) * raw.cpus)
            allocation = spread(raw.nodes, Resources.of(raw.cpus, mem, request.total.gres_dict()))
    elif state is JobState.STARTING:
        allocation = spread(hostlist.expand(raw.required_nodes), request.total)
    depends = not (raw.reason in ("Dependency", "DependencyNeverSatisfied", "BeginTime")
                   or "(unfulfilled)" in raw.dependency or "(failed)" in raw.dependency)
    job = Job(
        id=str(raw.job_id), user=raw.user, request=request,
        wallclock=raw.time_limit if raw.time_limit is not None else UNLIMITED_WALLCLOCK,
        submit_time=raw.submit_time, group=raw.group, account=raw.account,
        class_=raw.partition, qos=raw.qos, name=raw.name, state=state, holds=holds,
        start_time=raw.start_time if state in (JobState.RUNNING, JobState.SUSPENDED) else None,
        allocation=allocation, reservation=raw.reservation or None, depends_satisfied=depends,
    )
    if not 0 < raw.job_id < MAX_ID or not 0 <= raw.array_job_id < MAX_ID:
        raise ValueError(f"job id {raw.job_id} / array id {raw.array_job_id} out of range")
    bad = job_problem(job)
    if bad:
        raise ValueError(bad)
    job = replace(job, id=job_key(raw))
    ids = _array_ids(raw)
    if ids == [job.id]:
        return [job]
    return [replace(job, id=i) for i in ids]


def bad_constraints(raw: RawJob) -> bool:
    """A pending job that Slurm found it cannot run as pushed (wrong nodes for its request)."""
    return raw.state.startswith("PENDING") and raw.reason == "BadConstraints"

