"""LASTAVAILABLE start-now node choice taking the partly used nodes without ranking the
idle ones (nodechoice.SKIP_IDLE, cyc6) against always merging both (the definition).

On random clusters of several node kinds with running jobs ending one after another and
future holds (some on idle nodes, so that an idle candidate may have a change point after
the origin and rank before a partly used one), start-now questions are asked one after
the other and each answer is held as the cycle holds a start, so that later questions
meet nodes partly used by earlier ones: with the switch on and off every answer is the
same placement (start, nodes, amounts), and the table's invariants hold after each hold."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maui_py.model import JobRequest, Node, Resources
from maui_py.planning import nodechoice
from maui_py.planning.table import ReservationTable

from .both_ways import assert_same, start_question
from .test_later_instant_properties import later_table
from .test_table_properties import SETTINGS


def _answer(table, skip: bool, req, w, job_class):
    old = nodechoice.SKIP_IDLE
    nodechoice.SKIP_IDLE = skip
    table._floors_at = None
    try:
        return table.earliest_start(req, w, until=table.origin, policy="LASTAVAILABLE",
                                    job_class=job_class)
    finally:
        nodechoice.SKIP_IDLE = old


@SETTINGS
@given(st.data())
def test_taking_partly_used_nodes_first_equals_merging_with_the_idle_ones(data):
    table, _first = later_table(data)
    held = 0
    for k in range(data.draw(st.integers(1, 12))):
        req, w, job_class = start_question(data.draw, table.nodes)
        on = _answer(table, True, req, w, job_class)
        assert_same(on, _answer(table, False, req, w, job_class))
        if on and data.draw(st.booleans()):    # started: the next questions meet it
            table.reserve_placement(f"s{k}", on)
            held += 1
            table._check()


@st.composite
def _gapped_table(draw):
    """Nodes of one kind, each idle, running a job that ends at a random instant, or idle
    now with holds to come: idle candidates with a change point soon after a job's end
    rank before partly used nodes freed later, and with many change points the sweep of
    _by_gap_after ends before reaching some nodes."""
    n = draw(st.integers(2, 24))
    nodes = [Node(f"n{i:02d}", Resources.of(8, 8000)) for i in range(n)]
    table = ReservationTable(nodes, 1000)
    k = 0
    for node in nodes:
        for _ in range(draw(st.integers(0, 4))):
            start = draw(st.sampled_from([900, 1000])) if draw(st.booleans()) else \
                1000 + draw(st.integers(1, 3000))
            end = max(start, 1000) + draw(st.integers(1, 3000))
            procs = draw(st.integers(1, 8))
            p = table.earliest_start(JobRequest(tasks=procs, per_task=Resources.of(1, 100),
                                                hostlist=(node.name,)),
                                     end - start, start, policy="FIRSTAVAILABLE")
            if p and p.start == max(start, 1000):
                table.reserve(f"h{k}", start, end, p.allocation)
                k += 1
    table._check()
    return table


@SETTINGS
@given(st.data())
def test_skipping_idle_nodes_agrees_where_they_rank_first(data):
    """Tables made so that idle nodes with holds to come compete with partly used ones, with
    _by_gap_after's small-group bound and sweep length made small (both sides alike) so
    that its sweep path and _idle_gap's bound short of FOREVER are taken."""
    table = data.draw(_gapped_table())
    small, sweep = nodechoice._SMALL_GROUP, nodechoice._SWEEP_LIMIT
    nodechoice._SMALL_GROUP = data.draw(st.sampled_from([64, 0, 2]))
    nodechoice._SWEEP_LIMIT = data.draw(st.sampled_from([128, 1, 3]))
    try:
        for k in range(data.draw(st.integers(1, 10))):
            tasks = data.draw(st.integers(1, 12))
            tpn = data.draw(st.sampled_from([0, 0, 1, 2]))
            req = JobRequest(tasks=tasks, per_task=Resources.of(1, 100), tasks_per_node=tpn)
            w = data.draw(st.integers(1, 3000))
            on = _answer(table, True, req, w, "")
            assert_same(on, _answer(table, False, req, w, ""))
            if on and data.draw(st.booleans()):
                table.reserve_placement(f"s{k}", on)
                table._check()
    finally:
        nodechoice._SMALL_GROUP, nodechoice._SWEEP_LIMIT = small, sweep
