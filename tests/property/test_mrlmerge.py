"""planning/mrlmerge.py: the sweep stands in for Maui's MRLMerge fold only where it gives
the same list. The fold of the literal merge (MRLMerge as Maui's src/MRes.c has it) is the
oracle; node start ranges are drawn as MJobGetSNRange/MRLSFromA make them (sorted, at most
touching, one node each), with and without instant ranges."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.planning.mrlmerge import MAX_MTIME, merge, merge_all, sweep


@st.composite
def node_ranges(draw, instants: bool):
    """One node's start ranges: sorted [start, last start, tasks, 1], each after (or
    touching) the one before, the last maybe open to MAX_MTIME."""
    out, t = [], draw(st.integers(0, 5))
    for _ in range(draw(st.integers(0, 4))):
        t += draw(st.integers(0, 6)) if out else 0
        length = draw(st.integers(0 if instants else 1, 8))
        out.append([t, t + length, draw(st.integers(1, 4)), 1])
        t += length
    if out and draw(st.booleans()):
        out[-1][1] = MAX_MTIME
    return out


def fold(lists):
    g = []
    for s in lists:
        g = merge(g, s)
    return g


@settings(max_examples=400, deadline=None)
@given(st.lists(node_ranges(False), max_size=8), st.data())
def test_the_sweep_is_the_fold_of_mrlmerge_without_instants(lists, data):
    # repeat some lists as the same object, as nodes alike share one cached list
    lists = lists + [lists[k] for k in data.draw(st.lists(st.integers(0, max(0, len(lists) - 1)),
                                                            max_size=4))] if lists else lists
    got = sweep(lists)
    assert got is not None
    assert got == fold(lists)


@settings(max_examples=400, deadline=None)
@given(st.lists(node_ranges(True), max_size=8))
def test_merge_all_is_the_fold_of_mrlmerge(lists):
    assert merge_all(lists) == fold(lists)


def test_the_sweep_declines_instants_and_long_lists():
    assert sweep([[[5, 5, 1, 1]]]) is None
    many = [[[2 * k, 2 * k + 1, 1, 1] for k in range(300)]]
    assert sweep(many) is None and merge_all(many) == fold(many)
