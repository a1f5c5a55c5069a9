"""What lasts from one scheduling cycle to the next.

The cycle takes a SchedulerState and hands back the updated one; the caller must use the
state it gets back and drop the one it passed in (the reservation table inside is updated
in place rather than copied: copying 10,000 nodes' worth of it every cycle would cost more
than the cycle). Everything a restart must not lose is plain data here, a named field each
(store/state_rows.py writes them to SQLite); the table, the priority engine and the other
caches live apart in `caches` (core/caches.py), typed, rebuilt on demand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..predict.predictors import Prediction
from .caches import CycleCaches
from .records import DeferRecord, KeptReservation, PendingStart


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
    caches: CycleCaches = field(default_factory=CycleCaches, repr=False, compare=False)
    """What the last cycle keeps to go faster (core/caches.py): never persisted; empty in a
    state read from the store."""

    def by_job(self) -> tuple[dict, ...]:
        """The persisted maps keyed by job id: what goes when a job leaves the system."""
        return (self.reservations, self.deferred, self.batch_holds, self.start_counts, self.bypass,
                self.queue_time, self.pending, self.failed, self.system_priority,
                self.predictions)

    def note_failures(self, failures) -> None:
        """Record starts the adapter reports as failed, for the next cycle to act on."""
        for f in failures:
            self.failed[f.job_id] = f.reason
