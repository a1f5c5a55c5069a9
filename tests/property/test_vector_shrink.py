"""The rule planning/memo.VectorShrinkMemo keeps for core/cycle.fits_now, on the node table
itself: a request that does not fit now fails for any request asking the same tasks of a
per-task vector no smaller (componentwise) for no shorter a time, on random clusters of
several node kinds with random holds, every shortcut off (the definition: scan then
select). The memo's own answers are tested in test_shrink_memo.py."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from maui_py.model import Resources
from maui_py.planning.table import ReservationTable

from .both_ways import GPUS, POLICIES, answer, spread
from .strategies import clusters, populate, requests
from .test_table_properties import SETTINGS

OFF = {"use_last": False, "use_first": False, "use_shapes": False, "use_short": False, "use_gain": False}


@SETTINGS
@given(st.data())
def test_a_larger_vector_fails_now_where_a_smaller_one_failed(data):
    table = ReservationTable(data.draw(clusters(gpus=(0, 2, 4))), origin=1000)
    populate(data.draw, table, gpus=GPUS)
    if data.draw(st.booleans()):
        table.advance(1000 + data.draw(st.integers(1, 400)))
    for _ in range(data.draw(st.integers(1, 6))):
        req = data.draw(requests(table.nodes, GPUS))
        if data.draw(st.booleans()):
            req = spread(data.draw, req, 3, 1, 5)
        pt = req.per_task
        big = replace(req, per_task=Resources.of(
            pt.procs + data.draw(st.integers(0, 2)), pt.mem + data.draw(st.sampled_from([0, 0, 100, 700])),
            gpu=dict(pt.gres).get("gpu", 0) + data.draw(st.sampled_from([0, 0, 1]))))
        w = data.draw(st.integers(1, 600))
        longer = w + data.draw(st.sampled_from([0, 0, 1, 300]))
        policy = data.draw(st.sampled_from(POLICIES))
        now = table.origin
        if not answer(table, OFF, req, w, None, now, policy, ""):
            assert not answer(table, OFF, big, longer, None, now, policy, "")
