"""Whether a cluster could ever run a job, checked against node classes, not nodes.

A site's nodes come in a few kinds (1,000 nodes, three kinds): nodes with the same
resources, features and usability give the same answer to every question `fits` asks, so
they are grouped once into classes (kind, count) and a job is checked against each class:
O(classes) a job instead of O(nodes), and jobs of one shape (array tasks) are answered once.
The answers are the per-node definition's (`fits_node_by_node`, workload.fits's docstring); a
property test compares the two on random clusters and jobs.
"""

from __future__ import annotations

from typing import Iterable

from ...model import Job, Node, Resources


class NodeClasses:
    """The usable nodes of a cluster grouped by (resources, features), with their counts."""

    def __init__(self, nodes: Iterable[Node]):
        counts: dict[tuple[Resources, frozenset[str]], int] = {}
        for n in nodes:
            if n.state.usable:
                key = (n.resources, n.features)
                counts[key] = counts.get(key, 0) + 1
        self.classes = tuple((res, feats, k) for (res, feats), k in counts.items())
        self._seen: dict[tuple, bool] = {}

    def fits(self, job: Job) -> bool:
        """Enough nodes with the job's features, each able to hold a task (or, without a node
        count, room for all its tasks over them)."""
        req = job.request
        key = (req.per_task, req.features, req.nodes, req.tasks)
        hit = self._seen.get(key)
        if hit is None:
            hit = self._seen[key] = self._fits(req.per_task, req.features, req.nodes, req.tasks)
        return hit

    def _fits(self, per_task: Resources, features: frozenset[str], nodes: int, tasks: int) -> bool:
        ok = [(res, k) for res, feats, k in self.classes
              if features <= feats and per_task.fits_in(res)]
        if nodes:
            return sum(k for _res, k in ok) >= nodes
        return sum(per_task.times_fits_in(res) * k for res, k in ok) >= tasks


def fits_node_by_node(job: Job, nodes: Iterable[Node]) -> bool:
    """The definition NodeClasses answers by class: every usable node with the job's features
    looked at for the job. O(nodes); kept as the check of the per-class answer (tests,
    benchmarks/site/fit_check.py)."""
    req = job.request
    ok = [n for n in nodes if n.state.usable and req.features <= n.features
          and req.per_task.fits_in(n.resources)]
    if req.nodes:
        return len(ok) >= req.nodes
    return sum(req.per_task.times_fits_in(n.resources) for n in ok) >= req.tasks
