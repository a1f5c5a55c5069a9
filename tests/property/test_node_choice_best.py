"""nodechoice._best, the ranking every node choice takes its first nodes from, is
sorted(keys)[:limit] by whichever route it takes (min() for one, a sort for a short list,
heapq.nsmallest for a long one)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.planning import nodechoice


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 8)), max_size=150),
       st.one_of(st.none(), st.integers(0, 160)))
def test_best_is_the_sorted_prefix(pairs, limit):
    keyed = [(g, f, i) for i, (g, f) in enumerate(pairs)]      # unique: each ends with its node
    want = sorted(keyed) if limit is None else sorted(keyed)[:limit]
    assert nodechoice._best(list(keyed), limit) == want
