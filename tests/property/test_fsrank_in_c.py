"""The fair-share re-ranking's loops in C equal their one-row-at-a-time definitions:
core/fsrank.rank with IN_C (priorities column by column through map() over C operators,
entries made with zip(), and core/selection's kept filter with compress()) gives the same
entries, in the same order, with the same floats to the bit (-0.0, negative weights and
queue times of their own included) as the comprehension; policy/backfill._least with
LEAST_IN_C (accumulate with min) equals the loop from the end; and cycles replayed with
each switch on decide as with it off (decisions, order, priorities, persisted maps), each
side's planner and fair-share tails checked.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.core import fsrank
from maui_py.policy import backfill

from .on_off import limited_arrivals, replay_on_off
from .test_backfill_in_order import scenarios

SETS = [("a", "", "", "", ""), ("b", "g", "", "", ""), ("c", "", "p", "hi", "")]
weights = st.one_of(st.integers(-3, 3), st.floats(-1e3, 1e3, allow_nan=False),
                    st.sampled_from([0.0, -0.0, 1.0, 1e-9]))
statics = st.one_of(st.floats(-1e6, 1e6, allow_nan=False), st.sampled_from([0.0, -0.0, -100.0]))
tails = st.one_of(st.none(), st.tuples(st.floats(-1e4, 1e4, allow_nan=False),
                                       st.floats(-1e4, 1e4, allow_nan=False)),
                  st.just((-0.0, -0.0)))


def _rank(rows, creds, tail_of, now, qt, w, cw, in_c):
    """core/fsrank.rank over `rows` with the switch set (restored after), on a cycle
    object holding only what rank reads (the engine's QUEUETIME terms, the clock, the
    state's queue times)."""
    old, fsrank.IN_C = fsrank.IN_C, in_c
    try:
        c = SimpleNamespace(engine=SimpleNamespace(_qt_terms=(w, 0, 0, cw)), now=now,
                            state=SimpleNamespace(queue_time=qt))
        made = fsrank.Rows(rows, {s: i for i, s in enumerate(creds)}, creds)
        return fsrank.rank(c, made, lambda sets: [tail_of[s] for s in sets])
    finally:
        fsrank.IN_C = old


def _bits(entries):
    return [(e[0].id, e[1], float.hex(float(e[2])), type(e[2])) for e in entries]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5000), statics, st.sampled_from(range(len(SETS))),
                          st.one_of(st.none(), st.integers(0, 6000))), max_size=40),
       st.lists(tails, min_size=len(SETS), max_size=len(SETS)),
       st.integers(0, 6000), weights, weights)
def test_rank_in_c_gives_the_comprehensions_entries_to_the_bit(spec, tail_list, now, w, cw):
    """Rows of jobs with random submit times, static parts, credential sets and queue
    times of their own (some after now: a zero queue time), tails or none per set, any
    QUEUETIME and SERV weights: the same entries in the same order, each priority the
    same float (float.hex tells -0.0 from 0.0) of the same type."""
    jobs = [SimpleNamespace(id=f"j{k}", submit_time=sub) for k, (sub, *_r) in enumerate(spec)]
    rows = [(j, f"cr{k}", s, ci) for k, (j, (_sub, s, ci, _q)) in enumerate(zip(jobs, spec))]
    rows.sort(key=fsrank.row_key)
    qt = {j.id: q for j, (_sub, _s, _ci, q) in zip(jobs, spec) if q is not None}
    tail_of = dict(zip(SETS, tail_list))
    for queue_times in (qt, {}):
        got = _rank(rows, SETS, tail_of, now, queue_times, w, cw, True)
        want = _rank(rows, SETS, tail_of, now, queue_times, w, cw, False)
        assert _bits(got) == _bits(want)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-5, 64), max_size=50))
def test_least_in_c_equals_the_loop_from_the_end(procs):
    """_least's running minimum from the end equals the loop's, and [min(procs[i:])]."""
    old = backfill.LEAST_IN_C
    try:
        backfill.LEAST_IN_C = True
        got = backfill._least(procs)
        backfill.LEAST_IN_C = False
        want = backfill._least(procs)
    finally:
        backfill.LEAST_IN_C = old
    assert got == want == [min(procs[i:]) for i in range(len(procs))]


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_cycles_ranked_in_c_decide_as_cycles_ranked_row_by_row(sc):
    """Fair share or not, limits that bind, holds, releases, copies, ends: the same
    decisions, order, priorities and persisted maps at every step."""
    replay_on_off(fsrank, "IN_C", sc, limited_arrivals, priorities=True,
                  maps=("deferred", "batch_holds", "queue_time", "reservations", "bypass"))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_cycles_with_least_in_c_decide_as_with_the_loop(sc):
    replay_on_off(backfill, "LEAST_IN_C", sc, limited_arrivals, priorities=True,
                  maps=("deferred", "batch_holds", "queue_time", "reservations", "bypass"))


@pytest.mark.parametrize("in_c", [True, False])
def test_the_switch_chooses_the_path(in_c, monkeypatch):
    """rank() takes _priorities_in_c exactly when IN_C is on (else the comparisons above
    would compare the definition with itself)."""
    calls = []
    real = fsrank._priorities_in_c
    monkeypatch.setattr(fsrank, "_priorities_in_c", lambda *a: calls.append(1) or real(*a))
    job = SimpleNamespace(id="j", submit_time=10)
    got = _rank([(job, "cr", 1.5, 0)], SETS, {SETS[0]: (2.0, 0.25)}, 130, {}, 1, 1, in_c)
    assert got == [(job, "cr", 1.5 + 1 * (0.0 + 1 * (120 / 60.0)) + 2.0 + 0.25)]
    assert bool(calls) == in_c
