"""Which planner a cycle may use: the count planner (planning/counts.py) is exact only on
identical nodes and for plain one-processor tasks; planning/sync.py builds the node table
otherwise. Kept apart from both planners so that the cycle asks without naming either."""

from __future__ import annotations

from typing import Sequence

from ..model import JobRequest, Node


def counting_applies(nodes: Sequence[Node]) -> bool:
    """Nodes all usable, all alike (processors only, no memory or gres tracked, no
    partitions): the cluster on which counting processors is exact. O(N)."""
    if not nodes:
        return False
    first = nodes[0].resources
    if first.procs <= 0 or first.mem or first.gres:
        return False
    return all(n.resources == first and n.state.usable and not n.partitions for n in nodes)


def counts_request(req: JobRequest) -> bool:
    """A request of plain one-processor tasks the count planner answers exactly. O(1)."""
    pt = req.per_task
    return (pt.procs == 1 and not pt.gres and req.tasks >= 1 and not req.nodes
            and not req.tasks_per_node and not req.features and not req.hostlist
            and not req.exclusive)
