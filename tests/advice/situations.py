"""Small hand-built moments for the advice tests: nodes, running jobs (start, allocation)
and queued ones at `now`, and the state the cycle at `now` leaves (one replay cycle from a
fresh state: what mauid would have stored)."""

from __future__ import annotations

from maui_py.advice import Situation
from maui_py.cfg import SchedulerConfig
from maui_py.cfg.loader import parse_config
from maui_py.forecast.engine import Moment
from maui_py.model import Job, JobRequest, JobState, Resources
from maui_py.sim.cluster import cluster_from_option
from maui_py.sim.engine import SimOptions, Simulation

NOW = 100_000


def running(jid: str, nodes: list[str], start: int, wallclock: int, user: str = "u0", procs: int = 1,
            **kw) -> Job:
    """A job running since `start` on `nodes`, `procs` processors (one task) on each."""
    return Job(jid, user, JobRequest(len(nodes), Resources(procs=procs)), wallclock, start - 10,
               state=JobState.RUNNING, start_time=start,
               allocation=tuple((n, Resources(procs=procs)) for n in nodes), **kw)


def queued(jid: str, procs: int, wallclock: int, submit: int, user: str = "u0", **kw) -> Job:
    return Job(jid, user, JobRequest(procs), wallclock, submit, **kw)


def situation(spec: str, jobs: list[Job], cfg_text: str = "", now: int = NOW) -> Situation:
    """The moment after the cycle at `now` of a replay holding `jobs` (each running to its
    limit); the jobs that cycle started are running in the moment."""
    cfg = parse_config(cfg_text) if cfg_text else SchedulerConfig.default()
    nodes = cluster_from_option(spec)
    got = []

    def on_cycle(_t, result):
        got.append((sim.rm.live(), result.state))

    sim = Simulation(nodes, (), cfg, SimOptions(on_cycle=on_cycle, cycle_reserves=False,
                                                stop_time=now, present=[(j, j.wallclock) for j in jobs],
                                                present_at=now))
    sim.run()
    live, state = got[-1]
    return Situation(Moment(now, sim.nodes, live), cfg, state)
