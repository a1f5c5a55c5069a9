"""core/firstselect._special (which queued jobs go through Cycle.select: a hold, an unmet
dependency, a system priority, a state entry, a bad shape) asks each condition of the whole
queue first and combines only those some job meets; it must give the per-job definition,
any of the five, and None exactly when no job meets one. And through a whole first cycle,
each condition alone and two together, the per-shape select must decide as Cycle.select
job by job (a held job treated as plain would start: the mutant that leaves holds out of
_special fails the fixed examples)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core import firstselect
from maui_py.core.cycle import run_cycle
from maui_py.core.records import DeferRecord
from maui_py.core.state import SchedulerState
from maui_py.model import (ClusterSnapshot, HoldType, Job, JobRequest, Node, Resources,
                           Start)

FLAGS = st.tuples(st.booleans(), st.booleans(), st.sampled_from([0, 0, 3]), st.booleans(),
                  st.booleans())
"""Per job: held, dependency unmet, system priority, in `own`, bad shape."""


@settings(max_examples=300, deadline=None)
@given(st.lists(FLAGS, min_size=1, max_size=30))
def test_special_is_any_of_the_five_conditions_per_job(rows):
    queued, got, own = [], [], set()
    for k, (held, unmet, spri, mine, bad) in enumerate(rows):
        queued.append(Job(f"j{k}", "u", JobRequest(), 60, 100,
                          holds=frozenset({HoldType.USER}) if held else frozenset(),
                          depends_satisfied=not unmet, system_priority=spri))
        got.append((None, None, bad))
        if mine:
            own.add(f"j{k}")
    ids = [j.id for j in queued]
    want = [bool(h or u or s or m or b) for h, u, s, m, b in rows]
    out = firstselect._special(queued, ids, got, own)
    if any(want):
        assert out == want
        assert all(type(x) is bool for x in out)
    else:
        assert out is None


NODES = tuple(Node(f"n{i}", Resources(procs=4, mem=1000)) for i in range(3))


def _queue() -> list[Job]:
    return [Job(f"j{k}", f"u{k % 2}", JobRequest(tasks=1 + k % 2, per_task=Resources(1, 100)),
                60 + 30 * k, 900 - 7 * k) for k in range(6)]


def _special_jobs(kind: str, jobs: list[Job], state: SchedulerState) -> None:
    """Make job j0 (and for "two", j3 as well) special in one way."""
    if kind in ("hold", "two"):
        jobs[0] = replace(jobs[0], holds=frozenset({HoldType.USER}))
    if kind == "depend":
        jobs[0] = replace(jobs[0], depends_satisfied=False)
    if kind == "setspri":
        state.system_priority["j0"] = 40
    if kind in ("deferred", "two"):
        state.deferred["j3"] = DeferRecord(1, 2000, "by the test")
    if kind == "bad":
        jobs[0] = replace(jobs[0], request=JobRequest(tasks=99, per_task=Resources(1, 100)))


@pytest.mark.parametrize("kind", ["none", "hold", "depend", "setspri", "deferred", "bad", "two"])
def test_a_first_cycle_with_special_jobs_decides_as_job_by_job(kind):
    results = []
    for per_shape in (True, False):
        jobs, state = _queue(), SchedulerState()
        _special_jobs(kind, jobs, state)
        real = firstselect.first_select
        if not per_shape:
            firstselect.first_select = lambda c, q: None
        try:
            r = run_cycle(ClusterSnapshot(1000, NODES, tuple(jobs)),
                          parse_config("RESERVATIONDEPTH 2\nDEFERTIME 60\n"), state,
                          explain=False)
        finally:
            firstselect.first_select = real
        results.append((r.decisions, r.order, dict(r.state.deferred),
                        dict(r.state.batch_holds)))
    assert results[0] == results[1]
    if kind in ("hold", "depend", "bad", "two"):
        assert all(d.job_id != "j0" for d in results[0][0] if isinstance(d, Start)), "j0 started"
