"""LASTAVAILABLE start-now node choice ranking the partly used nodes by a heap, popped
while nodes are taken (nodechoice.HEAP_TAKE) against sorting them all and keying each
(the definition), with SKIP_IDLE on and off (its fallback merges the popped and the
remaining triples with the idle nodes).

On random clusters of several node kinds with running jobs ending one after another and
future holds (idle candidates with a change point after the origin rank before partly
used ones), start-now questions are asked one after the other and some answers are held
as the cycle holds a start, so that later questions meet nodes partly used by earlier
ones: on and off every answer is the same placement (start, nodes, amounts) and the
table's invariants hold after each hold. A table of one node kind whose nodes each run a
job ending at a random instant (many gaps, ties of gap broken by fit and node) is asked
the same way with tasks-per-node requests too."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maui_py.model import JobRequest, Node, Resources
from maui_py.planning import nodechoice
from maui_py.planning.table import ReservationTable

from .both_ways import assert_same, start_question
from .test_later_instant_properties import later_table
from .test_table_properties import SETTINGS


def _answer(table, heap: bool, skip: bool, req, w, job_class=""):
    old = nodechoice.HEAP_TAKE, nodechoice.SKIP_IDLE
    nodechoice.HEAP_TAKE, nodechoice.SKIP_IDLE = heap, skip
    table._floors_at = None
    try:
        return table.earliest_start(req, w, until=table.origin, policy="LASTAVAILABLE",
                                    job_class=job_class)
    finally:
        nodechoice.HEAP_TAKE, nodechoice.SKIP_IDLE = old


@SETTINGS
@given(st.data())
def test_taking_by_a_heap_equals_sorting_every_partly_used_node(data):
    table, _first = later_table(data)
    skip = data.draw(st.booleans())
    for k in range(data.draw(st.integers(1, 12))):
        req, w, job_class = start_question(data.draw, table.nodes)
        on = _answer(table, True, skip, req, w, job_class)
        assert_same(on, _answer(table, False, skip, req, w, job_class))
        if on and data.draw(st.booleans()):    # started: the next questions meet it
            table.reserve_placement(f"s{k}", on)
            table._check()


@SETTINGS
@given(st.data())
def test_ties_of_gap_and_tasks_per_node_requests_agree(data):
    n = data.draw(st.integers(2, 30))
    nodes = [Node(f"n{i:02d}", Resources.of(8, 8000)) for i in range(n)]
    table = ReservationTable(nodes, 1000)
    for i, node in enumerate(nodes):
        if data.draw(st.integers(0, 3)):    # most nodes partly used, ends often shared
            end = 1000 + 60 * data.draw(st.integers(1, 6))
            table.reserve(f"r{i}", 1000, end,
                          [(node.name, Resources.of(data.draw(st.integers(1, 7)), 100))],
                          force=True)
    table._check()
    skip = data.draw(st.booleans())
    for k in range(data.draw(st.integers(1, 10))):
        req = JobRequest(tasks=data.draw(st.integers(1, 20)), per_task=Resources.of(1, 100),
                         tasks_per_node=data.draw(st.sampled_from([0, 0, 1, 2, 3])))
        w = 60 * data.draw(st.integers(1, 7))
        on = _answer(table, True, skip, req, w)
        assert_same(on, _answer(table, False, skip, req, w))
        if on and data.draw(st.booleans()):
            table.reserve_placement(f"s{k}", on)
            table._check()
