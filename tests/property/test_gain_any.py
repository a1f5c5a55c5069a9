"""The scan's gain bound for requests of tasks anywhere (Scanning.use_gain_any, cyc6)
against the scan that evaluates every candidate where an eligible node frees something
(use_gain_any False, the definition), the other bounds on both sides.

On random clusters of several node kinds with running jobs ending one after another on
partly used nodes and random holds over time, "any" requests (and some of other kinds,
which the switch leaves alone) are asked open, from the origin or later, bounded or not,
under each NODEALLOCATIONPOLICY: every answer is the same placement (start, nodes,
amounts) either way; the answers are held in turn (as a priority pass's reservations
are) and the table's invariants hold after each."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maui_py.planning.table import ReservationTable

from .both_ways import GPUS, POLICIES, answer, assert_same
from .strategies import clusters, populate, requests
from .test_gain_bound_properties import _staggered
from .test_table_properties import SETTINGS


@SETTINGS
@given(st.data())
def test_any_requests_with_the_gain_bound_equal_every_candidate_evaluated(data):
    table = ReservationTable(data.draw(clusters(gpus=(0, 2, 4))), origin=1000)
    _staggered(data.draw, table, every=data.draw(st.booleans()))
    populate(data.draw, table, max_holds=data.draw(st.sampled_from([0, 10])), gpus=GPUS)
    table._check()
    for k in range(data.draw(st.integers(1, 8))):
        req = data.draw(requests(table.nodes, GPUS))
        if data.draw(st.booleans()):            # wide: it waits for several jobs' ends
            req = req.__class__(tasks=req.tasks * data.draw(st.integers(2, 12)),
                                per_task=req.per_task, features=req.features)
        w = data.draw(st.integers(1, 600))
        after = table.origin + data.draw(st.sampled_from([0, 0, 0, 40, 250]))
        until = data.draw(st.sampled_from([None, None, None, after + 300]))
        policy = data.draw(st.sampled_from(POLICIES))
        ask = (req, w, after, until, policy, "")
        on = answer(table, {"use_gain_any": True}, *ask)
        assert_same(on, answer(table, {"use_gain_any": False}, *ask))
        if on and data.draw(st.booleans()):
            table.reserve_placement(f"p{k}", on, kind="priority")
            table._check()
