"""Cycle._forget_gone: what the state keeps for jobs that left the snapshot goes, at once for
the persisted maps; the compiled-request cache (hits checked by job identity) is swept once
it outgrows twice the jobs, so it stays bounded without a walk over it every cycle."""

from __future__ import annotations

from maui_py.cfg import parse_config
from maui_py.core.cycle import run_cycle
from maui_py.core.state import SchedulerState
from maui_py.model import ClusterSnapshot, Job, JobRequest, Node, Resources

NODES = (Node("n0", Resources(procs=1, mem=1000)),)
CFG = parse_config("RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n")


def queued(k: int, n: int = 5) -> tuple[Job, ...]:
    return tuple(Job(f"j{k}-{i}", "u", JobRequest(tasks=2, per_task=Resources(1, 0)), 60, 900)
                 for i in range(n))


def test_the_compiled_cache_stays_within_twice_the_jobs_plus_a_margin():
    state = SchedulerState()
    for k in range(200):            # each cycle's jobs are new: the last cycle's all left
        jobs = queued(k)
        state = run_cycle(ClusterSnapshot(1000 + k, NODES, jobs), CFG, state,
                          explain=False).state
        assert len(state.caches.compiled) <= 2 * len(jobs) + 64 + len(jobs), k
        assert all(state.caches.compiled[j.id][0] is j for j in jobs)


def test_persisted_maps_forget_a_job_the_cycle_it_leaves():
    state = SchedulerState()
    first = queued(0)
    state = run_cycle(ClusterSnapshot(1000, NODES, first), CFG, state, explain=False).state
    assert set(state.deferred) == {j.id for j in first}     # two tasks on one processor
    state = run_cycle(ClusterSnapshot(1060, NODES, first[1:]), CFG, state,
                      explain=False).state
    assert set(state.deferred) == {j.id for j in first[1:]}
