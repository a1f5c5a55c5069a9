"""What the reliability tests share: a small cluster, job builders, the over-allocation check
and one cycle pushed through check -> run_cycle -> store save."""

from __future__ import annotations

from maui_py.cfg import parse_config
from maui_py.core.cycle import run_cycle
from maui_py.core.state import SchedulerState
from maui_py.model import ClusterSnapshot, Job, JobRequest, JobState, Node, Resources
from maui_py.rm.check import check_snapshot
from maui_py.store.journal import capture, cycle_entries

EASY = parse_config("RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n")
NOW = 1_000_000


def node(name: str, procs: int = 4, mem: int = 1000, **gres: int) -> Node:
    return Node(name, Resources.of(procs, mem, gres))


def waiting(jid: str, procs: int = 1, wallclock: int = 600, **kw) -> Job:
    return Job(jid, "alice", JobRequest(procs), wallclock, NOW - 100, **kw)


def running(jid: str, alloc: dict[str, Resources], wallclock: int = 600, **kw) -> Job:
    procs = sum(r.procs for r in alloc.values()) or 1
    kw.setdefault("start_time", NOW - 10)
    return Job(jid, "bob", JobRequest(procs), wallclock, NOW - 200, state=JobState.RUNNING,
               allocation=tuple(alloc.items()), **kw)


def over_allocated(snap: ClusterSnapshot, result) -> list[str]:
    """Nodes where what runs plus what the cycle starts exceeds capacity, or a start on an
    unusable node; [] when the schedule is sound."""
    nodes = {n.name: n for n in snap.nodes}
    used: dict[str, Resources] = {}
    for j in snap.jobs:
        if j.state.active:
            for name, r in j.allocation:
                used[name] = used.get(name, Resources()) + r
    bad = []
    for s in result.starts():
        for name, r in s.allocation:
            if name not in nodes or not nodes[name].state.usable:
                bad.append(f"{s.job_id} started on unusable {name}")
                continue
            used[name] = used.get(name, Resources()) + r
            if not used[name].fits_in(nodes[name].resources):
                bad.append(f"{s.job_id} over-allocates {name}")
    return bad


def one_cycle(snap: ClusterSnapshot, store=None, state=None):
    """check_snapshot -> run_cycle (-> save_cycle): (checked snapshot, warnings, result)."""
    checked, warnings = check_snapshot(snap)
    state = state if state is not None else SchedulerState()
    before = capture(state)
    result = run_cycle(checked, EASY, state)
    if store is not None:
        store.save_cycle(result, checked, journal=cycle_entries(before, result, checked))
    return checked, warnings, result
