"""planning/givenback.core_reach is a bound _gained may rely on: wherever _window_in finds a
window of w seconds, meeting the region [x, y) and starting in [lo, y), over which a node
keeps v processors free, core_reach's W[v] is at least w; and W[v] is reached: a window of
W[v] seconds (any length, when FOREVER) with v processors free meets the region from a
start in [lo, y)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.planning.givenback import FOREVER, _window_in, core_reach, free_runs


@st.composite
def steps(draw):
    c0 = draw(st.integers(1, 8))
    times = sorted(draw(st.sets(st.integers(1, 80), max_size=7)))
    T = [0] + times
    U = [(draw(st.integers(0, c0 + 1)),) for _ in T]     # c0 + 1: a node overcommitted
    lo = draw(st.integers(0, 60))
    x = draw(st.integers(0, 80))
    y = x + draw(st.integers(1, 40))
    return c0, T, U, lo, x, y


def _free_over(T, U, c0, t, end) -> int:
    """The fewest processors free at any instant of [t, end) (end None: for ever)."""
    last = len(T) - 1
    return min(c0 - U[k][0] for k in range(last + 1)
               if (k == last or T[k + 1] > t) and (end is None or T[k] < end))


@settings(max_examples=400, deadline=None)
@given(steps(), st.integers(1, 50))
def test_core_reach_bounds_every_window_and_is_reached(s, w):
    c0, T, U, lo, x, y = s
    W = core_reach(T, U, c0, lo, x, y)
    assert W[0] == FOREVER and len(W) == c0 + 1
    for v in range(1, c0 + 1):
        a, b = max(lo, x - w + 1), y - 1
        got = _window_in(T, U, a, b, w, lambda u, v=v: c0 - u[0] >= v) if a <= b else None
        if got is not None:
            assert W[v] >= w, (v, w, W)
        if W[v]:
            starts = sorted({max(t, lo) for t in T if t < y} | {lo})
            end = None if W[v] == FOREVER else W[v]
            assert any(t < y and (end is None or t + end > x)
                       and _free_over(T, U, c0, t, None if end is None else t + end) >= v
                       for t in starts if t < y), (v, W)


@settings(max_examples=400, deadline=None)
@given(steps(), st.integers(1, 50), st.integers(1, 90))
def test_free_runs_hold_every_window_before_a_start(s, w, start):
    """givenback.free_runs, the bound policy/sparse.py bisects: wherever _window_in finds a
    window of w seconds keeping v processors free, meeting the region [x, y) and starting
    in [lo, min(start, y)), a run starts before `start` and lasts at least w; and every
    run is one: v processors free throughout, meeting the region, starting in [lo, y)."""
    c0, T, U, lo, x, y = s
    for v in range(1, c0 + 1):
        runs = free_runs(T, U, c0, v, lo, x, y)
        a, b = max(lo, x - w + 1), min(start, y) - 1
        got = _window_in(T, U, a, b, w, lambda u, v=v: c0 - u[0] >= v) if a <= b else None
        if got is not None:
            assert any(r < start and L >= w for r, L in runs), (v, w, runs, got)
        for r, L in runs:
            assert lo <= r < y and r + L > x, (v, runs)
            assert _free_over(T, U, c0, r, None if L == FOREVER else r + L) >= v, (v, runs)
