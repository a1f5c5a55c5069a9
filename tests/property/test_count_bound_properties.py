"""The scan's count bound (ReservationTable.scan with use_short, planning/scan.py) and the
policy-order walk of FIRSTAVAILABLE and MINRESOURCE start-now questions (use_first, planning/firstnow.py)
against the scan that evaluates every candidate change point followed by node choice
(both False, the definition).

On random clusters of several node kinds (cores, memory, GPUs, partitions, features, down
nodes) with random holds over time, every earliest-start answer (start-now, bounded by
`until`, open; from the origin or `after`) under each NODEALLOCATIONPOLICY is the same
placement (start, nodes, amounts) either way, and the table's invariants hold after every
mutation (table._check). Floors are cleared before each answer, so neither side reads a
floor the other found."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maui_py.planning.table import ReservationTable

from .both_ways import GPUS, POLICIES, answer, assert_same, come_and_go, spread
from .strategies import clusters, populate, requests
from .test_table_properties import SETTINGS


def _same(table, data, now_first: bool = False) -> None:
    """One question asked both ways; `now_first`: a start-now question of a tasks-per-node
    request (the walk's), under FIRSTAVAILABLE and again under MINRESOURCE."""
    req = data.draw(requests(table.nodes, GPUS))
    if now_first:
        req = spread(data.draw, req, 4, 1, 5)
    w = data.draw(st.integers(1, 600))
    after = table.origin + data.draw(st.sampled_from([0, 0, 0, 40, 250]))
    until = data.draw(st.sampled_from([None, None, table.origin, after + 300]))
    policy = data.draw(st.sampled_from(POLICIES))
    if now_first:
        after, until, policy = None, table.origin, "FIRSTAVAILABLE"
    job_class = data.draw(st.sampled_from(["", "batch", "debug"]))
    for pol in ((policy, "MINRESOURCE") if now_first else (policy,)):   # the walk's two orders
        ask = (req, w, after, until, pol, job_class)
        assert_same(answer(table, {"use_short": True, "use_first": True}, *ask),
                    answer(table, {"use_short": False, "use_first": False}, *ask))


@SETTINGS
@given(st.data())
def test_answers_with_the_count_bound_equal_every_candidate_evaluated(data):
    table = ReservationTable(data.draw(clusters(gpus=(0, 2, 4))), origin=1000)
    populate(data.draw, table, gpus=GPUS)
    if data.draw(st.booleans()):
        table.advance(1000 + data.draw(st.integers(1, 400)))
    table._check()
    for _ in range(data.draw(st.integers(1, 6))):
        _same(table, data, now_first=data.draw(st.booleans()))


@SETTINGS
@given(st.data())
def test_answers_stay_equal_as_holds_come_and_go(data):
    table = ReservationTable(data.draw(clusters(gpus=(0, 2, 4))), origin=1000)
    table._check()
    come_and_go(data, table, 20, ["reserve", "reserve", "reserve", "release", "advance", "ask"],
                300, lambda t: _same(t, data, now_first=data.draw(st.booleans())))
