"""The workload an importer produces: one WorkloadJob per job of a site's accounting log.

Richer than an SWF record: users, groups, accounts, classes (partitions, queues), QOS,
generic resources and node features keep their names. `to_sim_jobs` turns a workload into
the simulator's jobs (maui_py.sim.swf.SimJob), `to_swf_records` into SWF records for other
tools, `to_json`/`from_json` carry it to a worker process or a Slurm array task unchanged.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field, fields
from typing import Any, Iterable

from ...model import Job, JobRequest, Node, NodeState, Resources
from ..swf import SimJob, SwfRecord
from .fit import NodeClasses

MAX_WARNINGS = 20
"""Malformed lines warned about one by one per file; the rest are counted in one warning."""

MAX_PROCS = 10_000_000
MAX_SECONDS = 100 * 366 * 86400
"""Bounds on untrusted sizes: a value past them is a malformed line, not a job."""


class ImportLineWarning(UserWarning):
    """A line of an accounting log or node listing was skipped (the message names file:line)."""


@dataclass(frozen=True, slots=True)
class WorkloadJob:
    """One job as the accounting log recorded it. Times are integer seconds on the log's own
    clock (timestamps without a zone are read as UTC: only differences matter); None when the
    log does not say. procs and mem_mb are whole-job totals; gres is (name, count) per job."""

    id: str
    user: str
    submit: int
    start: int | None
    end: int | None
    wallclock: int
    procs: int
    nodes: int = 0
    mem_mb: int = 0
    group: str = ""
    account: str = ""
    class_: str = ""
    qos: str = ""
    gres: tuple[tuple[str, int], ...] = ()
    features: tuple[str, ...] = ()
    eligible: int | None = None
    state: str = ""
    exit_code: str = ""
    dependency: str = ""
    array_id: str = ""
    name: str = ""

    @property
    def ran(self) -> bool:
        """The job started and ended (the only jobs a replay can reproduce)."""
        return self.start is not None and self.end is not None and self.end >= self.start

    @property
    def runtime(self) -> int:
        return (self.end - self.start) if self.ran else 0

    @property
    def wait(self) -> int | None:
        return self.start - self.submit if self.start is not None else None


@dataclass
class Workload:
    """Jobs (in log order, one per job id), where they came from, the cluster when known, and
    notes: what the importer could not tell and how it handled it (counts per reason).
    dates: the time zone (IANA name) a report shows the jobs' times in, as dates; "" when
    the times are not dates (an SWF trace without UnixStartTime)."""

    jobs: list[WorkloadJob]
    source: str = ""
    nodes: tuple[Node, ...] = ()
    skipped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    dates: str = "UTC"

    def count(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + n

    def users(self) -> list[str]:
        return sorted({j.user for j in self.jobs})


class LineWarnings:
    """Collects the malformed lines of one file and warns: the first MAX_WARNINGS one by one,
    naming file and line, then one count."""

    def __init__(self, name: str, kind: str):
        self.name, self.kind, self.bad = name, kind, 0

    def skip(self, lineno: int, why: str) -> None:
        self.bad += 1
        if self.bad <= MAX_WARNINGS:
            warnings.warn(f"{self.name}:{lineno}: skipped malformed {self.kind} line ({why})",
                          ImportLineWarning, stacklevel=3)

    def finish(self, workload: Workload) -> None:
        if self.bad > MAX_WARNINGS:
            warnings.warn(f"{self.name}: {self.bad - MAX_WARNINGS} more malformed {self.kind} "
                          f"lines skipped ({self.bad} in all)", ImportLineWarning, stacklevel=3)
        if self.bad:
            workload.count("malformed line", self.bad)


def log_lines(text: str) -> list[str]:
    """The lines of a log: split on "\\n" only (a trailing "\\r" dropped). str.splitlines also
    splits on \\x0b, \\x0c, \\x1c-\\x1e, \\x85, U+2028 and U+2029, which a user can put in a job
    name to start a forged record."""
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def bounded(n: int, low: int, high: int, what: str) -> int:
    if not low <= n <= high:
        raise ValueError(f"{what} {n} out of range [{low}, {high}]")
    return n


def whole(text: object, what: str, low: int = 0, high: int = MAX_PROCS) -> int:
    """A count as a log spells it: ASCII digits only (int() also reads `３００`, `٣` and
    `1_0`), bounded to [low, high]; ValueError naming `what` otherwise."""
    t = str(text).strip()
    if not (t.isascii() and t.isdigit() and len(t) <= 18):
        raise ValueError(f"{what} {t[:20]!r} is not a whole number")
    return bounded(int(t), low, high, what)


def ascii_field(text: str, what: str) -> str:
    """`text` when it is ASCII (sizes, times, limits: a non-ASCII digit is damage, not data)."""
    if not text.isascii():
        raise ValueError(f"{what} {text[:20]!r} is not ASCII")
    return text


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def _request(j: WorkloadJob) -> JobRequest:
    """Exactly the recorded shape when the processors split evenly over the recorded nodes (one
    task per node holding its share of processors, memory and gres), else `procs` one-processor
    tasks with the memory (and gres, rounded up) spread over them."""
    feats = frozenset(j.features)
    if j.nodes > 0 and j.procs % j.nodes == 0:
        n = j.nodes
        per = Resources.of(j.procs // n, _ceil(j.mem_mb, n), {k: _ceil(v, n) for k, v in j.gres})
        return JobRequest(tasks=n, per_task=per, nodes=n, tasks_per_node=1, features=feats)
    per = Resources.of(1, _ceil(j.mem_mb, j.procs), {k: _ceil(v, j.procs) for k, v in j.gres})
    return JobRequest(tasks=j.procs, per_task=per, features=feats)


def replayable(workload: Workload) -> tuple[list[WorkloadJob], dict[str, int]]:
    """The jobs a replay can use, in (submit, id) order, and how many others were left out
    and why: never started (cancelled while queued, still pending), still running at the end
    of the log, no processors. A missing or zero time limit becomes the runtime (at least 1 s)."""
    kept: list[WorkloadJob] = []
    out: dict[str, int] = {}
    for j in workload.jobs:
        reason = ("never started (cancelled or still queued)" if j.start is None else
                  "no end (running when the log was read)" if j.end is None else
                  "end before start" if j.end < j.start else
                  "no processors" if j.procs <= 0 else "")
        if reason:
            out[reason] = out.get(reason, 0) + 1
        else:
            kept.append(j)
    kept.sort(key=lambda j: (j.submit, j.id))
    return kept, out


def to_sim_jobs(jobs: Iterable[WorkloadJob], eligible_arrival: bool = True) -> list[SimJob]:
    """Simulator jobs of replayable jobs (see replayable()). The actual runtime is end - start;
    the wallclock is the recorded limit, or the runtime (>= 1 s) when the log has none.
    eligible_arrival: a job arrives when it became eligible (after its dependencies, begin
    time or hold), not before, so no replay starts it earlier than it could have run."""
    out = []
    for j in jobs:
        arrival = j.submit
        if eligible_arrival and j.eligible is not None and j.eligible > j.submit:
            arrival = min(j.eligible, j.start if j.start is not None else j.eligible)
        run = j.runtime
        wall = j.wallclock if j.wallclock > 0 else max(run, 1)
        job = Job(id=j.id, user=j.user or "-", group=j.group, account=j.account,
                  class_=j.class_, qos=j.qos, name=j.name, request=_request(j),
                  wallclock=wall, submit_time=arrival)
        out.append(SimJob(job, run))
    return out


_STATUS = {"COMPLETED": 1, "CANCELLED": 5, "TIMEOUT": 0, "FAILED": 0, "NODE_FAIL": 0}


def to_swf_records(jobs: Iterable[WorkloadJob]) -> tuple[list[SwfRecord], dict[str, dict[str, int]]]:
    """SWF records (submit relative to the first job's submission) and the name -> number
    tables for users, groups and queues (SWF numbers them from 1). Memory: KB per processor."""
    jobs = list(jobs)
    t0 = min((j.submit for j in jobs), default=0)
    tables: dict[str, dict[str, int]] = {"user": {}, "group": {}, "queue": {}, "partition": {}}

    def num(kind: str, name: str) -> int:
        if not name:
            return -1
        table = tables[kind]
        return table.setdefault(name, len(table) + 1)

    out = []
    for k, j in enumerate(jobs, 1):
        wait = j.wait if j.wait is not None else -1
        status = _STATUS.get(j.state.split()[0].upper() if j.state else "", -1)
        mem_kb = j.mem_mb * 1024 // j.procs if j.mem_mb and j.procs else -1
        out.append(SwfRecord(k, j.submit - t0, wait, j.runtime if j.ran else -1,
                             j.procs if j.ran else -1, -1.0, -1.0, j.procs or -1,
                             j.wallclock or -1, mem_kb, status, num("user", j.user),
                             num("group", j.group), -1, num("queue", j.class_),
                             num("partition", j.account), -1, -1))
    return out, tables


_JOB_FIELDS = tuple(f.name for f in fields(WorkloadJob))


def job_to_dict(j: WorkloadJob) -> dict[str, Any]:
    """The job's fields by name (as dataclasses.asdict gives them: its tuples hold only
    strings and numbers, so no deep copy is needed; a tenth of asdict's time)."""
    return {name: getattr(j, name) for name in _JOB_FIELDS}


def job_from_dict(d: dict[str, Any]) -> WorkloadJob:
    d = dict(d)
    d["gres"] = tuple((str(k), int(v)) for k, v in d.get("gres", ()))
    d["features"] = tuple(d.get("features", ()))
    return WorkloadJob(**d)


def node_to_dict(n: Node) -> dict[str, Any]:
    return {"name": n.name, "procs": n.resources.procs, "mem": n.resources.mem,
            "gres": [list(g) for g in n.resources.gres], "features": sorted(n.features),
            "partitions": sorted(n.partitions), "state": n.state.value}


def node_from_dict(d: dict[str, Any]) -> Node:
    res = Resources.of(d["procs"], d["mem"], {k: v for k, v in d.get("gres", ())})
    return Node(d["name"], res, NodeState(d.get("state", NodeState.IDLE.value)),
                frozenset(d.get("features", ())), frozenset(d.get("partitions", ())))


def to_json(workload: Workload) -> str:
    return json.dumps({"source": workload.source, "skipped": workload.skipped,
                       "notes": workload.notes, "dates": workload.dates,
                       "nodes": [node_to_dict(n) for n in workload.nodes],
                       "jobs": [job_to_dict(j) for j in workload.jobs]}, sort_keys=True)


def from_json(text: str) -> Workload:
    d = json.loads(text)
    return Workload([job_from_dict(j) for j in d["jobs"]], d.get("source", ""),
                    tuple(node_from_dict(n) for n in d.get("nodes", ())),
                    dict(d.get("skipped", {})), list(d.get("notes", ())), str(d.get("dates", "UTC")))


def fits(job: Job, nodes: Iterable[Node] | NodeClasses) -> bool:
    """Whether the cluster could ever run the job: enough nodes with its features, each able
    to hold a task (or, without a node count, room for all its tasks). A job that fits no set
    of nodes would wait for ever in a replay on this cluster. Checked by node class (fit.py):
    give a NodeClasses built once when checking many jobs against one cluster."""
    classes = nodes if isinstance(nodes, NodeClasses) else NodeClasses(nodes)
    return classes.fits(job)
