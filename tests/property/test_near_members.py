"""planning/bitset.NearMembers (a set written out by patching the list of one asked lately
that differs in a few bits) against bitset.members, its definition: on sequences of sets
each a few bits away from one of the last few (as a cycle's start-now questions ask them),
far away, or equal, every list handed out must be members() of its set and the kept lists
must stay so (NearMembers.check). And the node table's LASTAVAILABLE start-now answers
with the patched lists (Compiling.use_near) must equal those without, start after start,
with the table's invariants (its _check, which checks the kept lists too) after each."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maui_py.planning.bitset import NearMembers, members

from .both_ways import GPUS, answer, assert_same
from .strategies import requests
from .test_later_instant_properties import later_table
from .test_table_properties import SETTINGS


@SETTINGS
@given(st.data())
def test_patched_lists_are_the_sets_members(data):
    size = data.draw(st.sampled_from([8, 70, 1000, 20_000]))
    bits = st.integers(0, size - 1)
    near = NearMembers()
    asked = [0]
    for _ in range(data.draw(st.integers(1, 30))):
        how = data.draw(st.sampled_from(["flip", "flip", "flip", "same", "fresh"]))
        mask = asked[-data.draw(st.integers(1, min(len(asked), 6)))]
        if how == "fresh":
            mask = 0
            for i in data.draw(st.lists(bits, max_size=80)):
                mask |= 1 << i
        elif how == "flip":
            for i in data.draw(st.lists(bits, max_size=NearMembers.NEAR + 4)):
                mask ^= 1 << i
        got = near.members(mask)
        assert got == members(mask)
        near.check()
        asked.append(mask)


@SETTINGS
@given(st.data())
def test_lastavailable_start_now_with_patched_lists_is_the_same(data):
    table, _first = later_table(data)
    for k in range(data.draw(st.integers(1, 12))):
        req = data.draw(requests(table.nodes, GPUS))
        ask = (req, data.draw(st.integers(1, 600)), None, table.origin, "LASTAVAILABLE",
               data.draw(st.sampled_from(["", "batch"])))
        on = answer(table, {"use_near": True}, *ask)
        assert_same(on, answer(table, {"use_near": False}, *ask))
        if on and data.draw(st.integers(0, 3)):     # mostly started: the next ones meet it
            table.reserve_placement(f"s{k}", on)
        table._check()
