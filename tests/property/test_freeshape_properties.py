"""The free-shape index (planning/freeshape.py) against the node walk it stands in for.

The walk (ReservationTable.scan with use_shapes False) is the definition: on random
clusters of several node kinds (cores, memory, GPUs, partitions, features, down nodes)
with random holds, every start-now answer with the index equals the walk's, the index's
bound is never below what the nodes hold (node_fit, from the holds directly), and the
index's invariant holds after every mutation (table._check, which calls its check)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maui_py.planning.api import Compiled
from maui_py.planning.table import ReservationTable

from .strategies import clusters, node_fit, populate, requests
from .test_table_properties import SETTINGS

GPUS = (0, 0, 1, 2)
POLICIES = ["FIRSTAVAILABLE", "LASTAVAILABLE", "MINRESOURCE", "PRIORITY", "CPULOAD", "FASTEST"]


def _table(data) -> ReservationTable:
    nodes = data.draw(clusters(gpus=(0, 2, 4)))
    table = ReservationTable(nodes, origin=1000)
    populate(data.draw, table, gpus=GPUS)
    if data.draw(st.booleans()):
        table.advance(1000 + data.draw(st.integers(1, 400)))
    table._check()
    return table


def _answer(table, req, w, policy, job_class, walk: bool):
    table.use_shapes = not walk
    try:
        p = table.earliest_start(req, w, until=table.origin, policy=policy, job_class=job_class)
    finally:
        del table.use_shapes
    return p


@SETTINGS
@given(st.data())
def test_start_now_answers_equal_the_walk(data):
    table = _table(data)
    for _ in range(data.draw(st.integers(1, 6))):
        req = data.draw(requests(table.nodes, GPUS))
        w = data.draw(st.integers(1, 600))
        policy = data.draw(st.sampled_from(POLICIES))
        job_class = data.draw(st.sampled_from(["", "batch", "debug"]))
        fast = _answer(table, req, w, policy, job_class, walk=False)
        walked = _answer(table, req, w, policy, job_class, walk=True)
        assert fast == walked
        assert bool(fast) == bool(walked)
        if fast:
            assert fast.items == walked.items
        cr = table.compile(req, job_class)
        if isinstance(cr, Compiled):
            tot, cnt = table.shapes.bound(cr.eligible, cr.d, cr.per_node)
            fits = [node_fit(table, i, req, cr.d, table.origin, w, cr.exclusive)
                    for i in range(len(table.nodes)) if (cr.eligible >> i) & 1]
            assert tot >= sum(fits)
            assert cnt >= sum(1 for f in fits if f >= cr.per_node)
            if table.shapes.cannot_start(cr.eligible, cr.d, cr.mode, cr.per_node,
                                         cr.nodes_needed, cr.tasks):
                assert not walked


@SETTINGS
@given(st.data())
def test_index_holds_after_every_mutation(data):
    nodes = data.draw(clusters(gpus=(0, 2, 4)))
    table = ReservationTable(nodes, origin=1000)
    table._check()
    made = 0
    for _ in range(data.draw(st.integers(1, 25))):
        op = data.draw(st.sampled_from(["reserve", "reserve", "release", "advance"]))
        if op == "reserve":
            req = data.draw(requests(table.nodes, GPUS))
            start = table.origin + data.draw(st.sampled_from([0, 0, 50, 300]))
            p = table.earliest_start(req, data.draw(st.integers(1, 500)), start,
                                     policy="FIRSTAVAILABLE")
            if p:
                back = data.draw(st.sampled_from([0, 0, 100])) if p.start == table.origin else 0
                table.reserve(f"o{made}", p.start - back, p.end, p.allocation)
                made += 1
        elif op == "release" and table.holds:
            table.release(data.draw(st.sampled_from(sorted(table.holds))))
        elif op == "advance":
            table.advance(table.origin + data.draw(st.integers(1, 300)))
        table._check()


@SETTINGS
@given(st.data())
def test_index_of_a_fresh_load_is_the_one_holds_make(data):
    table = _table(data)
    fresh = ReservationTable(table.nodes, origin=table.origin)
    fresh.load([(h.owner, h.start, h.end, [(table.nodes[i].name, table.resources(v))
                                           for i, v in h.alloc], h.kind)
                for h in table.holds.values() if h.kind != "credit"])
    fresh._check()
    assert fresh.shapes.count == table.shapes.count
    assert fresh.shapes.shapes == table.shapes.shapes
