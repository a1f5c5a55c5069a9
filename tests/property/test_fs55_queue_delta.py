"""The queued jobs' delta (core/jobsets.DELTA: the queue kept by id with its id() set and
how each forward moved it; core/selection.QUEUE_DELTA: _reuse finds the jobs it has not
met from that delta) decides as the definition, which filters the queue job by job and
walks it: snapshots carrying deltas (arrivals, starts, ends, cancellations of queued and
parked jobs, holds, releases, copies) go through both sides, with fair share, throttling
limits that park jobs and depth 1 to 3; the same decisions, order, priorities and
persisted maps at every cycle, each side's job sets checked against the full split and
its parked groups checked. A delta path that keeps a parked job gone from the queue
fails it (the mutant test below)."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core import jobsets, selection
from maui_py.core.cycle import run_cycle
from maui_py.core.state import SchedulerState
from maui_py.model import JobState, Node, Resources, Start

from .on_off import limited_arrivals
from .queue_steps import edit_queue, queue_of
from .test_eligibility_cache import _delta_snapshot
from .test_parked import FAIR, MORE_LIMITS

MAPS = ("deferred", "batch_holds", "queue_time", "reservations", "bypass")
KINDS = ["arrive", "arrive", "arrive", "end", "end", "cancel", "cancel", "hold", "release",
         "copy", "tick"]


@st.composite
def scenarios(draw):
    nodes = tuple(Node(f"n{i}", Resources(procs=draw(st.sampled_from([2, 4])), mem=4000))
                  for i in range(draw(st.integers(1, 3))))
    text = (f"RESERVATIONDEPTH {draw(st.sampled_from([1, 2, 3]))}\n"
            f"BACKFILLPOLICY {draw(st.sampled_from(['FIRSTFIT', 'BESTFIT']))}\n"
            "DEFERTIME 60\nDEFERCOUNT 2\nQUEUETIMEWEIGHT 1\n"
            + draw(st.sampled_from(MORE_LIMITS)) + draw(st.sampled_from(FAIR)))
    steps = [(draw(st.sampled_from(KINDS)), draw(st.integers(0, 10_000)))
             for _ in range(draw(st.integers(6, 30)))]
    return nodes, text, steps


@contextmanager
def switches(value: bool):
    old = jobsets.DELTA, selection.QUEUE_DELTA
    jobsets.DELTA = selection.QUEUE_DELTA = value
    try:
        yield
    finally:
        jobsets.DELTA, selection.QUEUE_DELTA = old


def _cycle(value: bool, snap, cfg, state):
    with switches(value):
        out = run_cycle(snap, cfg, state, explain=False)
    caches = out.state.caches
    if caches.plan.table is not None:
        caches.plan.table._check()
    if caches.jobsets is not None:
        caches.jobsets.check(snap)
    sel = caches.selection
    if sel is not None and sel.parked is not None:
        sel.parked.check(out.state.queue_time)
    return out


def replay(sc) -> None:
    """Both sides through the scenario's delta snapshots, compared at every step."""
    nodes, text, steps = sc
    cfg = parse_config(text)
    jobs: dict = {}
    last: dict = {}
    on, off = SchedulerState(), SchedulerState()
    now = 1000
    for k, (kind, pick) in enumerate(steps):
        now += 40
        if kind == "arrive":
            jobs.update(limited_arrivals(k, pick, now))
        elif kind == "cancel":
            _q, _r, one = queue_of(jobs, pick)
            if one:
                del jobs[one]
        else:
            edit_queue(jobs, kind, pick)
        snap = _delta_snapshot(k + 1, now, nodes, jobs, last)
        last = dict(jobs)
        got, want = _cycle(True, snap, cfg, on), _cycle(False, snap, cfg, off)
        assert got.decisions == want.decisions, f"step {k} ({kind})"
        assert got.order == want.order, f"step {k} ({kind})"
        assert got.priorities == want.priorities, f"step {k} ({kind})"
        for name in MAPS:
            assert getattr(got.state, name) == getattr(want.state, name), f"step {k}: {name}"
        on, off = got.state, want.state
        for d in got.decisions:
            if isinstance(d, Start):
                jobs[d.job_id] = replace(jobs[d.job_id], state=JobState.RUNNING,
                                         start_time=now, allocation=d.allocation)


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_cycles_from_the_queue_delta_decide_as_walking_the_queue(sc):
    replay(sc)


_FIXED = ((Node("n0", Resources(procs=4, mem=4000)),),
          "RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\nQUEUETIMEWEIGHT 1\n"
          "QOSCFG[long] MAXJOB=1 PRIORITY=-100\n" + FAIR[0],
          [("arrive", 4), ("arrive", 8), ("arrive", 12), ("arrive", 0), ("cancel", 0),
           ("arrive", 5), ("cancel", 1), ("end", 0), ("arrive", 2), ("cancel", 2),
           ("tick", 0), ("end", 1), ("arrive", 9), ("cancel", 3), ("tick", 0)])


def test_the_delta_path_runs_and_parks():
    """The fast path answers (some appended jobs found from the delta) while jobs are
    parked, so the comparison above compares the shortcut with the definition."""
    real, got = selection._appended, []

    def spy(sets, queued, kept, parked, live):
        out = real(sets, queued, kept, parked, live)
        got.append((out is not None and len(out), parked is not None and len(parked.ids)))
        return out
    selection._appended = spy
    try:
        replay(_FIXED)
    finally:
        selection._appended = real
    assert any(n for n, _p in got) and any(p for _n, p in got)


def test_a_delta_that_keeps_a_gone_parked_job_fails_the_comparison(monkeypatch):
    """Mutant: the delta path never asks whether a parked job left the queue."""
    real = selection._delta

    def blind(c, cache, queued):
        sets = real(c, cache, queued)
        if sets is not None:
            sets.out = set()
        return sets
    monkeypatch.setattr(selection, "_delta", blind)
    with pytest.raises(AssertionError):
        replay(_FIXED)
