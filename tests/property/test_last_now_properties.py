"""The one-walk answer of LASTAVAILABLE start-now questions (use_last, planning/lastnow.py)
against the scan followed by node choice with every shortcut off (use_last, use_first,
use_shapes, use_short, use_gain False: the definition).

On random clusters of several node kinds (cores, memory, GPUs, partitions, features, down
nodes) with random running jobs (started before the origin, ending one after another) and
future holds, start-now questions (until at or before the origin) are asked one after the
other and each answer is held as the cycle holds a start (reserve_placement), so that the
questions meet nodes partly used by the earlier answers, as a first cycle's backfill does:
every answer is the same placement (start, nodes, amounts) either way, and the table's
invariants hold after each hold. Other policies and questions with `after` or `until`
past the origin are asked too (where the walk is never taken)."""

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
def test_lastavailable_start_now_equals_the_scan(data):
    table, first = later_table(data)
    for k in range(data.draw(st.integers(1, 10))):
        req = data.draw(requests(table.nodes, GPUS))
        if data.draw(st.booleans()):        # several nodes, a few tasks on each
            req = spread(data.draw, req, 3, 1, 6)
        w = data.draw(st.integers(1, 600))
        after = data.draw(st.sampled_from([None, None, 999, 1000, 1001, first]))
        until = data.draw(st.sampled_from([1000, 1000, 1000, 999, 1001, first]))
        policy = data.draw(st.sampled_from(["LASTAVAILABLE"] * 6 + POLICIES))
        job_class = data.draw(st.sampled_from(["", "batch", "debug"]))
        ask = (req, w, after, until, policy, job_class)
        fast = answer(table, {f: True for f in FLAGS}, *ask)
        assert_same(fast, answer(table, {f: False for f in FLAGS}, *ask))
        if fast and data.draw(st.booleans()):   # started: the next questions meet it
            table.reserve_placement(f"s{k}", fast)
            table._check()
