"""Slurm output text -> maui_py model objects. Pure functions, tolerant of bad records.

Sources: `squeue --json` and `sinfo --json` (openapi v0.0.38, Slurm 22.05), and the
`scontrol show job|node|reservation -o` one-line forms as a fallback for versions without
JSON. A record that cannot be read (not an object, a missing or malformed field, a garbage
line) is skipped with `warnings.warn(..., RecordWarning)` naming it; the others are kept.
A document that is not JSON at all raises ValueError (the adapter turns it into RMError).
Every function is linear in the size of its input (job arrays: in the number of tasks).

Nodes
  name; Resources(procs = cpus (scontrol: CPUEfctv, else CPUTot), mem = real_memory MB,
  gres = `gres` summed by name over types: `gpu:tesla:2(S:0)` -> gpu=2); features = active
  features (else available); partitions = the node's partitions; load = cpu_load / 100
  (JSON) or CPULoad. State: DOWN, FUTURE, ERROR or any of NOT_RESPONDING (`*`), powered
  down / powering, REBOOT_ISSUED, INVAL -> DOWN; DRAIN or FAIL -> DRAINED when nothing runs
  on the node (idle), DRAINING otherwise; else idle -> IDLE, mixed -> RUNNING, allocated /
  completing -> BUSY; anything unknown -> UNKNOWN.

Jobs
  id = Slurm job id as a string; array elements `<array id>_<task>` (what squeue shows and
  scontrol accepts); an unsplit pending array record becomes one Job per pending task (at
  most MAX_ARRAY_TASKS). user, group, account, qos ("" when unset), class_ = partition,
  name, submit_time; wallclock = time_limit (JSON minutes x 60, scontrol `[D-]H:M:S`);
  UNLIMITED / none -> UNLIMITED_WALLCLOCK (365 days). reservation = resv_name.
  State: PENDING (and REQUEUED...) -> IDLE; RUNNING, CONFIGURING, COMPLETING, RESIZING,
  SIGNALING, STAGE_OUT -> RUNNING (start_time set); SUSPENDED -> SUSPENDED; COMPLETED,
  FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY -> COMPLETED; CANCELLED, PREEMPTED, BOOT_FAIL,
  DEADLINE, REVOKED -> REMOVED. In hold-all mode a pending job released by maui-py
  (priority > 0, reason None/Priority/Resources) is STARTING, placed on its pinned nodes,
  so the next cycle does not take it for a failed start while Slurm's loop catches up.
  Holds: hold-all mode: Reason=JobHeldUser is the gate our job_submit.lua puts on every
  job, NOT a hold (users cannot set or clear it); otherwise it is HoldType.USER.
  JobHeldAdmin, REQUEUE_HOLD, SPECIAL_EXIT -> HoldType.SYSTEM (the adapter reports holds it
  set itself with the type it was asked for). Reason=BadConstraints (pushed on nodes that
  cannot run it) -> IDLE, listed in `bad_constraints`. depends_satisfied is False for
  Reason=Dependency / DependencyNeverSatisfied / BeginTime or a dependency still marked
  `(unfulfilled)` / `(failed)` (a gated job's reason hides it).
  Allocation (running): job_resources.allocated_nodes (cores counted, memory_allocated,
  gres from gres_detail in node order); without it, cpus and memory spread evenly over
  the node list.
  Request: tasks = tasks; per_task.procs = cpus_per_task (else cpus / tasks);
  memory per task = memory_per_cpu x procs; gres per task = tres_per_task (+ tres_per_job
  / tasks, rounded up). Per-node amounts (memory_per_node, tres_per_node): with
  --ntasks-per-node k they are divided by k; without it the job becomes n node-sized
  "tasks" (n = fixed node count, else the minimum), each holding a node's share of the
  processors and the whole per-node memory and gres, with nodes = n and tasks_per_node = 1
  (exactly what Slurm needs on each of the n nodes maui-py pins). --mem=0 -> exclusive.
  nodes = the count when the user fixed it (-N n or n-n); hostlist = required nodes;
  both as submitted (job_submit.lua records them in AdminComment, because maui-py's own
  push rewrites ReqNodeList and NumNodes). features: plain AND lists only (`a&b`).
  exclusive: JSON shared == "none" / OverSubscribe=NO (--exclusive).

Reservations: see reservations.py.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, TypeVar

from maui_py.model import Job, JobState, Node, Reservation
from maui_py.rm.protocol import RecordWarning, RMOutage

from .hostlist import HostlistError
from .jobs import Pin, RawJob, bad_constraints, job_key, raw_from_json, raw_from_text, to_jobs
from .mirror import Mirror, mirror_from_record
from .nodes import node_from_json, node_from_text
from .records import JOB_KEYS, NODE_KEYS, RESERVATION_KEYS, RecordError, parse_line
from .reservations import reservation_from_text

T = TypeVar("T")
RECORD_ERRORS = (KeyError, ValueError, TypeError, AttributeError, IndexError, OverflowError,
                 HostlistError)
"""What reading one record may raise; the record is skipped with a warning. OverflowError:
a JSON `1e999` is a float infinity, which no integer field can take."""


@dataclass(frozen=True, slots=True)
class SlurmJobs:
    """Jobs read from Slurm, plus what the adapter needs beyond the model.

    bad_constraints: ids of pending jobs Slurm marked BadConstraints (a refused push);
    reasons: Slurm's reason for every pending job (for failure messages);
    slurm_ids: our id -> Slurm's numeric job id (they differ for array elements).
    """

    jobs: tuple[Job, ...] = ()
    bad_constraints: frozenset[str] = frozenset()
    reasons: Mapping[str, str] = field(default_factory=dict)
    slurm_ids: Mapping[str, int] = field(default_factory=dict)

    def active(self) -> "SlurmJobs":
        """Without the finished jobs that squeue still lists for MinJobAge seconds."""
        keep = tuple(j for j in self.jobs if not j.state.finished)
        ids = {j.id for j in keep}
        return SlurmJobs(keep, self.bad_constraints & ids,
                         {k: v for k, v in self.reasons.items() if k in ids},
                         {k: v for k, v in self.slurm_ids.items() if k in ids})


def _tolerant(items: Iterable[T], convert: Callable[[T], Any], what: str,
              ident: Callable[[T], str]) -> Iterator[Any]:
    """convert(item) for each item; a failing item is skipped with a RecordWarning."""
    for i, item in enumerate(items):
        try:
            yield convert(item)
        except RECORD_ERRORS as e:
            warnings.warn(f"{what}: skipped record {i} ({ident(item)}): {type(e).__name__}: {e}",
                          RecordWarning, stacklevel=3)


def _json_list(text: str, key: str, what: str) -> list[Any]:
    """doc[key] of a JSON document. ValueError when the text is not JSON, nests deeper than
    Python's parser can go (RecursionError) or holds an integer of thousands of digits."""
    try:
        doc = json.loads(text)
    except RecursionError:
        raise ValueError(f"{what}: not JSON: nested too deeply") from None
    except ValueError as e:
        raise ValueError(f"{what}: not JSON: {str(e)[:200]}") from e
    if not isinstance(doc, dict) or not isinstance(doc.get(key), list):
        raise ValueError(f"{what}: no '{key}' list in the output")
    errors = doc.get("errors")
    errors = errors if isinstance(errors, list) else [errors] if errors else []
    if errors:   # exit 0 with an error list: slurmctld unreachable, an outage (issue 13)
        raise RMOutage(f"{what}: Slurm reported {len(errors)} error(s), first: {str(errors[0])[:200]}")
    return doc[key]


