"""QUEUEPOLICY's registry: the queue policy a configuration asks for.

policy.py holds the protocol and Maui's own order; armada.py and fbsng.py build on it. The
registry imports all three, so none of them imports another (no import circle).
"""

from __future__ import annotations

from typing import Any

from ..cfg.choices import FairSharePolicy, QueuePolicyName
from .armada import ArmadaPolicy
from .fbsng import FbsngPolicy
from .policy import FairShareHost, MauiFairShare, MauiOrder, QueuePolicy


def _maui(cfg) -> FairShareHost:
    fs_on = cfg.get("FSPOLICY") != FairSharePolicy.NONE
    return MauiFairShare(cfg) if fs_on else MauiOrder(cfg)


POLICIES: dict[QueuePolicyName, Any] = {QueuePolicyName.MAUI: _maui, QueuePolicyName.ARMADA: ArmadaPolicy,
                                        QueuePolicyName.FBSNG: FbsngPolicy}
"""QUEUEPOLICY -> factory(cfg)."""


def make_queue_policy(cfg) -> QueuePolicy:
    """The policy the configuration asks for (QUEUEPOLICY; MAUI when unset)."""
    return POLICIES[cfg.get("QUEUEPOLICY")](cfg)
