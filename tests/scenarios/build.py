"""Small hand-built clusters, jobs and snapshots for scenario tests."""

from __future__ import annotations

from maui_py.cfg import parse_config
from maui_py.model import ClusterSnapshot, HoldType, Job, JobRequest, JobState, Node, Resources


def cluster(n: int, procs: int = 1, mem: int = 0, prefix: str = "n", **kw) -> tuple[Node, ...]:
    return tuple(Node(f"{prefix}{i}", Resources.of(procs, mem), **kw) for i in range(n))


def job(jid: str, procs: int, wallclock: int, submit: int = 0, *, user: str = "user",
        group: str = "", account: str = "", qos: str = "", class_: str = "",
        start: int | None = None, nodes: tuple[str, ...] = (), per_node: int = 1,
        holds: tuple[HoldType, ...] = (), mem: int = 0, **req) -> Job:
    """An idle job, or a running one when `start` and `nodes` are given."""
    request = JobRequest(tasks=procs, per_task=Resources.of(1, mem), **req)
    kw = {}
    if start is not None:
        kw = dict(state=JobState.RUNNING, start_time=start,
                  allocation=tuple((n, Resources.of(per_node, mem * per_node)) for n in nodes))
    return Job(jid, user, request, wallclock, submit, group=group, account=account, qos=qos,
               class_=class_, holds=frozenset(holds), **kw)


def snapshot(now: int, nodes, jobs, seq: int = 0) -> ClusterSnapshot:
    return ClusterSnapshot(now, tuple(nodes), tuple(jobs), seq=seq)


def config(text: str = ""):
    """The configuration `text` in UTC (TIMEZONE; a line of `text` may set another zone)."""
    return parse_config("TIMEZONE UTC\n" + text, "test.cfg")


def replay(nodes, jobs, cfg_text: str = "", runtimes: dict[str, int] | None = None,
           **options):
    """Run jobs (idle at their submit time) through the simulator with exact runtimes unless
    `runtimes` says otherwise. Returns (result, {job id: (start, kind)})."""
    from maui_py.sim.engine import SimOptions, Simulation
    from maui_py.sim.swf import SimJob
    runtimes = runtimes or {}
    sims = [SimJob(j, runtimes.get(j.id, j.wallclock)) for j in jobs]
    opts = SimOptions(check_table=True, **options)
    res = Simulation(tuple(nodes), sims, config(cfg_text), opts).run()
    assert res.check.ok, res.check.violations
    return res, {k: (r.start, r.kind.value if r.kind else None) for k, r in res.records.items()}
