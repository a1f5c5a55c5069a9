"""The room masks of the free-shape index (FreeShapes.roomy, planning/freeshape.py) and the
start-now walk that asks only the nodes they keep (use_room, planning/firstnow.py).

The definition is the walk over every partly used node (use_room False). On random clusters
of several node kinds (cores, memory, GPUs, partitions, features, down nodes) with running
jobs ending one after another and future holds, every start-now answer (at the origin and at
later instants before, at and after the first change point; one node or several; under each
NODEALLOCATIONPOLICY) is the same placement either way; `roomy` never leaves out a node
whose free vector at the origin holds the vector asked (checked node by node from the step
functions); and the table's invariant, room masks included (table._check), holds after every
reserve, release and origin move."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maui_py.planning.freeshape import ladder
from maui_py.planning.table import ReservationTable

from .both_ways import GPUS, POLICIES, answer, assert_same, come_and_go, spread
from .strategies import clusters, requests
from .test_later_instant_properties import later_table
from .test_table_properties import SETTINGS


def _holds_at_origin(table: ReservationTable, v: tuple[int, ...]) -> int:
    """The nodes whose free vector at the origin holds v, from the step functions."""
    out = 0
    for i, cap in enumerate(table.cap):
        used = table._U[i][0]
        if all(c - u >= x for c, u, x in zip(cap, used, v)):
            out |= 1 << i
    return out


def _ask(data, table: ReservationTable, first: int) -> None:
    req = data.draw(requests(table.nodes, GPUS))
    if data.draw(st.booleans()):            # several nodes, as the MPI jobs that wait are
        req = spread(data.draw, req, 3, 1, 6)
    w = data.draw(st.integers(1, 600))
    t0 = data.draw(st.sampled_from(sorted({table.origin, table.origin + 1, first - 1, first,
                                            first + 1})))
    policy = data.draw(st.sampled_from(["FIRSTAVAILABLE"] * 3 + ["MINRESOURCE"] * 2 + POLICIES))
    job_class = data.draw(st.sampled_from(["", "batch", "debug"]))
    for after in (None, t0):
        until = table.origin if after is None else t0
        ask = (req, w, after, until, policy, job_class)
        assert_same(answer(table, {"use_room": True}, *ask),
                    answer(table, {"use_room": False}, *ask))


@SETTINGS
@given(st.data())
def test_start_now_walk_with_room_masks_equals_the_full_walk(data):
    table, first = later_table(data)
    for _ in range(data.draw(st.integers(1, 6))):
        _ask(data, table, first)


@SETTINGS
@given(st.data())
def test_room_masks_keep_every_node_with_room(data):
    table, _first = later_table(data)
    dims = len(table.cap[0])

    def ask(t):
        v = tuple(data.draw(st.integers(0, 2 * max(c[j] for c in t.cap) + 1))
                  for j in range(dims))
        got = t.shapes.roomy(v)
        want = _holds_at_origin(t, v)
        if got is None:
            assert not any(v)
        else:
            assert want & ~got == 0, "roomy left out a node with room"
        times = t.change_points()
        _ask(data, t, times[0] if times else t.origin + 5000)

    come_and_go(data, table, 12, ["reserve", "reserve", "release", "advance", "ask", "ask"],
                400, ask)


@SETTINGS
@given(st.data())
def test_room_masks_follow_every_mutation(data):
    table = ReservationTable(data.draw(clusters(gpus=(0, 2, 4))), origin=1000)
    come_and_go(data, table, 25, ["reserve", "reserve", "release", "advance"], 400,
                lambda t: None)
    table._check()


def test_ladder():
    assert ladder(0) == []
    assert ladder(1) == [1]
    assert ladder(128) == [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128]
    assert ladder(100)[-1] == 96
