"""The data model: frozen dataclasses, integer seconds, memory in MB."""

from .decision import Allocation, Decision, Defer, Hold, ReleaseHold, Reserve, Start, StartKind
from .job import HoldType, Job, JobRequest, JobState
from .node import Node, NodeState
from .reservation import Access, Acl, Reservation, ReservationKind
from .resources import ZERO, Resources
from .snapshot import ClusterSnapshot, SnapshotDelta

__all__ = [
    "Access", "Acl", "Allocation", "ClusterSnapshot", "Decision", "Defer", "Hold", "HoldType", "Job",
    "JobRequest", "JobState", "Node", "NodeState", "ReleaseHold", "Reservation",
    "ReservationKind", "Reserve", "Resources", "SnapshotDelta", "Start", "StartKind", "ZERO",
]
