"""Reservations: priority (job), standing, administrative."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from .job import Job
from .resources import Resources


class ReservationKind(str, Enum):
    """showres Type column values."""

    JOB = "Job"          # priority reservation made by the scheduler for one job
    USER = "User"        # administrative reservation (setres)
    STANDING = "Standing"  # from SRCFG, re-created every period
    SYSTEM = "System"    # maintenance and other scheduler-internal holds


@dataclass(frozen=True, slots=True)
class Acl:
    """Who may use a reservation. Lists are OR'd: matching any one admits the job."""

    users: frozenset[str] = field(default_factory=frozenset)
    groups: frozenset[str] = field(default_factory=frozenset)
    accounts: frozenset[str] = field(default_factory=frozenset)
    classes: frozenset[str] = field(default_factory=frozenset)
    qos: frozenset[str] = field(default_factory=frozenset)
    jobs: frozenset[str] = field(default_factory=frozenset)

    def admits(self, job: Job) -> bool:
        return (job.id in self.jobs or job.user in self.users or job.group in self.groups
                or job.account in self.accounts or job.class_ in self.classes
                or job.qos in self.qos or "ALL" in self.users)


@dataclass(frozen=True, slots=True)
class Access:
    """A reservation's access list plus its time-based rule (TIMELIMIT, -1: none)."""

    acl: Acl
    timelimit: int = -1

    def admits(self, job) -> bool:
        if self.acl.admits(job):
            return True
        return 0 <= self.timelimit and job.wallclock <= self.timelimit


@dataclass(frozen=True, slots=True)
class Reservation:
    """Resources held over [start, end).

    Either `allocation` is fixed (per-node resources), or `hosts` / `tasks` describe what
    to hold and the planner chooses (per_task None means whole nodes). SHARED access lets
    the reservation overlap other non-job reservations (Maui SRCFG ACCESS).
    """

    name: str
    kind: ReservationKind
    start: int
    end: int
    allocation: tuple[tuple[str, Resources], ...] = ()
    hosts: tuple[str, ...] = ()
    tasks: int = 0
    per_task: Resources | None = None
    acl: Acl = Acl()
    access: str = "DEDICATED"
    flags: frozenset[str] = field(default_factory=frozenset)
    owner: str = ""
    job_id: str | None = None
    priority: int = 0

    @property
    def duration(self) -> int:
        return self.end - self.start

    @property
    def nodes(self) -> tuple[str, ...]:
        """The nodes it holds (empty until placed)."""
        return tuple(n for n, _ in self.allocation)
