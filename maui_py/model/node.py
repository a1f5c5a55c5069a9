"""Compute nodes as the resource manager reports them."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from .resources import Resources


class NodeState(str, Enum):
    """Maui's node states. Only IDLE, RUNNING and BUSY nodes take new work."""

    IDLE = "Idle"          # up, nothing allocated
    RUNNING = "Running"    # up, partly allocated
    BUSY = "Busy"          # up, fully allocated
    DRAINING = "Draining"  # jobs finish, nothing new starts
    DRAINED = "Drained"
    DOWN = "Down"
    UNKNOWN = "Unknown"

    @property
    def usable(self) -> bool:
        return self in (NodeState.IDLE, NodeState.RUNNING, NodeState.BUSY)


@dataclass(frozen=True, slots=True)
class Node:
    """A node: configured resources, state, features and the partitions (classes) it serves.

    `partitions` empty means the node serves every class. `load` is the CPU load the
    resource manager reports (for NODEALLOCATIONPOLICY CPULOAD), `priority` the admin's
    node priority (NODECFG PRIORITY, for NODEALLOCATIONPOLICY PRIORITY).
    """

    name: str
    resources: Resources
    state: NodeState = NodeState.IDLE
    features: frozenset[str] = field(default_factory=frozenset)
    partitions: frozenset[str] = field(default_factory=frozenset)
    priority: int = 0
    load: float = 0.0
    speed: float = 1.0

    def serves(self, job_class: str) -> bool:
        return not self.partitions or not job_class or job_class in self.partitions
