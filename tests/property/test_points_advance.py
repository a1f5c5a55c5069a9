"""The change-point index as the table's origin moves (PointIndex.pop_through keeps the
buckets wholly after the instant, their cached ORs and sets): with points added after the
last fence and removed at the front, as a replay does cycle after cycle, or_before,
or_range, sets_before and SlidingOr match a plain fold of the points, and check() holds."""

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.planning.points import PointIndex, SlidingOr


def _fold(idx: PointIndex, lo: int, hi: int) -> tuple[int, int]:
    a = f = 0
    for k in range(lo, hi):
        a |= idx.chg[k]
        f |= idx.full[k]
    return a, f


def fold_sets(idx: PointIndex, i: int, idle: int, full: int) -> tuple[int, int]:
    for k in range(i):
        c = idx.chg[k]
        idle = (idle ^ (idle & c)) | idx.idle[k]
        full = (full ^ (full & c)) | idx.full[k]
    return idle, full


def _put(idx: PointIndex, t: int) -> None:
    chg = (t * 2654435761) % 1021 + 1
    idx.put(t, chg, chg & ((t * 97) % 509), chg & ((t * 40503) % 257), chg & (t % 61))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3000), min_size=40, max_size=300, unique=True),
       st.lists(st.tuples(st.integers(0, 120), st.lists(st.integers(1, 900), max_size=12)),
                min_size=1, max_size=25),
       st.data())
def test_queries_stay_exact_as_the_origin_moves(times, steps, data):
    idx = PointIndex()
    for t in times:
        _put(idx, t)
    now = 0
    for gap, later in steps:
        n = len(idx)
        idx.or_range(0, n)                      # warm every cache the pop may keep
        idx.or_before(3000 + now)
        idx.sets_before(n, 0, 0)
        now += gap
        removed = idx.pop_through(now)
        assert all(t > now for t in idx.times) and len(removed) + len(idx) == n
        for x in later:                         # new holds end after now
            _put(idx, now + x + 3000)
        idx.check()
        n = len(idx)
        lo = data.draw(st.integers(0, n))
        hi = data.draw(st.integers(lo, n))
        assert idx.or_range(lo, hi) == _fold(idx, lo, hi)
        x = data.draw(st.integers(now, now + 5000))
        assert idx.or_before(x) == _fold(idx, 0, sum(1 for t in idx.times if t < x))
        i = data.draw(st.integers(0, n))
        assert idx.sets_before(i, 5, 3) == fold_sets(idx, i, 5, 3)
        win = SlidingOr(idx, lo, hi)
        assert win.total() == _fold(idx, lo, hi)
        hi2 = data.draw(st.integers(hi, n))
        lo2 = data.draw(st.integers(lo, hi2))
        assert win.move(lo2, hi2) == _fold(idx, lo2, hi2)
