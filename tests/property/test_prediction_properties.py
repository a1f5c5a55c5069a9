"""Invariants with runtime prediction on (issue 17): no node over-allocated and every job
killed at its request, never at its prediction; with exact predictions no job starts after
the reservation promised to it (a backfilled job never delays one); the same input gives
the same schedule."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core.state import SchedulerState
from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import SimJob

from .strategies import assert_no_start_after_its_reservation

SETTINGS = settings(max_examples=60 * int(os.environ.get("MAUI_TABLE_EXAMPLES_X", "1")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def configs(draw):
    return (f"RESERVATIONDEPTH {draw(st.sampled_from([1, 1, 2, 100]))}\n"
            f"RESERVATIONPOLICY {draw(st.sampled_from(['CURRENTHIGHEST', 'HIGHEST']))}\n"
            f"BACKFILLPOLICY {draw(st.sampled_from(['FIRSTFIT', 'BESTFIT', 'NONE']))}\n"
            f"BFPRIORITYPOLICY {draw(st.sampled_from(['NONE', 'DURATION', 'HWDURATION']))}\n"
            f"NODEALLOCATIONPOLICY {draw(st.sampled_from(['LASTAVAILABLE', 'MINRESOURCE']))}\n"
            "PREDICTIONPOLICY USERAVERAGE\n"
            f"PREDICTIONHISTORY {draw(st.integers(1, 3))}\n"
            f"PREDICTIONCORRECTION {draw(st.sampled_from(['REQUEST', 'INCREMENT', 'DOUBLE']))}\n")


@st.composite
def workloads(draw, exact=False):
    """Nodes, jobs and their runtimes. exact: every job of a user runs the same time, at
    most its request, and the users' history (returned) already holds that runtime."""
    n = draw(st.integers(2, 8))
    procs = draw(st.sampled_from([1, 1, 2]))
    nodes = tuple(Node(f"n{i}", Resources.of(procs)) for i in range(n))
    per_user = {f"u{k}": draw(st.integers(5, 200)) for k in range(3)}
    jobs = []
    for k in range(draw(st.integers(3, 20))):
        user = f"u{draw(st.integers(0, 2))}"
        run = per_user[user] if exact else draw(st.integers(1, 300))
        request = draw(st.integers(max(run, 10), 400)) if exact else draw(st.integers(10, 400))
        jobs.append(SimJob(Job(f"j{k:02d}", user, JobRequest(draw(st.integers(1, n * procs))),
                               request, draw(st.integers(0, 500))), run))
    history = {u: ((r, r),) * 3 for u, r in per_user.items()} if exact else {}
    return nodes, jobs, history


def simulate(nodes, jobs, text, history=None):
    log = []
    state = SchedulerState(history=dict(history or {}))
    res = Simulation(nodes, jobs, parse_config(text), SimOptions(
        check_table=True, state=state, on_cycle=lambda t, r: log.append((t, r.decisions)))).run()
    return res, log


@SETTINGS
@given(workloads(), configs())
def test_no_node_over_allocated_and_jobs_killed_only_at_their_request(wl, text):
    nodes, jobs, _h = wl
    res, _log = simulate(nodes, jobs, text)
    assert res.check.ok, res.check.violations
    assert not res.unfinished
    for sj in jobs:
        r = res.records[sj.job.id]
        assert r.end - r.start == min(sj.runtime, sj.job.wallclock)
        assert r.start >= sj.job.submit_time


@SETTINGS
@given(workloads(exact=True), configs())
def test_with_exact_predictions_no_job_starts_after_its_reservation(wl, text):
    nodes, jobs, history = wl
    res, log = simulate(nodes, jobs, text, history)
    assert res.check.ok, res.check.violations
    runs = {sj.job.id: sj.runtime for sj in jobs}
    assert all(r.estimate == runs[j] and r.corrections == 0 for j, r in res.records.items())
    assert_no_start_after_its_reservation(log, res.records)


@SETTINGS
@given(workloads(), configs())
def test_same_input_same_schedule_with_prediction(wl, text):
    nodes, jobs, _h = wl
    a, log_a = simulate(nodes, jobs, text)
    b, log_b = simulate(nodes, list(reversed(jobs)), text)
    assert log_a == log_b
    assert {k: (r.start, r.nodes, r.estimate) for k, r in a.records.items()} == \
        {k: (r.start, r.nodes, r.estimate) for k, r in b.records.items()}
