"""Invariants of the scheduling cycle on random small clusters and queues."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core.cycle import run_cycle
from maui_py.model import (ClusterSnapshot, Job, JobRequest, JobState, Node,
                           Resources, StartKind)
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import SimJob

from .strategies import assert_no_start_after_its_reservation

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def workloads(draw):
    n = draw(st.integers(2, 10))
    procs = draw(st.sampled_from([1, 1, 2, 4]))
    nodes = tuple(Node(f"n{i}", Resources.of(procs)) for i in range(n))
    total = n * procs
    jobs = []
    for k in range(draw(st.integers(3, 22))):
        tasks = draw(st.integers(1, total))
        wc = draw(st.integers(10, 300))
        jobs.append(Job(f"j{k:02d}", f"u{draw(st.integers(0, 2))}",
                        JobRequest(tasks=tasks, per_task=Resources.of(1)), wc,
                        draw(st.integers(0, 400))))
    return nodes, jobs


@st.composite
def configs(draw, policies=("CURRENTHIGHEST", "HIGHEST")):
    depth = draw(st.sampled_from([1, 1, 2, 100]))
    return (f"RESERVATIONDEPTH {depth}\n"
            f"RESERVATIONPOLICY {draw(st.sampled_from(policies))}\n"
            f"BACKFILLPOLICY {draw(st.sampled_from(['FIRSTFIT', 'BESTFIT', 'GREEDY', 'NONE']))}\n"
            f"NODEALLOCATIONPOLICY {draw(st.sampled_from(['LASTAVAILABLE', 'FIRSTAVAILABLE', 'MINRESOURCE']))}\n")


def simulate(nodes, jobs, text, **opts):
    log = []
    sims = [SimJob(j, j.wallclock) for j in jobs]
    res = Simulation(nodes, sims, parse_config(text), SimOptions(
        check_table=True, on_cycle=lambda t, r: log.append((t, r.decisions)), **opts)).run()
    return res, log


@SETTINGS
@given(workloads(), configs())
def test_with_exact_runtimes_no_job_starts_after_its_reservation(wl, text):
    nodes, jobs = wl
    res, log = simulate(nodes, jobs, text)
    assert res.check.ok, res.check.violations          # no node over-allocated, ever
    assert not res.unfinished                            # every job ran and ended
    assert_no_start_after_its_reservation(log, res.records)
    for r in res.records.values():
        assert r.start >= r.job.submit_time


@SETTINGS
@given(workloads(), configs(), st.data())
def test_a_backfill_start_never_moves_a_reservation_made_before_it(wl, text, data):
    nodes, jobs = wl
    now = data.draw(st.integers(0, 450))
    # part of the machine is busy with jobs that started before now
    busy, queued, used = [], [], 0
    for j in jobs:
        if j.submit_time <= now and used + j.procs <= len(nodes) and data.draw(st.booleans()):
            alloc = tuple((nodes[used + k].name, Resources.of(1)) for k in range(j.procs)) \
                if nodes[0].resources.procs == 1 else ()
            if alloc:
                busy.append(Job(j.id, j.user, j.request, j.wallclock, j.submit_time,
                                state=JobState.RUNNING, start_time=max(0, now - 5), allocation=alloc))
                used += j.procs
                continue
        if j.submit_time <= now:
            queued.append(j)
    cfg = parse_config(text)
    snap = ClusterSnapshot(now, nodes, tuple(busy + queued))
    first = run_cycle(snap, cfg)
    reserved = {d.job_id: d.start for d in first.reservations()}
    for d in first.starts():
        if d.kind is not StartKind.BACKFILL:
            continue
        pos = first.order.index(d.job_id)
        ahead = set(first.order[:pos])
        without = ClusterSnapshot(now, nodes, tuple(j for j in snap.jobs if j.id != d.job_id))
        second = run_cycle(without, cfg)
        again = {r.job_id: r.start for r in second.reservations()}
        for jid in ahead & reserved.keys():
            assert again.get(jid) == reserved[jid], (d.job_id, jid)


@SETTINGS
@given(workloads(), configs(("CURRENTHIGHEST", "HIGHEST", "NEVER")))
def test_same_input_same_schedule(wl, text):
    nodes, jobs = wl
    a, log_a = simulate(nodes, jobs, text)
    b, log_b = simulate(nodes, list(reversed(jobs)), text)
    assert log_a == log_b
    assert {k: (r.start, r.nodes) for k, r in a.records.items()} == \
        {k: (r.start, r.nodes) for k, r in b.records.items()}
