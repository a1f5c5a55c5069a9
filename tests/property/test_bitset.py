"""The node-set conversions list exactly the set bits, ascending, sparse or dense."""

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.planning.bitset import SEEN, SEEN_SIZE, _seen, first_members, iter_members, mask_of, members


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


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sets(st.integers(0, 12_000), min_size=1, max_size=60), min_size=1, max_size=8))
def test_members_asked_again_are_the_same_and_a_list_of_the_callers_own(sets):
    masks = [mask_of(sorted(s), 12_001) for s in sets]
    for _ in range(2):              # the second round is answered from what it kept
        for m, bits in zip(masks, sets):
            got = members(m)
            assert got == sorted(bits)
            got.append(-1)          # the caller's list: what it keeps is not touched
            got[0] = -2
    for m, bits in zip(masks, sets):
        assert members(m) == sorted(bits)


def test_members_keeps_a_bounded_number_of_small_sets():
    for i in range(3 * SEEN):
        assert members((1 << (i + 5000)) | 1) == [0, i + 5000]
    assert len(_seen) <= SEEN
    big = mask_of(range(0, 4 * SEEN_SIZE, 2))
    assert members(big) == list(range(0, 4 * SEEN_SIZE, 2))
    assert big not in _seen and all(len(v) <= SEEN_SIZE for v in _seen.values())
