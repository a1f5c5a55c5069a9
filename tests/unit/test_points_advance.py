"""PointIndex.pop_through (the table's origin moving) keeps the cached ORs of the buckets
wholly after the new origin: the work a window's OR is spared, as operation counts."""

from __future__ import annotations

from maui_py.planning.points import PointIndex


class _Counted(PointIndex):
    """An index that counts the point runs it ORs one by one."""
    __slots__ = ("spans",)

    def __init__(self) -> None:
        super().__init__()
        self.spans = 0

    def _or_span(self, lo: int, hi: int) -> tuple[int, int]:
        self.spans += 1
        return super()._or_span(lo, hi)


def _index() -> _Counted:
    idx = _Counted()
    for k in range(1, 401):
        idx.put(10 * k, 1 << (k % 50), 0, 0)
    idx.pop_through(0)
    idx._rebuild()                  # fences over the 400 points: 21 buckets of 19
    return idx


def test_moving_the_origin_keeps_the_later_buckets_ors():
    idx = _index()
    n = len(idx)
    want = idx.or_range(0, n)
    idx.spans = 0
    assert idx.or_range(0, n) == want and idx.spans == 2        # two partial ends only
    assert len(idx.pop_through(15)) == 1                        # the point at 10 goes
    idx.spans = 0
    assert idx.or_range(0, n - 1) == want and idx.spans == 2    # none ORed again
    idx.check()
    idx._rebuild()                  # what every move did before: each bucket ORed again
    idx.spans = 0
    assert idx.or_range(0, n - 1) == want and idx.spans > 15