def _json_ident(item: Any, key: str) -> str:
    if not isinstance(item, dict):
        return f"a {type(item).__name__}"
    value = item.get(key)
    if isinstance(value, (dict, list)):
        return f"{key}=a {type(value).__name__}"
    return f"{key}={value!r}" if isinstance(value, int) and abs(value) < 1 << 63 else \
        f"{key}={str(value)[:40]!r}"


def _lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("No ")]


def _line_ident(line: str) -> str:
    return repr(line[:40])


def _checked(convert: Callable[[Any], T]) -> Callable[[Any], T]:
    def run(item: Any) -> T:
        if not isinstance(item, dict):
            raise TypeError("not a JSON object")
        return convert(item)
    return run


def _mapper(read: Callable[[Any], RawJob], hold_all: bool, pins: Mapping[str, Pin] | None
            ) -> Callable[[Any], tuple[RawJob, list[Job]]]:
    """read one record and map it, so that either step failing skips only that record."""
    def run(item: Any) -> tuple[RawJob, list[Job]]:
        raw = read(item)
        return raw, to_jobs(raw, hold_all=hold_all, pin=(pins or {}).get(job_key(raw)))
    return run


def _collect(mapped: Iterable[tuple[RawJob, list[Job]]], known_ids: Iterable[int] | None,
             what: str) -> SlurmJobs:
    """Gather mapped records; a Slurm id listed twice, or missing from `known_ids`, is
    dropped (a job name with a newline imitating a record, in the text form)."""
    pairs = list(mapped)
    known = frozenset(known_ids) if known_ids is not None else None
    count: dict[int, int] = {}
    for raw, _ in pairs:
        count[raw.job_id] = count.get(raw.job_id, 0) + 1
    jobs: list[Job] = []
    bad: set[str] = set()
    reasons: dict[str, str] = {}
    slurm_ids: dict[str, int] = {}
    for raw, mapped_jobs in pairs:
        if count[raw.job_id] > 1 or (known is not None and raw.job_id not in known):
            warnings.warn(f"{what}: skipped job {raw.job_id}: listed twice or unknown to squeue "
                          f"(a job name with a newline imitating a record?)", RecordWarning,
                          stacklevel=3)
            continue
        for job in mapped_jobs:
            jobs.append(job)
            slurm_ids[job.id] = raw.job_id
            if job.state in (JobState.IDLE, JobState.STARTING):
                reasons[job.id] = raw.reason
            if bad_constraints(raw):
                bad.add(job.id)
    return SlurmJobs(tuple(jobs), frozenset(bad), reasons, slurm_ids)


