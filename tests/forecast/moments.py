"""Moments of small replays for the forecast tests: a random workload on a small cluster,
replayed until some cycle, and the system as it stands after that cycle."""

from __future__ import annotations

import random
from dataclasses import dataclass

from maui_py.cfg import SchedulerConfig
from maui_py.cfg.loader import parse_config
from maui_py.cli.simforecast import plan_maker
from maui_py.forecast.engine import Moment
from maui_py.model import Job, JobRequest
from maui_py.sim.cluster import cluster_from_option
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import SimJob

CONSERVATIVE = "RESERVATIONDEPTH[0] 1000\nRESERVATIONQOSLIST[0] [ALL]\nBACKFILLPOLICY FIRSTFIT\n"
"""Every queued job holds a reservation: with runtimes at their requests and no arrivals,
each starts where the plan (showstart) puts it."""


@dataclass
class Taken:
    moment: Moment
    result: object
    cfg: SchedulerConfig


class _Stop(Exception):
    pass


def workload(rng: random.Random, n: int, procs: int) -> list[SimJob]:
    """n jobs of up to `procs` processors, arriving close together (a queue forms); each
    runs its whole request or a share of it."""
    out, t = [], 1000
    for k in range(n):
        t += rng.randrange(0, 300)
        request = rng.randrange(60, 4000)
        runtime = max(1, int(request * rng.choice((1.0, 0.5, 0.1))))
        job = Job(str(k + 1), f"u{rng.randrange(3)}", JobRequest(rng.randrange(1, procs + 1)), request, t)
        out.append(SimJob(job, runtime))
    return out


def take(seed: int, n: int, nodes: int, cycle: int, cfg_text: str = "") -> Taken | None:
    """The moment after the `cycle`-th cycle of a random replay, with some job queued then
    (None when none is: the caller draws again)."""
    rng = random.Random(seed)
    cfg = parse_config(cfg_text) if cfg_text else SchedulerConfig.default()
    cluster = cluster_from_option(f"{nodes}x1")
    got: list[Taken] = []
    seen = [0]
    sim: Simulation

    def on_cycle(t: int, result) -> None:
        seen[0] += 1
        if seen[0] >= cycle:
            live = sim.rm.live()
            if any(not j.state.active for j in live):
                got.append(Taken(Moment(t, sim.nodes, live), result, cfg))
                raise _Stop

    sim = Simulation(cluster, workload(rng, n, nodes), cfg,
                     SimOptions(on_cycle=on_cycle, leave_idle=False, cycle_reserves=False))
    try:
        sim.run()
    except _Stop:
        pass
    return got[0] if got else None


def plan_of(taken: Taken):
    return plan_maker(taken.cfg)(taken.moment, taken.result)
