"""A site's own log, read by an importer, cut to what one replay can run: the path both
`maui-sim LOG --format ...` (one replay) and `maui-sim whatif` (shaken replays) take, so
the two replay the same jobs on the same cluster.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ...model import Node
from ..swf import SimJob
from . import load_workload
from .nodes import read_cluster
from .fit import NodeClasses
from .workload import ImportLineWarning, Workload, WorkloadJob, replayable, to_sim_jobs

UNFIT = "fits no set of nodes of the cluster (size, memory, gres or features)"


@dataclass
class ReplayInput:
    """The replayable jobs (in (submit, id) order), their simulator jobs, and how many
    others were left out and why (left_out) or skipped while reading (workload.skipped)."""

    workload: Workload
    jobs: list[WorkloadJob]
    sims: list[SimJob]
    left_out: dict[str, int] = field(default_factory=dict)

    def notes(self) -> str:
        """One line: what was skipped or left out, with counts ("" when nothing was)."""
        parts = [f"{n} {why}" for why, n in {**self.workload.skipped, **self.left_out}.items()]
        return "; ".join(parts)


def replay_input(workload: Workload, eligible_arrival: bool = True) -> ReplayInput:
    """Cut a workload (with its cluster) to the jobs a replay can run: started and ended
    (workload.replayable), and fitting some set of the cluster's nodes."""
    jobs, left_out = replayable(workload)
    sims = to_sim_jobs(jobs, eligible_arrival)
    classes = NodeClasses(workload.nodes)
    unfit = {s.job.id for s in sims if not classes.fits(s.job)}
    if unfit:
        left_out[UNFIT] = len(unfit)
        jobs = [j for j in jobs if j.id not in unfit]
        sims = [s for s in sims if s.job.id not in unfit]
    return ReplayInput(workload, jobs, sims, left_out)


def read_site_log(paths: Sequence[str | Path], fmt: str | None, cluster: str | Path | None,
                  nodes: Sequence[Node] = ()) -> tuple[Workload, list[warnings.WarningMessage]]:
    """The workload of a site's log with its cluster (a sinfo / pbsnodes -x file, else
    `nodes`), and the import warnings caught (malformed lines, file:line) for the caller to
    print."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ImportLineWarning)
        workload = load_workload(list(paths), fmt)
        if cluster:
            workload.nodes = read_cluster(cluster)
    if not cluster and nodes:
        workload.nodes = tuple(nodes)
    return workload, list(caught)
