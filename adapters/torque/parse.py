"""Pure, tolerant parsers of `qstat -f -x` and `pbsnodes -x` (Torque's XML).

A record (<Job>, <Node>) that cannot be read is skipped with a RecordWarning naming it; the
others are kept. Output that is not Torque XML at all raises TorqueParseError. When the
document is not well-formed but still framed by <Data>...</Data> (one record with a byte
XML forbids, say a control character in a job name), each record is read on its own so
that one bad record does not hide the rest. Both parsers are linear in the output size,
salvage included (it finds records with str.find, never a backtracking regex). Values
beyond maui_py.rm.check's bounds (sizes, times, counts, non-finite loads) make a record
unreadable like any other bad value.

State mapping (docs/torque.md has the table):
- job_state Q -> Idle; H -> Idle with holds; W (waiting for its -a time) and T (in transit)
  -> Deferred with a Defer hold (not startable now); R, E (exiting, still on its nodes) ->
  Running; S -> Suspended; C -> Completed (the adapter drops completed jobs).
- Hold_Types u -> User, o (operator) and s (system) -> System, any other letter -> Batch.
  A system hold on a job whose `depend` has after* clauses is Torque's dependency hold:
  depends_satisfied=False instead of a System hold.
- Node state, possibly comma-joined: down -> Down; unknown/state-unknown -> Unknown;
  offline -> Draining while jobs run, else Drained; job-exclusive/busy -> Busy;
  free/job-sharing/reserve/time-shared -> Running with jobs, else Idle.
"""

from __future__ import annotations

import math
import re
import warnings
import xml.etree.ElementTree as ET
from typing import Callable, Container, Iterator, NamedTuple, TypeVar

from maui_py.model import HoldType, Job, JobState, Node, NodeState, Resources
from maui_py.rm.check import MAX_EPOCH, job_problem, resources_problem
from maui_py.rm.protocol import RecordWarning

from .nodespec import job_request
from .values import duration_s, exec_host, node_jobs, size_mb, status_fields


class TorqueParseError(ValueError):
    """The output as a whole is not Torque's XML."""


class TorqueJob(NamedTuple):
    """A job with what Torque says beyond the model: its user Priority (-p), the raw
    `depend` attribute and Hold_Types ("n" when none)."""

    job: Job
    priority: int = 0
    depend: str = ""
    hold_types: str = "n"

    @property
    def is_array_parent(self) -> bool:
        """`123[]`: the summary record of a job array, not a job that runs."""
        return "[]" in self.job.id


JOB_STATES = {"Q": JobState.IDLE, "H": JobState.IDLE, "W": JobState.DEFERRED,
              "T": JobState.DEFERRED, "R": JobState.RUNNING, "E": JobState.RUNNING,
              "S": JobState.SUSPENDED, "C": JobState.COMPLETED}
HOLD_LETTERS = {"u": HoldType.USER, "o": HoldType.SYSTEM, "s": HoldType.SYSTEM}
_AFTER = re.compile(r"(^|,)\s*after", re.ASCII)
T = TypeVar("T")


# ------------------------------------------------------------------ documents
def _records(text: str, tag: str, id_tag: str) -> Iterator[ET.Element]:
    text = text.strip()
    if not text:
        return
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        if not (text.startswith("<Data>") and text.endswith("</Data>")):
            raise TorqueParseError(f"not Torque XML: {e}") from None
        yield from _salvage(text, tag, id_tag)
        return
    if root.tag != "Data":
        raise TorqueParseError(f"not Torque XML: root element <{root.tag}>, expected <Data>")
    yield from root.findall(tag)


def _between(text: str, start: str, end: str, at: int = 0, stop: int | None = None
             ) -> tuple[int, int] | None:
    """(start of `start`, end of `end`) of the first start...end at or after `at`, or None.
    Two str.find calls: linear, whatever the text."""
    stop = len(text) if stop is None else stop
    i = text.find(start, at, stop)
    if i < 0:
        return None
    j = text.find(end, i + len(start), stop)
    return None if j < 0 else (i, j + len(end))


