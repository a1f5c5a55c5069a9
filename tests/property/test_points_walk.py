"""PointIndex's kept walk (points.PREFIX_WALK): sets_before from the composed effect of the
first points equals the bucket walk (the switch off) and a plain fold of the points, for
any sets given, as points are put, changed, removed and popped at the front between
questions; check() holds (every kept entry is the fold of the points it covers)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.planning import points
from maui_py.planning.points import PointIndex

from .test_points_advance import fold_sets


def _off(idx: PointIndex, i: int, idle: int, full: int) -> tuple[int, int]:
    was, points.PREFIX_WALK = points.PREFIX_WALK, False
    try:
        return idx.sets_before(i, idle, full)
    finally:
        points.PREFIX_WALK = was


_step = st.one_of(
    st.tuples(st.just("put"), st.integers(0, 600), st.integers(0, 1 << 12),
              st.integers(0, 1 << 12), st.integers(0, 1 << 12)),
    st.tuples(st.just("ask"), st.integers(0, 10 ** 6), st.integers(0, 1 << 12),
              st.integers(0, 1 << 12), st.just(0)),
    st.tuples(st.just("pop"), st.integers(0, 40), st.just(0), st.just(0), st.just(0)))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 600), min_size=0, max_size=200, unique=True),
       st.lists(_step, min_size=1, max_size=80))
def test_kept_walk_equals_the_bucket_walk_and_the_fold(times, steps):
    idx = PointIndex()
    for t in times:
        c = (t * 2654435761) % 4093 + 1
        idx.put(t, c, c & (t * 97), c & (t * 40503) & ~(c & (t * 97)))
    now = 0
    for op, a, b, c, d in steps:
        if op == "put":             # chg 0 removes the point; idle and full inside chg
            idx.put(now + a + 1, b, b & c, b & d & ~(b & c))
        elif op == "pop":
            now += a
            idx.pop_through(now)
        else:
            i = a % (len(idx) + 1)
            got = idx.sets_before(i, b, c)
            assert got == _off(idx, i, b, c) == fold_sets(idx, i, b, c)
        idx.check()


def test_a_stale_walk_fails_check():
    """The mutant the property test must catch: a change at a point the walk covers that
    leaves the walk as it was (check() names it, and the answer is wrong)."""
    idx = PointIndex()
    for t in range(1, 40):
        idx.put(t, 1 << (t % 7), 1 << (t % 7), 0)
    assert idx.sets_before(30, 0, 0) == fold_sets(idx, 30, 0, 0)
    kept = list(idx._walk)
    idx.put(5, 1 << 9, 0, 1 << 9)
    assert len(idx._walk) == 5, "a change at point 4 (time 5) keeps the walk over points 0..3"
    idx._walk[:] = kept              # the mutant: nothing dropped
    with pytest.raises(AssertionError, match="stale walk"):
        idx.check()
    assert idx.sets_before(30, 0, 0) != fold_sets(idx, 30, 0, 0)
