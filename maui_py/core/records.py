"""The per-job records a SchedulerState keeps between cycles: plain named data the store writes.

The passes (policy/) make and read them; they import this module, never core.state (whose
caches import the passes' own modules).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Allocation, StartKind


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
