"""category_moves, the merged walk _record reads, against the categories of both step
functions worked out one by one."""

import random
from bisect import bisect_left

from maui_py.planning.steps import category_moves, usage_falls
from maui_py.planning.table import FOREVER

ZERO = (0, 0)


def _cats(cap, T, U, lo, hi):
    out = {}
    for k in range(max(bisect_left(T, lo), 1), len(T)):
        if T[k] > hi:
            break
        u = U[k]
        out[T[k]] = ((0 if u == ZERO else (2 if u[0] >= cap[0] else 1))
                     + (3 if usage_falls(U[k - 1], u) else 0))
    return out


def _step(rng):
    T = [-FOREVER] + sorted(rng.sample(range(1, 50), rng.randint(0, 6)))
    return T, [(rng.randint(0, 4), rng.randint(0, 3)) for _ in T]


def test_cat_moves_lists_exactly_the_points_whose_category_moved():
    rng = random.Random(5)
    for _ in range(20_000):
        cap = (rng.randint(0, 4), 3)
        oT, oU = _step(rng)
        T, U = _step(rng)
        if rng.random() < 0.5:          # a splice: the same points, a segment changed
            T, U = oT[:], oU[:]
            if len(T) > 1:
                U[rng.randrange(1, len(T))] = (rng.randint(0, 4), rng.randint(0, 3))
        lo, hi = rng.randint(0, 50), rng.randint(0, 55)
        old, new = _cats(cap, oT, oU, lo, hi), _cats(cap, T, U, lo, hi)
        want = [(t, new.get(t, -1)) for t in sorted(old.keys() | new.keys())
                if old.get(t, -1) != new.get(t, -1)]
        assert category_moves(cap, ZERO, oT, oU, T, U, lo, hi) == want
