"""The immutable view of a cluster that one scheduling cycle works from."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from .job import Job
from .node import Node
from .reservation import Reservation
from .slots import compile_filler


@dataclass(frozen=True, slots=True)
class SnapshotDelta:
    """Optional hint from an adapter: how this snapshot differs from snapshot `prev_seq`.

    Adapters that know their changes (the simulator) pass it so the cycle can update its
    cached reservation table in O(changes) instead of diffing every running job. A cycle
    given a wrong or stale hint falls back to a full diff; the result is the same.

    An adapter that fills `arrived` and `jobs` promises that the jobs not named in started,
    ended, changed or arrived are the very objects of snapshot `prev_seq`: then a cycle that
    finds only arrivals may skip the jobs already queued (core/changes.py).
    """

    prev_seq: int
    started: frozenset[str] = field(default_factory=frozenset)
    ended: frozenset[str] = field(default_factory=frozenset)
    changed: frozenset[str] = field(default_factory=frozenset)
    nodes_changed: bool = False
    arrived: tuple[str, ...] = ()
    """Jobs new since `prev_seq`, in the order the snapshot lists them."""
    jobs: dict[str, Job] = field(default_factory=dict)
    """The current object of every job in started, changed and arrived."""


@dataclass(frozen=True, slots=True)
class ClusterSnapshot:
    """now (epoch seconds), nodes, every known job, and externally defined reservations."""

    now: int
    nodes: tuple[Node, ...]
    jobs: tuple[Job, ...]
    reservations: tuple[Reservation, ...] = ()
    seq: int = 0
    delta: SnapshotDelta | None = None

    def running(self) -> list[Job]:
        return [j for j in self.jobs if j.state.active]

    def queued(self) -> list[Job]:
        return [j for j in self.jobs if not j.state.active and not j.state.finished]

    def job(self, job_id: str) -> Job | None:
        for j in self.jobs:
            if j.id == job_id:
                return j
        return None


def _builder(cls):
    """A function taking every field of `cls` positionally, in declaration order, that
    makes the instance without __init__ (slots.compile_filler). For the simulated resource
    manager, which makes a snapshot and a delta per event."""
    names = [f.name for f in fields(cls)]
    return compile_filler(cls, names, str)


build_delta = _builder(SnapshotDelta)
"""SnapshotDelta(prev_seq, started, ended, changed, nodes_changed, arrived, jobs), every
field given, in that order."""
build_snapshot = _builder(ClusterSnapshot)
"""ClusterSnapshot(now, nodes, jobs, reservations, seq, delta), every field given."""
