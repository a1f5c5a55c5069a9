"""The free-shape index asked of questions at a later instant (ReservationTable.scan's
_ruled_out with after or until past the origin, planning/scan.py) against the node walk
(use_shapes False, the definition).

The index describes usage at the origin; it may answer a question whose candidates all
come before the first change point, where usage is the origin's (core/changes.py asks a
cycle's start-now question so, on a table whose origin is the last cycle's). On random
clusters of several node kinds with random running jobs (started before the origin) and
future holds, every answer whose `after` and `until` fall before, at or after the first
change point equals the walk's (start, nodes, amounts) under each NODEALLOCATIONPOLICY."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maui_py.planning.table import ReservationTable

from .both_ways import GPUS, POLICIES, answer, assert_same, spread
from .strategies import clusters, populate, requests
from .test_gain_bound_properties import _staggered
from .test_table_properties import SETTINGS


def later_table(data) -> tuple[ReservationTable, int]:
    """A random table of running jobs ending one after another and future holds, and its
    first change point (5000 when none): the instants the later-instant answers differ at."""
    table = ReservationTable(data.draw(clusters(gpus=(0, 2, 4))), origin=1000)
    _staggered(data.draw, table, every=data.draw(st.booleans()))
    populate(data.draw, table, max_holds=data.draw(st.sampled_from([0, 12])), gpus=GPUS)
    table._check()
    times = table.change_points()
    return table, times[0] if times else 5000


@SETTINGS
@given(st.data())
def test_later_instant_answers_equal_the_walk(data):
    table, first = later_table(data)
    for _ in range(data.draw(st.integers(1, 6))):
        req = data.draw(requests(table.nodes, GPUS))
        if data.draw(st.booleans()):        # several nodes
            req = spread(data.draw, req, 2, 2, 8)
        w = data.draw(st.integers(1, 600))
        pick = st.sampled_from(sorted({1000, 1001, first - 1, first, first + 1, 1100}))
        after, until = data.draw(pick), data.draw(pick)
        policy = data.draw(st.sampled_from(POLICIES))
        job_class = data.draw(st.sampled_from(["", "batch", "debug"]))
        ask = (req, w, after, until, policy, job_class)
        assert_same(answer(table, {"use_shapes": True}, *ask),
                    answer(table, {"use_shapes": False}, *ask))
