"""planning/mrlmerge.merge_all_at: the fold of Maui's MRLMerge remembered across seconds is
the literal fold. The oracle is the fold of merge (MRLMerge as src/MRes.c has it) over
the lists as they stand at each `now`; the memo sees the same nodes again a second later
(ranges from now on shifted with it, the others unchanged), nodes changed in between, and
lists repeated as one object, as planning/maui33.py's re-makes give them."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.planning import mrlmerge
from maui_py.planning.mrlmerge import MAX_MTIME, merge, merge_all_at


def fold(lists):
    g = []
    for s in lists:
        g = merge(g, s)
    return g


@st.composite
def node(draw, now: int):
    """One node's start ranges from `now` on, as MJobGetSNRange/MRLSFromA give them:
    sorted, at most touching, instants allowed, the first maybe from now."""
    out, t = [], now + (0 if draw(st.booleans()) else draw(st.integers(1, 4)))
    for _ in range(draw(st.integers(0, 3))):
        t += draw(st.integers(0, 5)) if out else 0
        length = draw(st.integers(0, 6))
        out.append([t, t + length, draw(st.integers(1, 3)), 1])
        t += length
    if out and draw(st.booleans()):
        out[-1][1] = MAX_MTIME
    return out


def at(s, now):
    """Node s a second or more later: ranges that ended before now dropped, the rest
    started no earlier than now."""
    return [[max(r[0], now), r[1], r[2], r[3]] for r in s if r[1] >= now]


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 50), st.data())
def test_the_remembered_fold_is_the_literal_fold_second_after_second(now, data):
    nodes = data.draw(st.lists(node(now), max_size=7))
    nodes += [nodes[k] for k in data.draw(st.lists(st.integers(0, 6), max_size=3))
              if k < len(nodes)]
    for _second in range(4):
        assert merge_all_at(nodes, now) == fold(nodes)
        now += data.draw(st.integers(1, 3))
        nodes = [at(s, now) for s in nodes]
        changed = data.draw(st.lists(st.integers(0, 9), max_size=2))
        for k in changed:
            if k < len(nodes):
                nodes[k] = data.draw(node(now))


def test_the_memo_is_hit_and_a_miscounted_now_would_show():
    # the same lists at 10 and at 11 (their first ranges from now on, an instant at now
    # kept at now): the second call folds nothing anew.
    mrlmerge._FOLDED.clear()
    lists = [[[10, 20, 1, 1]], [[10, 10, 1, 1], [14, MAX_MTIME, 1, 1]], [[12, 15, 2, 1]]]
    assert merge_all_at(lists, 10) == fold(lists)
    folded = len(mrlmerge._FOLDED)
    later = [at(s, 11) for s in lists]
    later[1] = [[11, 11, 1, 1], [14, MAX_MTIME, 1, 1]]
    assert merge_all_at(later, 11) == fold(later)
    assert len(mrlmerge._FOLDED) == folded


@st.composite
def any_ranges(draw):
    """Start ranges as MRLMerge may be given them: sorted, at most touching, instants
    allowed, tasks and nodes as a merge sums them."""
    out, t = [], draw(st.integers(1, 5))
    for _ in range(draw(st.integers(0, 6))):
        t += draw(st.integers(0, 4)) if out else 0
        length = draw(st.integers(0, 5))
        out.append([t, t + length, draw(st.integers(1, 6)), draw(st.integers(1, 3))])
        t += length
    if out and draw(st.booleans()):
        out[-1][1] = MAX_MTIME
    return out


@settings(max_examples=600, deadline=None)
@given(st.lists(any_ranges(), min_size=1, max_size=6))
def test_the_inlined_merge_step_is_mrlmerges_loop(lists):
    # merge (its loop inlined) against merge_literal (_step, MRLMerge read event by event),
    # pair by pair along a fold, so the list merged so far carries the quirks' rows too
    g = h = []
    for s in lists:
        assert mrlmerge.merge(g, s) == mrlmerge.merge_literal(g, s)
        assert mrlmerge.merge(s, g) == mrlmerge.merge_literal(s, g)
        g, h = mrlmerge.merge(g, s), mrlmerge.merge_literal(h, s)
        assert g == h
