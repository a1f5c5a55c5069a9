"""A scan's window made from the step functions of the few nodes _split reads
(Scanning.use_few, planning/scan._window_sets) against the SlidingOr over every point of
the window (use_few False, the definition), the other shortcuts on both sides.

On random clusters with running jobs ending one after another and random holds over time
(future reservations on idle nodes among them, which touch a window without being there
at its start), questions are asked open or bounded, from the origin or later, under each
NODEALLOCATIONPOLICY: every answer is the same placement (start, nodes, amounts) either
way; the answers are held in turn (as a priority pass's reservations are) and the table's
invariants hold after each. The shortcut must have answered some windows (few_made)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maui_py.planning.table import ReservationTable

from .both_ways import GPUS, POLICIES, answer, assert_same, spread
from .strategies import clusters, populate, requests
from .test_gain_bound_properties import _staggered
from .test_table_properties import SETTINGS

_made = [0]


@SETTINGS
@given(st.data())
def test_windows_from_few_step_functions_equal_the_sliding_or(data):
    table = ReservationTable(data.draw(clusters(gpus=(0, 2, 4))), origin=1000)
    _staggered(data.draw, table, every=data.draw(st.booleans()))
    populate(data.draw, table, max_holds=data.draw(st.sampled_from([0, 10, 25])), gpus=GPUS)
    table._check()
    for k in range(data.draw(st.integers(1, 8))):
        req = data.draw(requests(table.nodes, GPUS))
        if data.draw(st.booleans()):            # several nodes, as the MPI jobs that wait do
            req = spread(data.draw, req, 2, 2, 8)
        w = data.draw(st.integers(1, 600))
        after = table.origin + data.draw(st.sampled_from([0, 0, 40, 120, 250]))
        until = data.draw(st.sampled_from([None, None, None, after + 300]))
        policy = data.draw(st.sampled_from(POLICIES))
        ask = (req, w, after, until, policy, data.draw(st.sampled_from(["", "batch"])))
        before = table.few_made
        on = answer(table, {"use_few": True}, *ask)
        _made[0] += table.few_made - before
        assert_same(on, answer(table, {"use_few": False}, *ask))
        if on and data.draw(st.booleans()):
            table.reserve_placement(f"p{k}", on, kind="priority")
            table._check()


def test_the_few_windows_were_made():
    """The comparison above read windows the shortcut made (not only SlidingOr ones)."""
    if not _made[0]:
        test_windows_from_few_step_functions_equal_the_sliding_or()
    assert _made[0] > 0
