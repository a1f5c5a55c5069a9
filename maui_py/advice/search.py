"""The largest value that still keeps a promise, found with as few exact questions as a
guess allows.

`largest(ok, lo, hi, guess)`: the value v in [lo, hi] with ok(v) true and ok(v + 1) false
(v = hi when ok(hi)), None when ok(lo) is false. ok is an exact question (a replay,
advice/replay.py) and need not be monotone: whatever it is, the answer is a boundary, a v
that keeps the promise while v + 1 does not (or the largest value allowed), because the
search keeps one value known true below one known false and narrows them to neighbours.
The caller knows hi + 1 (the job's own request) is false. `guess` is where a cheap
question (the planner's, advice/guide.py) puts the boundary: when it is right, two exact
questions settle it (the guess and the guess + 1); when it is wrong, the search gallops
from it and then bisects: O(log(hi - lo)) exact questions at most about twice over.
"""

from __future__ import annotations

from typing import Callable


def largest(ok: Callable[[int], bool], lo: int, hi: int, guess: int | None = None) -> int | None:
    """See the module. Every value asked is in [lo, hi]; none is asked twice."""
    if hi < lo:
        return None
    seen: dict[int, bool] = {}

    def ask(v: int) -> bool:
        if v not in seen:
            seen[v] = ok(v)
        return seen[v]

    yes, no = lo - 1, hi + 1            # ok(yes) known true (lo - 1: not yet), ok(no) false
    if guess is not None:
        g = min(max(guess, lo), hi)
        if ask(g):
            yes, step = g, 1
            while yes + step < no and ask(yes + step):      # gallop up
                yes, step = yes + step, step * 2
            no = min(no, yes + step)
        else:
            no, step = g, 1
            while no - step > yes and no - step >= lo and not ask(no - step):   # gallop down
                no, step = no - step, step * 2
            yes = max(yes, no - step) if no - step >= lo else yes
    if yes < lo:
        if not ask(lo):
            return None
        yes = lo
    while no - yes > 1:
        mid = (yes + no) // 2
        if ask(mid):
            yes = mid
        else:
            no = mid
    return yes
