"""The priority pass takes a run of jobs holding a kept reservation in one step
(policy/priority_pass.SKIP_KEPT, kept_run) and decides as the definition, which walks them
one by one: the same decisions, order and persisted maps at every cycle, and the same
pass state (counts per reservation group) in the cache a cycle leaves, under HIGHEST and
CURRENTHIGHEST with two reservation groups of small depths (so the counts decide who may
still reserve), with and without throttling limits (parked jobs: the run is not taken);
each side's planner checked (`_check()`)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core.cycle import run_cycle
from maui_py.core.state import SchedulerState
from maui_py.model import ClusterSnapshot, Job, JobRequest, JobState, Node, Resources, Start
from maui_py.policy import priority_pass

from .on_off import cycle_with, limited_arrivals
from .queue_steps import edit_queue

GROUPS = ["RESERVATIONDEPTH[0] {a}\nRESERVATIONQOSLIST[0] long\n"
          "RESERVATIONDEPTH[1] {b}\nRESERVATIONQOSLIST[1] [ALL]\n",
          "RESERVATIONDEPTH {a}\n"]
LIMITS = ["", "", "USERCFG[u0] MAXJOB=1,2 MAXPROC=3\n", "QOSCFG[long] MAXJOB=2\n"]


@st.composite
def scenarios(draw):
    nodes = tuple(Node(f"n{i}", Resources(procs=draw(st.sampled_from([2, 4])), mem=4000))
                  for i in range(draw(st.integers(1, 3))))
    groups = draw(st.sampled_from(GROUPS)).format(a=draw(st.integers(1, 6)),
                                                   b=draw(st.integers(1, 6)))
    text = (groups + "BACKFILLPOLICY FIRSTFIT\nDEFERTIME 60\nDEFERCOUNT 2\n"
            f"QUEUETIMEWEIGHT 1\nRESERVATIONPOLICY {draw(st.sampled_from(['HIGHEST', 'CURRENTHIGHEST']))}\n"
            + draw(st.sampled_from(LIMITS)))
    kinds = ["arrive", "arrive", "arrive", "arrive", "end", "end", "hold", "release", "copy",
             "tick"]
    steps = [(draw(st.sampled_from(kinds)), draw(st.integers(0, 10_000)))
             for _ in range(draw(st.integers(6, 30)))]
    return nodes, text, steps


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_a_pass_counting_kept_runs_in_one_step_decides_as_the_walk_one_by_one(sc):
    nodes, text, steps = sc
    cfg = parse_config(text)
    jobs: dict[str, Job] = {}
    on, off = SchedulerState(), SchedulerState()
    now = 1000
    for k, (kind, pick) in enumerate(steps):
        now += 30
        if kind == "arrive":
            jobs.update(limited_arrivals(k, pick, now))
        else:
            edit_queue(jobs, kind, pick)
        snap = ClusterSnapshot(now, nodes, tuple(jobs.values()))
        got = cycle_with(priority_pass, "SKIP_KEPT", True, snap, cfg, on)
        want = cycle_with(priority_pass, "SKIP_KEPT", False, snap, cfg, off)
        assert got.decisions == want.decisions, f"step {k} ({kind})"
        assert got.order == want.order, f"step {k} ({kind})"
        for name in ("deferred", "batch_holds", "queue_time", "reservations", "bypass"):
            assert getattr(got.state, name) == getattr(want.state, name), f"step {k}: {name}"
        a, b = got.state.caches.changes, want.state.caches.changes
        assert (a is None) == (b is None), f"step {k}"
        if a is not None:
            assert a.pass_end == b.pass_end, f"step {k}"
        on, off = got.state, want.state
        for d in got.decisions:
            if isinstance(d, Start):
                jobs[d.job_id] = replace(jobs[d.job_id], state=JobState.RUNNING, start_time=now,
                                         allocation=d.allocation)


def test_kept_run_counts_each_group_and_stops_at_the_first_job_without_one():
    """A run of four kept jobs in two groups, then one without: counted 3 + 1 (added to
    what the counts held), the place after the run returned; a started job in the run
    (which Cycle.start never leaves holding one) makes it count only the first."""
    kr = lambda g: type("KR", (), {"group": g})()        # noqa: E731 (a stand-in record)
    res = {"a": kr(0), "b": kr(1), "c": kr(0), "d": kr(0), "x": kr(1)}
    order = [(Job(j, "u", JobRequest(tasks=1, per_task=Resources(1, 0)), 60, 0), None, 0.0)
             for j in ("s", "a", "b", "c", "d", "e", "x")]
    counts = {0: 2}
    assert priority_pass.kept_run(res, set(), order, 1, counts) == 5
    assert counts == {0: 5, 1: 1}
    counts = {}
    assert priority_pass.kept_run(res, {"c"}, order, 1, counts) == 2
    assert counts == {0: 1}


@pytest.mark.parametrize("skip", [True, False])
def test_a_deep_highest_queue_is_counted_in_runs(skip, monkeypatch):
    """Under HIGHEST with depth 3, three wide jobs behind a running one hold reservations
    from the first cycle on; in the next cycle the pass takes them as one run (with the
    switch on), and the fourth wide job, beyond the depth, gets none either way."""
    runs = []
    real = priority_pass.kept_run
    monkeypatch.setattr(priority_pass, "kept_run",
                        lambda *a: runs.append(a[3]) or real(*a))
    monkeypatch.setattr(priority_pass, "SKIP_KEPT", skip)
    cfg = parse_config("RESERVATIONDEPTH 3\nRESERVATIONPOLICY HIGHEST\nQUEUETIMEWEIGHT 1\n")
    nodes = (Node("n0", Resources(procs=4, mem=4000)),)
    wide = JobRequest(tasks=4, per_task=Resources(1, 0))
    run = Job("r", "u0", wide, 5000, 900, state=JobState.RUNNING, start_time=950,
              allocation=(("n0", Resources(procs=4, mem=0)),))
    queued = [Job(f"w{i}", "u1", wide, 600, 960 + i) for i in range(3)]
    state = run_cycle(ClusterSnapshot(1000, nodes, (run, *queued)), cfg, explain=False).state
    assert list(state.reservations) == ["w0", "w1", "w2"]
    runs.clear()
    late = Job("w3", "u1", wide, 600, 990)
    res = run_cycle(ClusterSnapshot(1030, nodes, (run, *queued, late)), cfg, state,
                    explain=False)
    assert list(res.state.reservations) == ["w0", "w1", "w2"]
    assert runs == ([0] if skip else [])
