"""Jobs and what they ask for."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from enum import Enum
from functools import cached_property

from .resources import Resources
from .slots import compile_filler


class JobState(str, Enum):
    """Maui's job states (MJobState), as showq prints them."""

    IDLE = "Idle"
    STARTING = "Starting"
    RUNNING = "Running"
    SUSPENDED = "Suspended"
    COMPLETED = "Completed"
    REMOVED = "Removed"
    DEFERRED = "Deferred"

    @cached_property
    def active(self) -> bool:
        """Starting, running or suspended. Computed once per state (cached on the member:
        a replay asks it for every start and end). O(1)."""
        return self in (JobState.STARTING, JobState.RUNNING, JobState.SUSPENDED)

    @cached_property
    def finished(self) -> bool:
        """Completed or removed. Computed once per state. O(1)."""
        return self in (JobState.COMPLETED, JobState.REMOVED)


class HoldType(str, Enum):
    USER = "User"
    SYSTEM = "System"
    BATCH = "Batch"
    DEFER = "Defer"


@dataclass(frozen=True, slots=True)
class JobRequest:
    """What a job needs: `tasks` copies of `per_task` placed on nodes.

    nodes: exact number of distinct nodes (0: the scheduler chooses).
    tasks_per_node: exact tasks on every node used (0: any split); Torque's ppn.
    exclusive: the job holds its nodes whole (Slurm --exclusive, Maui DEDICATED).
    hostlist: when not empty, the only hosts the job may use.
    """

    tasks: int = 1
    per_task: Resources = Resources(procs=1)
    nodes: int = 0
    tasks_per_node: int = 0
    features: frozenset[str] = field(default_factory=frozenset)
    hostlist: tuple[str, ...] = ()
    exclusive: bool = False
    @property
    def procs(self) -> int:
        return self.tasks * self.per_task.procs

    @property
    def total(self) -> Resources:
        return self.per_task.scaled(self.tasks)


@dataclass(frozen=True, slots=True)
class Job:
    """A job as the resource manager knows it, plus Maui's credentials.

    Times are integer epoch seconds; `wallclock` is the requested limit in seconds.
    `allocation` lists (node, resources) for an active job; `system_priority` is what
    setspri set (0: none); `reservation` names an advance reservation the job asked for.
    """

    id: str
    user: str
    request: JobRequest
    wallclock: int
    submit_time: int
    group: str = ""
    account: str = ""
    class_: str = ""
    qos: str = ""
    name: str = ""
    state: JobState = JobState.IDLE
    holds: frozenset[HoldType] = field(default_factory=frozenset)
    start_time: int | None = None
    allocation: tuple[tuple[str, Resources], ...] = ()
    system_priority: int = 0
    reservation: str | None = None
    depends_satisfied: bool = True
    procs: int = field(init=False, repr=False, compare=False)
    """The processors it asks for (request.procs), computed once: the planner asks often."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "procs", self.request.tasks * self.request.per_task.procs)

    @property
    def nodes(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.allocation)

    @property
    def expected_end(self) -> int | None:
        if self.start_time is None:
            return None
        return self.start_time + self.wallclock


_JOB_FIELDS = tuple(f.name for f in fields(Job))
_DERIVED = frozenset(f.name for f in fields(Job) if not f.init)
_INPUTS_OF_DERIVED = frozenset({"request"})
"""What Job.__post_init__ reads: a change to anything else leaves the derived fields."""
_REBUILD = _INPUTS_OF_DERIVED | _DERIVED
"""Changes evolve leaves to dataclasses.replace (which runs __post_init__ again)."""


def _copier(names: tuple[str, ...]):
    """A function (job, *values) -> a new Job with the fields `names` set to `values` and
    the others copied from `job`, without __init__ (slots.compile_filler): a quarter of
    the cost of a loop over the field names through object.__setattr__. Made once per set
    of names (a replay uses two). A name that is no field raises TypeError."""
    unknown = set(names) - set(_JOB_FIELDS)
    if unknown:
        raise TypeError(f"Job has no field(s) {', '.join(sorted(unknown))}")
    return compile_filler(Job, ["job"] + [f"v{k}" for k in range(len(names))],
                          lambda n: f"v{names.index(n)}" if n in names else f"job.{n}")


_COPIERS: dict[tuple[str, ...], object] = {}
"""_copier's functions, by the names they set."""


def evolve(job: Job, **changes) -> Job:
    """dataclasses.replace(job, **changes) without running __init__ again, for changes
    that leave the derived fields (procs) as they are: a simulated start or end changes a
    job's state, start time and allocation, hundreds of thousands of times a replay.
    O(fields)."""
    names = tuple(changes)
    copy = _COPIERS.get(names)
    if copy is None:
        if not changes.keys().isdisjoint(_REBUILD):
            return replace(job, **changes)
        copy = _COPIERS[names] = _copier(names)
    return copy(job, *changes.values())


def copier(*names: str):
    """evolve's copy function for changes to `names`: (job, *values, in that order) -> the
    new Job, without evolve's keyword packing (0.8 against 1.2-1.3 us a call), for callers
    that make one kind of change very often. Only names that leave the derived fields."""
    if not _REBUILD.isdisjoint(names):
        raise TypeError(f"{', '.join(sorted(_REBUILD & set(names)))}: evolve rebuilds those")
    copy = _COPIERS.get(names)
    if copy is None:
        copy = _COPIERS[names] = _copier(names)
    return copy
