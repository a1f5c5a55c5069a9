"""What the planner keeps between cycles about the table it planned on: a cache, never persisted.

sync_table (planning/sync.py) brings it in step with each snapshot; sync_reservations
(planning/reservations.py) keeps `external` in step with the non-job reservations. A fresh
PlanCache (a restarted daemon, a command reading the store) makes the next sync build the
table from scratch, which decides the same as one moved forward (the incremental = from-scratch
property test).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from ..model import Allocation, Node
from .api import Planner


@dataclass(slots=True)
class PlanCache:
    """The table, what it was built from, and the holds it carries for the snapshot."""

    table: Planner | None = None
    """The planner (the node table or the count planner), or None before the first sync."""
    seq: int = -1
    """The snapshot sequence number the table was last brought in step with (a SnapshotDelta
    applies only on top of that one)."""
    nodes: tuple[Node, ...] | None = None
    """The node set the table was built from."""
    running: dict[str, tuple[int, int, Allocation]] = field(default_factory=dict)
    """job id -> (start, span, allocation) of each running job's hold on the table."""
    external: dict[str, tuple[tuple, Allocation]] = field(default_factory=dict)
    """owner -> (signature, allocation) of each non-job reservation held on the table."""
