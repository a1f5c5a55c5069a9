"""The policy-order walk of FIRSTAVAILABLE and MINRESOURCE questions (use_first, planning/firstnow.py) asked
at a later instant: after = until = t0 past the origin, before, at or after the first
change point (core/changes.py asks each arrival so, on the last cycle's table), against
the scan followed by node choice with every shortcut off (use_last, use_first, use_shapes,
use_short, use_gain False: the definition).

On random clusters of several node kinds (cores, memory, GPUs, partitions, features, down
nodes) with random running jobs (started before the origin, ending one after another) and
future holds, every answer is the same placement (start, nodes, amounts) either way, under
FIRSTAVAILABLE and MINRESOURCE (the walk's orders; every question is asked under MINRESOURCE
too), CPULOAD (MINRESOURCE's order after the origin) and the other NODEALLOCATIONPOLICY
values (where the walk is never taken). Floors are cleared before each answer, so neither side reads a floor the
other found."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from .both_ways import GPUS, POLICIES, answer, assert_same, spread
from .strategies import requests
from .test_later_instant_properties import later_table
from .test_table_properties import SETTINGS

FLAGS = ("use_last", "use_first", "use_shapes", "use_short", "use_gain")


@SETTINGS
@given(st.data())
def test_later_instant_walk_equals_the_scan(data):
    table, first = later_table(data)
    for _ in range(data.draw(st.integers(1, 6))):
        req = data.draw(requests(table.nodes, GPUS))
        req = spread(data.draw, req, 3, 1, 6)
        w = data.draw(st.integers(1, 600))
        t0 = data.draw(st.sampled_from(sorted({1000, 1001, first - 1, first, first + 1})))
        policy = data.draw(st.sampled_from(["FIRSTAVAILABLE"] * 4 + POLICIES))
        job_class = data.draw(st.sampled_from(["", "batch", "debug"]))
        for pol in (policy, "MINRESOURCE"):     # MINRESOURCE: the walk by capacity class
            ask = (req, w, t0, t0, pol, job_class)
            assert_same(answer(table, {f: True for f in FLAGS}, *ask),
                        answer(table, {f: False for f in FLAGS}, *ask))
