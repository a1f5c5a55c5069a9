"""What a scheduling cycle decides; adapters carry these out."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .job import HoldType
from .resources import Resources

Allocation = tuple[tuple[str, Resources], ...]


class StartKind(str, Enum):
    IMMEDIATE = "IMMEDIATE"  # started in priority order
    RESERVED = "RESERVED"    # started on its priority reservation
    BACKFILL = "BACKFILL"    # started out of order, around reservations


@dataclass(frozen=True, slots=True)
class Start:
    job_id: str
    allocation: Allocation
    kind: StartKind

    @property
    def nodes(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.allocation)


@dataclass(frozen=True, slots=True)
class Reserve:
    job_id: str
    start: int
    end: int
    allocation: Allocation


@dataclass(frozen=True, slots=True)
class Defer:
    job_id: str
    reason: str
    until: int


@dataclass(frozen=True, slots=True)
class Hold:
    job_id: str
    hold: HoldType
    reason: str


@dataclass(frozen=True, slots=True)
class ReleaseHold:
    job_id: str
    hold: HoldType
    reason: str


Decision = Start | Reserve | Defer | Hold | ReleaseHold