def _salvage(text: str, tag: str, id_tag: str) -> Iterator[ET.Element]:
    """Each <tag>...</tag> of a document that is not well-formed, read on its own; a record
    that is opened and never closed is warned about. Linear in len(text)."""
    at = 0
    while True:
        span = _between(text, f"<{tag}>", f"</{tag}>", at)
        if span is None:
            left = text.find(f"<{tag}>", at)
            if left >= 0:
                warnings.warn(f"Torque {tag.lower()} at offset {left}: never closed; skipped",
                              RecordWarning, stacklevel=4)
            return
        i, j = span
        at = j
        try:
            yield ET.fromstring(text[i:j])
        except ET.ParseError as e:
            name = _between(text, f"<{id_tag}>", f"</{id_tag}>", i, j)
            what = (repr(text[name[0] + len(id_tag) + 2:name[1] - len(id_tag) - 3][:80])
                    if name else f"at offset {i}")
            warnings.warn(f"Torque {tag.lower()} {what}: not well-formed XML ({e}); skipped",
                          RecordWarning, stacklevel=4)


def _each(text: str, tag: str, id_tag: str, read: Callable[[ET.Element], T]) -> list[T]:
    """read(record) for every record; a record it cannot read is warned about and skipped."""
    out = []
    for el in _records(text, tag, id_tag):
        try:
            out.append(read(el))
        except (ValueError, KeyError, OverflowError) as e:
            name = (el.findtext(id_tag) or "without " + id_tag)[:80]
            warnings.warn(f"Torque {tag.lower()} {name!r}: {str(e)[:200]}; skipped",
                          RecordWarning, stacklevel=3)
    return out


def _int(text: str | None, what: str, low: int = -(1 << 63), high: int = (1 << 63) - 1) -> int:
    """An integer in [low, high]; ValueError otherwise (a 400-digit number included)."""
    s = (text or "").strip()
    if len(s) > 24:
        raise ValueError(f"bad {what}: {len(s)} characters")
    try:
        n = int(s)
    except ValueError:
        raise ValueError(f"bad {what} {s!r}") from None
    if not low <= n <= high:
        raise ValueError(f"{what} {n} out of range")
    return n


# ------------------------------------------------------------------ pbsnodes -x
def parse_pbsnodes(text: str) -> list[Node]:
    """Nodes from `pbsnodes -x` output, in output order."""
    return _each(text, "Node", "name", _node)


def node_state(state: str, has_jobs: bool) -> NodeState:
    """NodeState for a Torque state such as "free" or "offline,job-exclusive"."""
    tokens = {t.strip().lower() for t in state.split(",")}
    if "down" in tokens:
        return NodeState.DOWN
    if tokens & {"unknown", "state-unknown"}:
        return NodeState.UNKNOWN
    if "offline" in tokens:
        return NodeState.DRAINING if has_jobs else NodeState.DRAINED
    if tokens & {"job-exclusive", "busy"}:
        return NodeState.BUSY
    if tokens & {"free", "job-sharing", "reserve", "time-shared"}:
        return NodeState.RUNNING if has_jobs else NodeState.IDLE
    return NodeState.UNKNOWN


def _node(el: ET.Element) -> Node:
    name = (el.findtext("name") or "").strip()
    if not name:
        raise ValueError("no <name>")
    status = status_fields(el.findtext("status") or "")
    procs = _int(el.findtext("np") or status.get("ncpus"), "np")
    mem_text = status.get("physmem") or status.get("totmem")
    mem = size_mb(mem_text, round_up=False) if mem_text else 0
    gpus = _int(el.findtext("gpus") or "0", "gpus")
    jobs = node_jobs(el.findtext("jobs") or "")
    props = frozenset(p.strip() for p in (el.findtext("properties") or "").split(",") if p.strip())
    try:
        load = float(status.get("loadave", "0"))
    except ValueError:
        load = 0.0  # "?" while the mom has not reported: not a reason to lose the node
    if not math.isfinite(load):
        warnings.warn(f"Torque node {name[:80]!r}: loadave {load} read as 0", RecordWarning,
                      stacklevel=4)
        load = 0.0
    resources = Resources.of(procs, mem, gpu=gpus)
    bad = resources_problem(resources)
    if bad:
        raise ValueError(bad)
    return Node(name, resources, node_state(el.findtext("state") or "unknown", bool(jobs)),
                props, load=load)


