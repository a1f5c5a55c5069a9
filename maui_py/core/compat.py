"""MAUICOMPAT: which of Maui 3.3's own rules a cycle plans by (docs/compatibility.md S16)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..cfg import SchedulerConfig
from ..cfg.choices import MauiCompat
from ..planning import maui33


@dataclass(frozen=True, slots=True)
class CompatRules:
    """What MAUICOMPAT changes: the node order (planning/maui33.py for 3.3), whether the
    count planner may stand in for the node table (it names no nodes, and Maui's rules
    are about which nodes), and whether backfill goes window by window."""

    node_order: Any
    counts: bool
    windows: bool


COMPAT_RULES: dict[MauiCompat, CompatRules] = {
    MauiCompat.NONE: CompatRules(lambda nap: nap, True, False),
    MauiCompat("3.3"): CompatRules(maui33.order, False, True),
}
"""MAUICOMPAT -> the rules a cycle plans by."""


def compat_rules(cfg: SchedulerConfig) -> CompatRules:
    """The rules MAUICOMPAT names. O(1)."""
    return COMPAT_RULES[cfg.get("MAUICOMPAT")]
