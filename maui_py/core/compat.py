"""MAUICOMPAT: which of Maui 3.3's own rules a cycle plans by (docs/compatibility.md S16)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..cfg import SchedulerConfig
from ..cfg.choices import MauiCompat, ReservationPolicy
from ..planning import maui33, maui33_alloc


def _earliest_start(table, cr, duration: int, now: int, *, policy, ignore=()):
    """maui-py's start for a kept reservation: the earliest, with the others held."""
    return table.earliest_start(cr, duration, now, policy=policy, ignore=ignore)


def _until_settled() -> None:
    """maui-py's walks over the kept reservations: until none moves (policy/highest.py)."""
    return None


@dataclass(frozen=True, slots=True)
class CompatRules:
    """What MAUICOMPAT changes: the node order (planning/maui33.py for 3.3), whether the
    count planner may stand in for the node table (it names no nodes, and Maui's rules
    are about which nodes), whether backfill goes window by window, where a kept
    HIGHEST reservation is re-made (reserve_start), how many times a cycle re-makes
    them (walks(): None for until none moves) and whether they can go on moving with
    nothing new (turns: a replay then cycles each second while they do, sim/engine.py),
    and whether one re-made at the start it had takes the nodes its re-make found
    (repin: Maui's MJobReserve destroys it first, planning/maui33_alloc.py) or keeps its
    own."""

    node_order: Any
    counts: bool
    windows: bool
    reserve_start: Any = _earliest_start
    walks: Any = _until_settled
    turns: bool = False
    repin: bool = False


MAUI33 = CompatRules(maui33.order, False, True,
                     reserve_start=maui33_alloc.reserving(_earliest_start))
"""Maui 3.3's node rules and backfill windows (planning/maui33.py rules 1-3) with maui-py's
HIGHEST: a kept reservation re-made at its earliest start, walked until none moves, each
reservation on MJobReserve's nodes (planning/maui33_alloc.py). What MAUICOMPAT 3.3 was
before MAUI33_HIGHEST reproduced Maui's rotation; kept for the rule tests and as the cheap
variant (test_maui33_rules.py)."""

MAUI33_HIGHEST = replace(MAUI33, reserve_start=maui33_alloc.reserving(maui33.reserve_start),
                         walks=maui33.walks, turns=True, repin=True)
"""MAUI33 with Maui's own HIGHEST re-make (planning/maui33.py rules 4, 5): every priority
reservation made and re-made where MJobGetEStartTime finds a start, one walk a cycle, a
replay cycling each second while they go round until the round's period shows (the
seconds after it left out), a re-made one on the nodes its re-make found (repin,
planning/maui33_alloc.py). What MAUICOMPAT 3.3 selects: with it all 18 recorded Maui runs
reproduce start for start and host for host (tests/scenarios/test_maui_fixtures.py). Its
cost is the rotation's (docs/compatibility.md, Cost): some 6 x the CPU of MAUI33 on
kth-cons-highest, 3 x on sdsc-cons-highest-minresource, and on a real trace under HIGHEST
a replay cycles each second while kept reservations go round; its rules are tested on
their own (tests/scenarios/test_maui33_rules.py)."""

COMPAT_RULES: dict[MauiCompat, CompatRules] = {
    MauiCompat.NONE: CompatRules(lambda nap: nap, True, False),
    MauiCompat("3.3"): MAUI33_HIGHEST,
}
"""MAUICOMPAT -> the rules a cycle plans by."""


def compat_rules(cfg: SchedulerConfig) -> CompatRules:
    """The rules MAUICOMPAT names. O(1)."""
    return COMPAT_RULES[cfg.get("MAUICOMPAT")]


REPLAY_COST = ("MAUICOMPAT 3.3 with RESERVATIONPOLICY HIGHEST: Maui's own HIGHEST re-make "
               "(docs/compatibility.md S11): a replay cycles each second while kept reservations "
               "go round; the first 1,000 HPC2N jobs under FCFS conservative take {cost} "
               "(0.5 s with the default rules); a replay of whole traces takes hours")
"""What a replay under Maui's own HIGHEST re-make costs (measured: docs/compatibility.md, Cost)."""
REPLAY_COST_MEASURED = "708 CPU s (about 12 minutes)"


def replay_cost(cfg: SchedulerConfig) -> str | None:
    """The warning a simulator replay of `cfg` deserves when it cycles each second while kept
    reservations go round (sim/engine._Turn: rules that turn, under HIGHEST), else None. A
    replay with a poll interval or per event does not turn (it cycles as told). O(1)."""
    if not compat_rules(cfg).turns or cfg.get("RESERVATIONPOLICY") is not ReservationPolicy.HIGHEST:
        return None
    return REPLAY_COST.format(cost=REPLAY_COST_MEASURED)