# ------------------------------------------------------------------ qstat -f -x
def parse_qstat(text: str, *, now: int, node_names: Container[str] = (),
                default_wallclock: int = 8639999) -> list[TorqueJob]:
    """Jobs from `qstat -f -x` output, in output order, completed ones included.

    now: start time of a running job that reports none. node_names: the cluster's nodes,
    to tell node names from properties in node specs. default_wallclock: the limit of a
    job that requests no walltime (Maui's SYSTEMDEFAULTJOBWALLTIME).
    """
    return _each(text, "Job", "Job_Id",
                 lambda el: _job(el, now, node_names, default_wallclock))


def _user(el: ET.Element) -> str:
    user = (el.findtext("euser") or "").strip()
    user = user or (el.findtext("Job_Owner") or "").rsplit("@", 1)[0].strip()
    if not user:
        raise ValueError("no Job_Owner or euser")
    return user


def _group(el: ET.Element) -> str:
    group = (el.findtext("egroup") or "").strip()
    if not group:
        group = (el.findtext("group_list") or "").split(",", 1)[0].split("@", 1)[0].strip()
    return group


def _holds(letters: str, state: str, depend: str) -> tuple[frozenset[HoldType], bool]:
    """(holds, depends_satisfied) from Hold_Types and job_state."""
    letters = "" if letters in ("", "n") else letters
    dependency_hold = "s" in letters and bool(_AFTER.search(depend))
    if dependency_hold:
        letters = letters.replace("s", "")
    holds = {HOLD_LETTERS.get(c, HoldType.BATCH) for c in letters}
    if state == "H" and not holds and not dependency_hold:
        holds.add(HoldType.BATCH)
    if state in ("W", "T"):
        holds.add(HoldType.DEFER)
    return frozenset(holds), not dependency_hold


def _allocation(text: str, per_task: Resources) -> tuple[tuple[str, Resources], ...]:
    """Per node: the slots exec_host gives, memory and GPUs of the tasks that fill them."""
    out = []
    for host, slots in exec_host(text):
        share = per_task.scaled(max(1, slots // max(per_task.procs, 1)))
        out.append((host, Resources(slots, share.mem, share.gres)))
    return tuple(out)


def _job(el: ET.Element, now: int, node_names: Container[str], default_wallclock: int) -> TorqueJob:
    job_id = (el.findtext("Job_Id") or "").strip()
    if not job_id:
        raise ValueError("no Job_Id")
    letter = (el.findtext("job_state") or "").strip()
    if letter not in JOB_STATES:
        raise ValueError(f"unknown job_state {letter!r}")
    state = JOB_STATES[letter]
    resources = {r.tag: (r.text or "") for r in el.iterfind("Resource_List/*")}
    request = job_request(resources, node_names)
    walltime = resources.get("walltime", "").strip()
    submit = el.findtext("qtime") or el.findtext("ctime")
    if submit is None:
        raise ValueError("no qtime or ctime")
    depend = (el.findtext("depend") or "").strip()
    hold_types = (el.findtext("Hold_Types") or "n").strip() or "n"
    holds, depends_ok = _holds(hold_types, letter, depend)
    start, allocation = None, ()
    # An array's summary (`12[].srv`, qstat without -t) shows the state of its tasks (R while
    # any runs) but no exec_host: its tasks hold the nodes, so it has no allocation of its own.
    if state.active and "[]" not in job_id:
        if not el.findtext("exec_host"):
            raise ValueError(f"job_state {letter} without exec_host")
        allocation = _allocation(el.findtext("exec_host"), request.per_task)
        started = el.findtext("start_time")
        start = _int(started, "start_time", 0, MAX_EPOCH) if started else now
    priority = el.findtext("Priority")
    job = Job(job_id, _user(el), request,
              duration_s(walltime) if walltime else default_wallclock,
              _int(submit, "qtime", 0, MAX_EPOCH), group=_group(el),
              account=(el.findtext("Account_Name") or "").strip(),
              class_=(el.findtext("queue") or "").strip(),
              qos=resources.get("qos", "").strip(), name=el.findtext("Job_Name") or "",
              state=state, holds=holds, start_time=start, allocation=allocation,
              depends_satisfied=depends_ok)
    bad = job_problem(job)
    if bad:
        raise ValueError(bad)
    return TorqueJob(job, _int(priority, "Priority") if priority else 0, depend, hold_types)
