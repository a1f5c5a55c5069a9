"""The changes a user can make to a queued job, each a function value -> changed job.

A walltime of v seconds; a size of v processors (tasks when a task has several; or v
nodes when the job asks for whole nodes by count: NodeCount x TasksPerNode); another QOS
or class by name. The job keeps its id, submit time and everything else: what it asks for
is all that differs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from ..model import Job


@dataclass(frozen=True)
class Numeric:
    """A count the user may lower: `name` (walltime, procs, nodes), the job's own value,
    the smallest allowed, and the job with value v."""

    name: str
    current: int
    least: int
    make: Callable[[int], Job]


def walltime(job: Job) -> Numeric:
    return Numeric("walltime", job.wallclock, 1, lambda v: replace(job, wallclock=v))


def size(job: Job) -> Numeric:
    """Fewer nodes for a job of NodeCount x TasksPerNode, else fewer tasks (the node count,
    if any, no more than the tasks)."""
    req = job.request
    if req.nodes > 0 and req.tasks_per_node > 0:
        tpn = req.tasks_per_node
        return Numeric("nodes", req.nodes, 1,
                       lambda v: replace(job, request=replace(req, nodes=v, tasks=v * tpn)))
    return Numeric("procs" if req.per_task.procs == 1 else "tasks", req.tasks, 1,
                   lambda v: replace(job, request=replace(req, tasks=v, nodes=min(req.nodes, v))))


NUMERIC = {"walltime": walltime, "procs": size, "tasks": size, "nodes": size}
"""A numeric change's name -> its kind for a job."""


def apply(job: Job, change: str, value: int | str) -> Job:
    """The job with one change of advice (change, value) made: what a user does with it."""
    if change in ("qos", "class"):
        return credential(job, change, str(value))
    kind = NUMERIC[change](job)
    if kind.name != change:
        raise ValueError(f"job {job.id} cannot take a {change} change")
    return kind.make(int(value))


def credential(job: Job, kind: str, name: str) -> Job:
    """The job under QOS or class `name`."""
    return replace(job, qos=name) if kind == "qos" else replace(job, class_=name)
