"""What a cycle hands back: its decisions, a report line per job, and the state to keep."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter

from ..model import Decision, Reservation, Reserve, Start
from ..model.report import ReportStatus
from ..priority.engine import Breakdown
from .lazyids import LazyIds
from .state import SchedulerState


@dataclass(frozen=True, slots=True)
class JobReport:
    """Where one job stands after the cycle and why, in one line (checkjob, showq)."""

    job_id: str
    status: ReportStatus
    reason: str
    priority: int | None = None
    start: int | None = None
    nodes: tuple[str, ...] = ()


@dataclass
class CycleResult:
    now: int
    iteration: int
    decisions: list[Decision]
    reports: dict[str, JobReport]
    state: SchedulerState
    order: Sequence[str] = field(default_factory=list)
    """The queued jobs' ids in priority order (core/parked.FullOrder: merged when read)."""
    priorities: dict[str, Breakdown] = field(default_factory=dict)
    held: list[Reservation] = field(default_factory=list)
    """Every reservation held after the cycle: standing, administrative, the resource
    manager's, and (with explain: the store and the commands show them; a replay reads the
    decisions) the priority reservations of jobs (kind JOB), with their nodes."""
    reserve_tail: int = 0
    """How many Reserve decisions end `decisions`: all of them (the cycle lists its
    reservations last, one per reservation held)."""

    def actions(self) -> list[Decision]:
        """The decisions before the Reserve tail: what a resource manager acts on. O(len)."""
        return self.decisions[:len(self.decisions) - self.reserve_tail]

    def starts(self) -> list[Start]:
        return [d for d in self.decisions if isinstance(d, Start)]

    def reservations(self) -> list[Reserve]:
        return [d for d in self.decisions if isinstance(d, Reserve)]


LAZY_ORDER = True
"""A full cycle hands back its order as an OrderIds, the ids written out when first read
(False: the list at once, the definition tests/property/test_order_ids.py compares
against). A replay never reads a cycle's order, and writing out 200,000 ids visits every
queued Job object again after the passes (some 2 % of a first cycle on issue 33's
--large queue)."""

_ID, _ENTRY_JOB = attrgetter("id"), itemgetter(0)


class OrderIds(LazyIds):
    """The job ids of (job, compiled, priority) entries in order, written out when first
    read. The entries are copied (a list of references: O(n) in C, no entry visited), so
    the caller may go on changing its list; entries are tuples and Job objects frozen, so
    the ids read later are those of the cycle that made it."""

    __slots__ = ("_order", "_ids")

    def __init__(self, order: list):
        self._order: list | None = order[:]
        self._ids: list[str] | None = None

    def _all(self) -> list[str]:
        if self._ids is None:
            self._ids = list(map(_ID, map(_ENTRY_JOB, self._order)))
            self._order = None
        return self._ids


def order_ids(order: list) -> Sequence[str]:
    """The ids of `order`'s entries for CycleResult.order: an OrderIds (LAZY_ORDER), else
    the list. O(n) pointer copy; O(n) more when read."""
    if LAZY_ORDER:
        return OrderIds(order)
    return list(map(_ID, map(_ENTRY_JOB, order)))


def nodes_text(nodes: tuple[str, ...]) -> str:
    """Node names for a report line: at most five, then how many more."""
    return ",".join(nodes) if len(nodes) <= 6 else ",".join(nodes[:5]) + f",...(+{len(nodes) - 5})"
