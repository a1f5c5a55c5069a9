"""The settings a scheduling cycle reads, typed and in one place, and the cycle context's
protocol.

Every parameter the cycle and its passes (policy/) look up is read here, once per
configuration, into a frozen `Settings`; a pass reads `c.settings.<name>`, never the
configuration. What a cycle works on besides (the snapshot, the state, the table, what it has
decided so far) is declared, typed, on core.cycle.Cycle, the context every pass is given;
`CycleContext` is the part of it the modules core.cycle itself imports (changes, selection)
read, so that they type against it without importing core.cycle back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol

from ..cfg import SchedulerConfig
from ..cfg.choices import (AccrualPolicy, BackfillMetric, BackfillOrder, BackfillPolicy,
                           ReservationPolicy)
from ..policy import backfill, prediction, standing
from ..policy.priority_pass import RESERVES
from .compat import CompatRules, compat_rules


@dataclass(frozen=True, slots=True)
class Settings:
    """The scalar parameters of one configuration, as a cycle uses them. O(1) to read."""

    compat: CompatRules
    """MAUICOMPAT's rules (core/compat.py)."""
    nap: Any
    """NODEALLOCATIONPOLICY as the node choice takes it (under MAUICOMPAT, a Maui33Order)."""
    bf_policy: BackfillPolicy
    bf_pass: backfill.BackfillPass
    """BACKFILLPOLICY's pass and what the cycle may assume about it (policy/backfill.py)."""
    res_policy: ReservationPolicy
    retry_time: int
    """RESERVATIONRETRYTIME, seconds."""
    defer_time: int
    defer_count: int
    defer_starts: int
    """DEFERSTARTCOUNT, at least 1."""
    overrun: int
    """JOBMAXOVERRUN, seconds."""
    bf_depth: int
    """BACKFILLDEPTH; 0 is no limit."""
    bf_metric: BackfillMetric
    bf_max: int
    """BACKFILLMAXSCHEDULES."""
    accrual: AccrualPolicy
    reject_neg: bool
    qos_flags: Mapping[str, frozenset[str]]
    """QOS name -> its QFLAGS."""
    reserve_always: bool
    """Some QOS has QFLAGS RESERVEALWAYS."""
    no_backfill: frozenset[str]
    """The QOS names with QFLAGS NOBF (backfill skips their jobs)."""
    has_standing: bool
    """Some SRCFG besides DEFAULT: standing reservations are planned."""
    standing_periods: Mapping[str, int]
    """SRCFG name -> its period in seconds, for the standing reservations whose instances
    recur evenly (PERIOD DAY or WEEK, no DAYS subset): the next one can be predicted."""
    nodecfg: bool
    """NODECFG objects change the nodes the resource manager reports."""
    may_reserve: bool
    """Priority reservations are made at all (BACKFILLPOLICY NONE and RESERVATIONPOLICY
    NEVER make none): read once, asked for every job the priority pass looks at."""
    predicting: prediction.Predicting
    bf_order: BackfillOrder
    count_policy: bool
    """The policy lets the count planner plan (planning/counts.py); the cycle still checks
    the nodes and the requests."""


def settings_of(cfg: SchedulerConfig) -> Settings:
    """Read every parameter a cycle uses. O(QOS objects + SRCFG objects)."""
    compat = compat_rules(cfg)
    bf_policy = cfg.get("BACKFILLPOLICY")
    res_policy = cfg.get("RESERVATIONPOLICY")
    qos_flags = {name: obj.get("QFLAGS") or frozenset()
                 for name, obj in cfg.objects("QOSCFG").items()}
    has_standing = any(k != "DEFAULT" for k in cfg.objects("SRCFG"))
    nodecfg = bool(cfg.objects("NODECFG"))
    periods = {"DAY": standing.DAY, "WEEK": standing.WEEK}
    standing_periods = {name: periods[str(attrs.get("PERIOD"))]
                        for name, attrs in cfg.objects("SRCFG").items()
                        if str(attrs.get("PERIOD")) in periods
                        and len(set(attrs.get("DAYS") or ())) in (0, 7)}
    return Settings(
        compat=compat,
        nap=compat.node_order(cfg.get("NODEALLOCATIONPOLICY")),
        bf_policy=bf_policy,
        bf_pass=backfill.PASSES[bf_policy],
        res_policy=res_policy,
        retry_time=int(cfg.get("RESERVATIONRETRYTIME") or 0),
        defer_time=int(cfg.get("DEFERTIME") or 0),
        defer_count=int(cfg.get("DEFERCOUNT") or 0),
        defer_starts=max(1, int(cfg.get("DEFERSTARTCOUNT") or 1)),
        overrun=int(cfg.get("JOBMAXOVERRUN") or 0),
        bf_depth=int(cfg.get("BACKFILLDEPTH") or 0),
        bf_metric=cfg.get("BACKFILLMETRIC"),
        bf_max=int(cfg.get("BACKFILLMAXSCHEDULES") or 10000),
        accrual=cfg.get("JOBPRIOACCRUALPOLICY"),
        reject_neg=bool(cfg.get("REJECTNEGPRIOJOBS")),
        qos_flags=qos_flags,
        reserve_always=any("RESERVEALWAYS" in f for f in qos_flags.values()),
        no_backfill=frozenset(q for q, f in qos_flags.items() if "NOBF" in f),
        has_standing=has_standing,
        standing_periods=standing_periods,
        nodecfg=nodecfg,
        may_reserve=backfill.PASSES[bf_policy].run is not None and bool(RESERVES[res_policy]),
        predicting=prediction.Predicting(cfg),
        bf_order=cfg.get("BFPRIORITYPOLICY"),
        count_policy=(not has_standing and not nodecfg and compat.counts
                      and backfill.PASSES[bf_policy].countable),
    )


class CycleContext(Protocol):
    """What core/changes.py and core/selection.py read and write of the cycle
    (core.cycle.Cycle implements it; its docstrings say what each attribute is)."""

    snap: Any
    cfg: SchedulerConfig
    settings: Settings
    state: Any
    explain: bool
    now: int
    span: Callable[[Any], int]
    engine: Any
    limits: Any
    table: Any
    by_id: dict[str, Any]
    running: list
    held: dict
    access: dict
    _ign_cache: dict
    policy: Any
    passive_policy: bool
    decisions: list
    reports: dict
    started: set[str]
    positions: list[int]
    priorities: dict
    reserve_decisions: list
    pass_defers: bool
    res_started: bool
    pass_end: tuple | None
    kept_head: bool

    def select(self, queued: list) -> list: ...

    def serv(self) -> Any: ...

    def _priority(self, job: Any) -> float: ...
