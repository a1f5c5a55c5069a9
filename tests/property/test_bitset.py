"""The node-set conversions list exactly the set bits, ascending, sparse or dense."""

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.planning.bitset import first_members, iter_members, mask_of, members


@settings(max_examples=400, deadline=None)
@given(st.sets(st.integers(0, 12_000), max_size=300), st.integers(0, 320))
def test_members_iter_members_and_first_members_agree_with_sorting(bits, k):
    m = 0
    for b in bits:
        m |= 1 << b
    want = sorted(bits)
    assert members(m) == want
    assert list(iter_members(m)) == want
    assert first_members(m, k) == want[:k]
    assert mask_of(want, 12_001) == m
