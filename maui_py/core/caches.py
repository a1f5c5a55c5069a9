"""What a cycle keeps for the next one to go faster: caches, never persisted, each typed.

A SchedulerState carries one CycleCaches (`state.caches`); a state read from the store has
empty ones, and the first cycle rebuilds what it needs (deciding the same: the incremental =
from-scratch property test). Each entry says what it was made from; a cycle checks that by
identity before using it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..cfg import SchedulerConfig
from ..model import Node, Reservation
from ..planning.memo import Carried, VectorShrinkMemo
from ..planning.plancache import PlanCache
from ..policy.inplace import Made
from ..policy.kept import Stamps
from ..policy.limits import Limits
from ..policy.reservation import ReservationGroups
from ..priority.engine import PriorityEngine
from .context import Settings, settings_of
from .jobsets import JobSets
from .selection import FsTails, SelectionCache


@dataclass(slots=True)
class EngineCache:
    """What one configuration and one node set (by totals) make once."""

    cfg: SchedulerConfig
    nodes: tuple[Node, ...]
    totals: tuple[int, int]
    """(processors, memory) of all nodes: the priority engine's resource factors scale by it."""
    engine: PriorityEngine
    limits: Limits
    groups: ReservationGroups
    settings: Settings


@dataclass(slots=True)
class CountingCache:
    """Whether a node set lets the count planner plan, and which requests it can plan."""

    nodes: tuple[Node, ...]
    applies: bool
    requests: dict[int, tuple[Any, bool]] = field(default_factory=dict)
    """id(request) -> (request, countable): checked by identity."""


@dataclass(slots=True)
class StandingCache:
    """The SRCFG instances for a configuration and node set, good until `until`."""

    cfg: SchedulerConfig
    nodes: tuple[Node, ...]
    until: int
    items: list[tuple[Reservation, Any]]


@dataclass(slots=True)
class NodecfgCache:
    """The nodes as NODECFG changes them, for one snapshot's nodes and configuration."""

    nodes: tuple[Node, ...]
    cfg: SchedulerConfig
    applied: tuple[Node, ...]


@dataclass(slots=True)
class CycleCaches:
    """Every cache a cycle leaves for the next one."""

    plan: PlanCache = field(default_factory=PlanCache)
    """The reservation table and the holds synced onto it (planning/sync.py)."""
    compiled: dict[str, tuple] = field(default_factory=dict)
    """job id -> (job, table, compiled request, cfg, system violation), checked by identity;
    swept once it outnumbers twice the jobs (Cycle._forget_gone)."""
    engine: EngineCache | None = None
    counting: CountingCache | None = None
    standing: StandingCache | None = None
    nodecfg: NodecfgCache | None = None
    jobsets: JobSets | None = None
    """The last full cycle's snapshot split into running, queued and by id (core/jobsets.py)."""
    changes: Any = None
    """What the last cycle leaves for a cycle from what changed (core/changes.ChangeCache)."""
    selection: SelectionCache | None = None
    """The last cycle's eligible jobs in priority order (core/selection.SelectionCache)."""
    fs_tails: FsTails | None = None
    """The (TARG, FS) priority components per fair-share subfactor set, for one engine and
    cycle (core/selection.FsTails)."""
    view_totals: tuple | None = None
    """(table, its usable-node mask, their total resources) for the queue policy's view
    (Cycle._view): the totals walk every node, so they are kept while both stay."""
    reserved_stamp: int = -1
    """table.freed at the end of the last cycle: every reservation held then was at its
    earliest start as of that stamp (policy/kept.py); -1 when none is known (a fresh state,
    reservations read from the store)."""
    kept_stamps: Stamps | None = None
    """Where each kept reservation (HIGHEST) was last known at its earliest start
    (policy/kept.Stamps), for one planner."""
    shrink: VectorShrinkMemo | None = None
    """The last cycle's start-now failures (core/cycle.Cycle.shrink), which the next one
    asks again with what was given back since (planning/memo.Carried)."""
    inplace: Made | None = None
    """The epoch at which each CURRENTHIGHEST reservation was last what its re-make gives
    (policy/inplace.Made), for one planner and configuration."""

    def carry(self, shrink: VectorShrinkMemo, now: int) -> Carried | None:
        """A new cycle's start-now memo `shrink` is kept for the next cycle; the last
        cycle's, asked with what was given back since (planning/memo.Carried), is handed
        back (None: none). Made before the cycle moves the planner to `now`. O(points
        passed by now)."""
        prev, self.shrink = self.shrink, shrink
        return None if prev is None else Carried(prev, self.plan.table, now, shrink)


def totals_of(nodes) -> tuple[int, int]:
    """(processors, memory) of all nodes. O(N)."""
    return sum(n.resources.procs for n in nodes), sum(n.resources.mem for n in nodes)


def engine_for(caches: CycleCaches, cfg: SchedulerConfig, nodes) -> tuple[EngineCache, bool]:
    """The priority engine, limits, reservation groups and settings for `cfg`, made again
    when the configuration or the nodes' totals change; and whether the configuration is
    new. O(1) when cached, O(N) when the node set is another with maybe the same totals."""
    eng = caches.engine
    new_cfg = eng is None or eng.cfg is not cfg
    if new_cfg or (eng.nodes is not nodes and eng.totals != totals_of(nodes)):
        totals = totals_of(nodes)
        eng = caches.engine = EngineCache(cfg, nodes, totals, PriorityEngine(cfg, *totals),
                                          Limits(cfg), ReservationGroups(cfg), settings_of(cfg))
    eng.nodes = nodes
    return eng, new_cfg
