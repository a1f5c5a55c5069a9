"""What lasts from one scheduling cycle to the next.

The cycle takes a SchedulerState and hands back the updated one; the caller must use the
state it gets back and drop the one it passed in (the reservation table inside is updated
in place rather than copied: copying 10,000 nodes' worth of it every cycle would cost more
than the cycle). Everything a restart must not lose is plain data here (the store issue
writes it to SQLite); the table and the priority engine are caches rebuilt on demand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model import Allocation, Node, StartKind
from ..planning.api import Planner
from ..predict.predictors import Prediction


@dataclass(slots=True)
class KeptReservation:
    """A priority reservation that outlives its cycle: HIGHEST keeps every one; retry holds
    (RESERVATIONRETRYTIME) keep one on the same resources after a failed start."""

    job_id: str
    start: int
    end: int
    allocation: Allocation
    group: int
    made_at: int
    retry_until: int | None = None


@dataclass(slots=True)
class DeferRecord:
    count: int = 0
    until: int = 0
    reason: str = ""


@dataclass(slots=True)
class PendingStart:
    """A start decided in the last cycle, waiting for the resource manager to confirm it."""

    job_id: str
    allocation: Allocation
    kind: StartKind
    at: int
    wallclock: int


@dataclass
class SchedulerState:
    iteration: int = 0
    last_now: int | None = None
    reservations: dict[str, KeptReservation] = field(default_factory=dict)
    deferred: dict[str, DeferRecord] = field(default_factory=dict)
    batch_holds: dict[str, str] = field(default_factory=dict)
    start_counts: dict[str, int] = field(default_factory=dict)
    bypass: dict[str, int] = field(default_factory=dict)
    queue_time: dict[str, int] = field(default_factory=dict)
    pending: dict[str, PendingStart] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    system_priority: dict[str, int] = field(default_factory=dict)
    """setspri: job id -> system priority, over what the resource manager reports."""
    run_now: set[str] = field(default_factory=set)
    """runjob: jobs to start at the first chance, ahead of all, past throttling limits."""
    queue_policy: Any = None
    """The queue policy object (maui_py.priority.policy); its dump() is what lasts."""
    predictions: dict[str, Prediction] = field(default_factory=dict)
    """Runtime predictions (PREDICTIONPOLICY): job id -> what plans its end."""
    history: dict[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    """user -> (runtime, request) of their last completed jobs, oldest first (predictions)."""
    # caches (not persisted)
    table: Planner | None = None
    table_seq: int = -1
    table_nodes: tuple[Node, ...] | None = None
    running: dict[str, tuple] = field(default_factory=dict)
    compiled: dict[str, tuple] = field(default_factory=dict)
    external: dict[str, tuple] = field(default_factory=dict)
    standing: tuple | None = None
    nodecfg: tuple | None = None
    counting: list | None = None
    engine: Any = None
    changes: Any = None
    """What the last cycle leaves for a cycle from what changed (core/changes.py)."""
    selection: Any = None
    """The last cycle's eligible jobs in priority order (core/selection.py)."""
    reserved_stamp: int = -1
    """table.freed at the end of the last cycle: every reservation held then was at its
    earliest start as of that stamp (policy/kept.py); -1 when none is known (a fresh state,
    reservations read from the store)."""

    def by_job(self) -> tuple[dict, ...]:
        """The persisted maps keyed by job id: what goes when a job leaves the system."""
        return (self.reservations, self.deferred, self.batch_holds, self.start_counts, self.bypass,
                self.queue_time, self.pending, self.failed, self.compiled, self.system_priority,
                self.predictions)

    def note_failures(self, failures) -> None:
        """Record starts the adapter reports as failed, for the next cycle to act on."""
        for f in failures:
            self.failed[f.job_id] = f.reason
