"""The change-point index answers or_before exactly under any sequence of updates."""

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.planning.points import PointIndex, SlidingOr

ops = st.lists(st.one_of(
    st.tuples(st.just("put"), st.integers(0, 400), st.integers(0, 15), st.integers(0, 15)),
    st.tuples(st.just("ask"), st.integers(-5, 410), st.just(0), st.just(0)),
    st.tuples(st.just("pop"), st.integers(0, 60), st.just(0), st.just(0)),
), max_size=300)


@settings(max_examples=300, deadline=None)
@given(ops)
def test_or_before_matches_a_plain_fold(seq):
    idx = PointIndex()
    ref: dict[int, tuple[int, int]] = {}
    for op, t, a, b in seq:
        if op == "put":
            idx.put(t, a, 0, b & a)
            if a:
                ref[t] = (a, b & a)
            else:
                ref.pop(t, None)
        elif op == "pop":
            removed = idx.pop_through(t)
            assert len(removed) == sum(1 for x in ref if x <= t)
            ref = {x: v for x, v in ref.items() if x > t}
        else:
            want_a = want_b = 0
            for x, (va, vb) in ref.items():
                if x < t:
                    want_a |= va
                    want_b |= vb
            assert idx.or_before(t) == (want_a, want_b)
        assert idx.times == sorted(ref)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2000), min_size=0, max_size=400, unique=True), st.data())
def test_or_range_and_sliding_window_match_a_plain_fold(times, data):
    idx = PointIndex()
    for t in times:
        idx.put(t, (t * 2654435761) % 1021 + 1, 0, (t * 40503) % 257)
    n = len(idx)

    def fold(lo, hi):
        a = f = 0
        for k in range(lo, hi):
            a |= idx.chg[k]
            f |= idx.full[k]
        return a, f

    for _ in range(20):
        lo = data.draw(st.integers(0, n))
        hi = data.draw(st.integers(lo, n))
        assert idx.or_range(lo, hi) == fold(lo, hi)
    lo = data.draw(st.integers(0, n))
    hi = data.draw(st.integers(lo, n))
    win = SlidingOr(idx, lo, hi)
    assert win.total() == fold(lo, hi)
    while lo < n:
        lo = min(n, lo + data.draw(st.integers(0, 40)))
        hi = max(lo, min(n, hi + data.draw(st.integers(0, 60))))
        assert win.move(lo, hi) == fold(lo, hi)



@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 3000), min_size=40, max_size=300, unique=True),
       st.lists(st.tuples(st.sampled_from(["grow", "shrink", "remove", "add"]),
                          st.integers(0, 10**6), st.integers(0, 1023)), max_size=60),
       st.data())
def test_bucket_ors_stay_exact_as_points_grow_and_shrink(times, seq, data):
    # a put that only adds nodes to a point updates its bucket's cached OR in place; any
    # other drops it: or_range over cached buckets must match a plain fold throughout
    idx = PointIndex()
    for t in times:
        idx.put(t, (t * 2654435761) % 1021 + 1, 0, (t * 40503) % 257)
    for op, at, bits in seq:
        n = len(idx)
        idx.or_range(0, n)                      # caches every bucket wholly inside
        k = at % n if n else 0
        if op == "add" or not n:
            idx.put(3001 + at % 997, bits | 1, 0, bits >> 3)
        elif op == "grow":
            idx.put(idx.times[k], idx.chg[k] | bits, 0, idx.full[k] | (bits >> 2))
        elif op == "shrink":
            a = idx.chg[k] & bits
            idx.put(idx.times[k], a, 0, idx.full[k] & a)
        else:
            idx.put(idx.times[k], 0, 0, 0)
        idx.check()
        n = len(idx)
        lo = data.draw(st.integers(0, n))
        hi = data.draw(st.integers(lo, n))
        want_a = want_f = 0
        for j in range(lo, hi):
            want_a |= idx.chg[j]
            want_f |= idx.full[j]
        assert idx.or_range(lo, hi) == (want_a, want_f)
