"""QUEUEPOLICY's registry: the queue policy a configuration asks for.

policy.py holds the protocol and Maui's own order; armada.py and fbsng.py build on it. The
registry imports all three, so none of them imports another (no import circle).
"""

from __future__ import annotations

from typing import Any

from .armada import ArmadaPolicy
from .fbsng import FbsngPolicy
from .policy import FairShareHost, MauiFairShare, MauiOrder, QueuePolicy


def _maui(cfg) -> FairShareHost:
    fs_on = cfg.get("FSPOLICY") != "NONE"
    return MauiFairShare(cfg) if fs_on else MauiOrder(cfg)


POLICIES: dict[str, Any] = {"MAUI": _maui, "ARMADA": ArmadaPolicy, "FBSNG": FbsngPolicy}
"""QUEUEPOLICY name -> factory(cfg)."""


def make_queue_policy(cfg) -> QueuePolicy:
    """The policy the configuration asks for (QUEUEPOLICY; MAUI when unset)."""
    name = str(cfg.get("QUEUEPOLICY")).upper()
    factory = POLICIES.get(name)
    if factory is None:
        raise ValueError(f"QUEUEPOLICY {name}: unknown (known: {', '.join(sorted(POLICIES))})")
    return factory(cfg)
