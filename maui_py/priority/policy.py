"""Queue policies: how the ordered queue is arranged before reservations and backfill.

The cycle asks its queue policy, in this order:
  charge(now, running)      once per cycle, before anything else: account usage since the
                            last cycle (fair-share windows, Armada queue usage);
  subfactors(job)           the FS priority subfactors (FSUSER, FSGROUP, FSACCOUNT, FSQOS,
                            FSCLASS) of a job, for Maui's priority formula;
  cap_violation(job)        a reason when a fair-share cap (FSTARGET ^ or %) blocks the job;
  arrange(order, view)      given the eligible jobs in priority order, the order in which the
                            cycle should consider them and the jobs it must hold back this
                            cycle (with a reason: FBSNG's thresholds, Armada's slices);
  observe(started, view)    after the cycle, the jobs that started, so the policy can update
                            its own priorities (FBSNG's QPD/QPI/SPG bookkeeping).
MAUI, the default, keeps Maui's priority order and holds nothing back; Maui fair share works
through subfactors/charge/cap_violation under any queue policy. A policy's lasting state is
`dump()`able to plain data and restored with `restore()`, so the state store can keep it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

from ..model import Job


@dataclass(frozen=True, slots=True)
class PolicyView:
    """What a queue policy may look at: the clock, the running jobs, the free and total
    resources of the usable nodes (procs, mem MB, gres) and the configuration."""

    now: int
    running: Sequence[Job]
    free: dict[str, int]
    total: dict[str, int]
    cfg: Any


@dataclass
class Arrangement:
    order: list[Job]
    held: dict[str, str] = field(default_factory=dict)


class QueuePolicy(Protocol):
    name: str

    def charge(self, now: int, running: Sequence[Job]) -> None: ...

    def subfactors(self, job: Job) -> dict[str, float]: ...

    def cap_violation(self, job: Job) -> str | None: ...

    def arrange(self, order: list[Job], view: PolicyView) -> Arrangement: ...

    def observe(self, started: list[Job], view: PolicyView) -> None: ...

    def dump(self) -> dict: ...

    def restore(self, data: dict) -> None: ...


class MauiOrder:
    """QUEUEPOLICY MAUI: Maui's priority order, nothing held back, no fair share."""

    name = "MAUI"

    def charge(self, now: int, running: Sequence[Job]) -> None:
        pass

    def subfactors(self, job: Job) -> dict[str, float]:
        return {}

    def cap_violation(self, job: Job) -> str | None:
        return None

    def arrange(self, order: list[Job], view: PolicyView) -> Arrangement:
        return Arrangement(order)

    def observe(self, started: list[Job], view: PolicyView) -> None:
        pass

    def dump(self) -> dict:
        return {}

    def restore(self, data: dict) -> None:
        pass


def make_queue_policy(cfg) -> QueuePolicy:
    """The policy the configuration asks for (QUEUEPOLICY; MAUI when unset)."""
    try:
        name = str(cfg.get("QUEUEPOLICY") or "MAUI").upper()
    except KeyError:
        name = "MAUI"
    factory = POLICIES.get(name)
    if factory is None:
        raise ValueError(f"QUEUEPOLICY {name}: unknown (known: {', '.join(sorted(POLICIES))})")
    return factory(cfg)


POLICIES: dict[str, Any] = {"MAUI": lambda cfg: MauiOrder()}
