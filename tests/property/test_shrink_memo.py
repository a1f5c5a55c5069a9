"""planning/memo.ShrinkMemo answers as the rule it keeps: a request is known to fail exactly
when, since the epoch last moved, a failure of its shape asking no more tasks for no longer
was noted (issue 33's one memo of "free only shrinks until freed moves")."""

from __future__ import annotations

from hypothesis import given, strategies as st

from maui_py.planning.memo import ShrinkMemo, VectorShrinkMemo

_STEP = st.tuples(st.sampled_from(["note", "ask"]), st.integers(0, 2),
                  st.sampled_from(["a", "b"]), st.integers(1, 6), st.integers(1, 6))


@given(st.lists(_STEP, max_size=60))
def test_the_memo_answers_as_every_failure_noted_at_this_epoch(steps):
    memo = ShrinkMemo()
    noted: list[tuple[str, int, int]] = []
    epoch = None
    for op, e, shape, n, w in steps:
        if e != epoch:
            noted, epoch = [], e
        if op == "note":
            memo.note(e, shape, n, w)
            noted.append((shape, n, w))
        else:
            want = any(s == shape and n >= fn and w >= fw for s, fn, fw in noted)
            assert memo.fails(e, shape, n, w) == want


def test_failures_dominated_by_a_new_one_are_dropped():
    memo = ShrinkMemo()
    memo.note(0, "s", 4, 100)
    memo.note(0, "s", 8, 10)
    memo.note(0, "s", 2, 50)            # answers for (4, 100) too
    assert sorted(memo.failed["s"]) == [(2, 50), (8, 10)]
    assert memo.fails(0, "s", 3, 60) and not memo.fails(0, "s", 1, 60)
    assert not memo.fails(1, "s", 8, 100)   # the epoch moved: nothing is known
    assert memo.failed == {}


_VSTEP = st.tuples(st.sampled_from(["note", "ask"]), st.integers(0, 2),
                   st.sampled_from(["a", "b"]), st.integers(1, 6), st.integers(1, 6),
                   st.tuples(st.integers(0, 3), st.integers(0, 3)))


@given(st.lists(_VSTEP, max_size=60))
def test_the_vector_memo_never_answers_beyond_a_failure_noted_at_this_epoch(steps):
    """VectorShrinkMemo says "fails" only when a failure of its shape asking no more tasks,
    for no longer, of a vector no larger (componentwise) was noted since the epoch last
    moved; and it always says so for the last failure noted (the one it keeps newest)."""
    memo = VectorShrinkMemo()
    noted: list[tuple[str, int, int, tuple[int, int]]] = []
    epoch = None
    for op, e, shape, n, w, d in steps:
        if e != epoch:
            noted, epoch = [], e
        if op == "note":
            memo.note(e, shape, n, w, d)
            noted.append((shape, n, w, d))
            assert memo.fails(e, shape, n, w, d)
            assert len(memo.failed[shape]) <= VectorShrinkMemo.KEEP
        else:
            want = any(s == shape and n >= fn and w >= fw and all(a >= b for a, b in zip(d, fd))
                       for s, fn, fw, fd in noted)
            assert memo.fails(e, shape, n, w, d) <= want
            if noted and noted[-1][0] == shape:
                _s, fn, fw, fd = noted[-1]
                if n >= fn and w >= fw and all(a >= b for a, b in zip(d, fd)):
                    assert memo.fails(e, shape, n, w, d)


def test_a_larger_vector_fails_where_a_smaller_one_did():
    memo = VectorShrinkMemo()
    memo.note(0, "s", 1, 100, (1, 500))
    assert memo.fails(0, "s", 1, 100, (1, 900)) and memo.fails(0, "s", 1, 200, (2, 500))
    assert not memo.fails(0, "s", 1, 100, (1, 400))     # less memory: may fit
    assert not memo.fails(0, "s", 1, 50, (1, 900))      # shorter: may fit
    memo.note(0, "s", 1, 100, (1, 300))                 # answers for (1, 500) too
    assert memo.failed["s"] == [(1, 100, (1, 300))]
    assert not memo.fails(1, "s", 1, 100, (1, 900))     # the epoch moved: nothing is known
