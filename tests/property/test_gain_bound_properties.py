"""The scan's gain bound (ReservationTable.scan with use_gain, planning/scan.py) against the
scan that evaluates every candidate the other bounds leave (use_gain False, the definition).

On random clusters of several node kinds (cores, memory, GPUs, partitions, features, down
nodes), with random holds over time and running jobs ending one after another on partly
used nodes (where a request short of nodes at one change point gains them one or a few
at a time), every earliest-start answer (open, bounded by `until`, from the origin or
`after`) under each NODEALLOCATIONPOLICY is the same placement (start, nodes, amounts)
either way, and the table's invariants hold after every mutation (table._check). Floors
are cleared before each answer, so neither side reads a floor the other found."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maui_py.model import Resources
from maui_py.planning.table import ReservationTable

from .both_ways import GPUS, POLICIES, answer, assert_same, come_and_go, spread
from .strategies import clusters, populate, requests
from .test_table_properties import SETTINGS


def _staggered(draw, table: ReservationTable, every: bool = False) -> None:
    """Running jobs on a random part of the nodes (`every`: on every usable node), each
    using some of a node's processors (and memory, GPUs) and ending at its own time: the
    nodes free one after another."""
    for i, nd in enumerate(table.nodes):
        if not nd.state.usable or (not every and draw(st.integers(0, 3)) == 0):
            continue
        cap = nd.resources
        procs = draw(st.integers(1, max(cap.procs, 1)))
        mem = draw(st.sampled_from([0, cap.mem // 2, cap.mem]))
        gpu = draw(st.integers(0, dict(cap.gres).get("gpu", 0)))
        use = Resources.of(procs, mem, gpu=gpu)
        end = table.origin + draw(st.integers(1, 400))
        table.reserve(f"r{i}", table.origin - 5, end, [(nd.name, use)], force=True)


def _same(table, data) -> None:
    """One question asked both ways."""
    req = data.draw(requests(table.nodes, GPUS))
    if data.draw(st.booleans()):        # several nodes, as the MPI jobs that wait do
        req = spread(data.draw, req, 2, 2, 8)
    w = data.draw(st.integers(1, 600))
    after = table.origin + data.draw(st.sampled_from([0, 0, 0, 40, 250]))
    until = data.draw(st.sampled_from([None, None, None, table.origin, after + 300]))
    policy = data.draw(st.sampled_from(POLICIES))
    job_class = data.draw(st.sampled_from(["", "batch", "debug"]))
    ask = (req, w, after, until, policy, job_class)
    assert_same(answer(table, {"use_gain": True}, *ask), answer(table, {"use_gain": False}, *ask))


@SETTINGS
@given(st.data())
def test_answers_with_the_gain_bound_equal_every_candidate_evaluated(data):
    table = ReservationTable(data.draw(clusters(gpus=(0, 2, 4))), origin=1000)
    _staggered(data.draw, table)
    populate(data.draw, table, max_holds=12, gpus=GPUS)
    if data.draw(st.booleans()):
        table.advance(1000 + data.draw(st.integers(1, 100)))
    table._check()
    for _ in range(data.draw(st.integers(1, 6))):
        _same(table, data)


@SETTINGS
@given(st.data())
def test_answers_stay_equal_as_holds_come_and_go(data):
    table = ReservationTable(data.draw(clusters(gpus=(0, 2, 4))), origin=1000)
    _staggered(data.draw, table)
    table._check()
    come_and_go(data, table, 16, ["reserve", "reserve", "release", "advance", "ask", "ask"],
                100, lambda t: _same(t, data))