def parse_squeue_json(text: str, *, hold_all: bool = True,
                      pins: Mapping[str, Pin] | None = None) -> SlurmJobs:
    """`squeue --json` -> SlurmJobs (finished jobs included; see SlurmJobs.active).
    `pins`: what the adapter pushed, by job id (see jobs.Pin)."""
    what = "squeue --json"
    items = _json_list(text, "jobs", what)
    mapped = _tolerant(items, _checked(_mapper(raw_from_json, hold_all, pins)), what,
                       lambda x: _json_ident(x, "job_id"))
    return _collect(mapped, None, what)


def parse_scontrol_jobs(text: str, *, hold_all: bool = True, pins: Mapping[str, Pin] | None = None,
                        known_ids: Iterable[int] | None = None) -> SlurmJobs:
    """`scontrol show job -o` -> SlurmJobs. With `known_ids` (Slurm job ids from a
    name-free listing, `squeue -h -t all -o %A`), records for other ids are dropped."""
    what = "scontrol show job"
    read = _mapper(lambda line: raw_from_text(parse_line(line, JOB_KEYS)), hold_all, pins)
    return _collect(_tolerant(_lines(text), read, what, _line_ident), known_ids, what)


def parse_sinfo_json(text: str) -> list[Node]:
    """`sinfo --json` -> nodes (one entry per node; repeated names keep the first)."""
    items = _json_list(text, "nodes", "sinfo --json")
    return _unique(_tolerant(items, _checked(node_from_json), "sinfo --json",
                             lambda x: _json_ident(x, "name")), "sinfo --json")


def parse_scontrol_nodes(text: str) -> list[Node]:
    """`scontrol show node -o` -> nodes."""
    return _unique(_tolerant(_lines(text), lambda ln: node_from_text(parse_line(ln, NODE_KEYS)),
                             "scontrol show node", _line_ident), "scontrol show node")


def parse_scontrol_reservations(text: str, nodes: Iterable[Node] = (),
                                jobs: Iterable[Job] = ()) -> list[Reservation]:
    """`scontrol show reservation -o` -> USER reservations (our own mirrors left out)."""
    by_name = {n.name: n for n in nodes}
    jobs = tuple(jobs)
    out = _tolerant(_lines(text),
                    lambda ln: reservation_from_text(parse_line(ln, RESERVATION_KEYS), by_name, jobs),
                    "scontrol show reservation", _line_ident)
    return [r for r in out if r is not None]


def parse_scontrol_mirrors(text: str) -> dict[str, Mirror]:
    """`scontrol show reservation -o` -> maui-py's own mirrors (`maui.<job id>`) by name."""
    found = _tolerant(_lines(text), lambda ln: mirror_from_record(parse_line(ln, RESERVATION_KEYS)),
                      "scontrol show reservation", _line_ident)
    return dict(m for m in found if m is not None)


def _unique(nodes: Iterable[Node], what: str) -> list[Node]:
    """The first record of each node name; a repeated one is skipped with a warning."""
    seen: dict[str, Node] = {}
    for n in nodes:
        if n.name in seen:
            warnings.warn(f"{what}: skipped a second record of node {n.name!r}", RecordWarning,
                          stacklevel=3)
            continue
        seen[n.name] = n
    return list(seen.values())


def parse_job_ids(text: str) -> list[int]:
    """`squeue -h -t all -o %A` (one numeric id per line) -> ids; other lines are skipped."""
    return [int(ln.strip()) for ln in text.splitlines() if ln.strip().isdigit()]


__all__ = ["SlurmJobs", "parse_squeue_json", "parse_sinfo_json", "parse_scontrol_jobs",
           "parse_scontrol_nodes", "parse_scontrol_reservations", "parse_scontrol_mirrors",
           "parse_job_ids", "RecordError"]
