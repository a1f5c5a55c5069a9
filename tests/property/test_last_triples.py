"""LASTAVAILABLE start-now node choice from the partly used nodes' (gap, fit, node) triples
(nodechoice.TRIPLES) against the wrapped candidates and _by_gap_after's idle ones (the
definition), with SKIP_IDLE on and off.

The same two table families as tests/property/test_skip_idle.py: random clusters of
several node kinds with running jobs and future holds, and tables of one node kind where
idle nodes with holds to come compete with partly used ones, with _by_gap_after's
small-group bound and sweep length made small so that the idle merge of the triples (more
idle candidates than _SMALL_GROUP) and _idle_gap's bound short of FOREVER are met. The
questions are asked one after the other and some answers held, so that later questions
meet nodes partly used by earlier ones: every answer is the same placement (start, nodes,
amounts) both ways, and the table's invariants hold after each hold."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maui_py.model import JobRequest, Resources
from maui_py.planning import nodechoice

from .both_ways import GPUS, assert_same, spread
from .strategies import requests
from .test_later_instant_properties import later_table
from .test_skip_idle import _gapped_table
from .test_table_properties import SETTINGS


def _answer(table, triples: bool, skip: bool, req, w, job_class=""):
    old = nodechoice.TRIPLES, nodechoice.SKIP_IDLE
    nodechoice.TRIPLES, nodechoice.SKIP_IDLE = triples, skip
    table._floors_at = None
    try:
        return table.earliest_start(req, w, until=table.origin, policy="LASTAVAILABLE",
                                    job_class=job_class)
    finally:
        nodechoice.TRIPLES, nodechoice.SKIP_IDLE = old


@SETTINGS
@given(st.data())
def test_triples_choose_as_the_wrapped_candidates_on_mixed_clusters(data):
    table, _first = later_table(data)
    skip = data.draw(st.booleans())
    for k in range(data.draw(st.integers(1, 12))):
        req = data.draw(requests(table.nodes, GPUS))
        if data.draw(st.booleans()):        # several nodes, a few tasks on each
            req = spread(data.draw, req, 3, 1, 6)
        w = data.draw(st.integers(1, 900))
        job_class = data.draw(st.sampled_from(["", "", "batch"]))
        on = _answer(table, True, skip, req, w, job_class)
        assert_same(on, _answer(table, False, skip, req, w, job_class))
        if on and data.draw(st.booleans()):    # started: the next questions meet it
            table.reserve_placement(f"s{k}", on)
            table._check()


@SETTINGS
@given(st.data())
def test_triples_merge_with_idle_nodes_as_the_wrapped_candidates(data):
    table = data.draw(_gapped_table())
    small, sweep = nodechoice._SMALL_GROUP, nodechoice._SWEEP_LIMIT
    nodechoice._SMALL_GROUP = data.draw(st.sampled_from([64, 0, 1, 2]))
    nodechoice._SWEEP_LIMIT = data.draw(st.sampled_from([128, 1, 3]))
    try:
        for k in range(data.draw(st.integers(1, 10))):
            tasks = data.draw(st.integers(1, 12))
            tpn = data.draw(st.sampled_from([0, 0, 1, 2]))
            req = JobRequest(tasks=tasks, per_task=Resources.of(1, 100), tasks_per_node=tpn)
            w = data.draw(st.integers(1, 3000))
            on = _answer(table, True, True, req, w)
            assert_same(on, _answer(table, False, True, req, w))
            if on and data.draw(st.booleans()):
                table.reserve_placement(f"s{k}", on)
                table._check()
    finally:
        nodechoice._SMALL_GROUP, nodechoice._SWEEP_LIMIT = small, sweep
