"""The free-shape index's single-node moves applied late and coalesced per node
(planning/freeshape.LAZY) and its "no" left out of LASTAVAILABLE start-now questions after a
run of walks that found room (planning/lastnow.STREAK), against the definition: every move
applied at once and the "no" always asked.

Two copies of one random table (node kinds, memory, GPUs, features, down nodes, running
jobs ending one after another, future holds) meet the same operations: start-now questions
(LASTAVAILABLE mostly, other policies too, which read the index's room masks), each answer
held as the cycle holds a start; releases; moves of the origin. Every answer is the same
placement either way, and after each operation both tables pass `_check()` (which asserts
that every pending move leads to the node's usage now, then that the index, flushed, is the
one recomputed from the nodes). Whole cycles with LAZY on and off decide alike too.

A mutant that coalesces a node's moves to its first usage instead of its latest
(`(cap, got[1], got[2])` in FreeShapes.move_one) fails `_check()` in the first test; one
whose cannot_start skips the flush decides otherwise in the second."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.planning import freeshape, lastnow

from .both_ways import GPUS, POLICIES, assert_same, spread
from .on_off import limited_arrivals, replay_on_off
from .strategies import requests
from .test_backfill_in_order import scenarios
from .test_later_instant_properties import later_table
from .test_table_properties import SETTINGS


def _on(table, lazy: bool, streak: int, op, *args, **kwargs):
    """op(*args, **kwargs) on `table` with LAZY and STREAK set for it alone."""
    old = freeshape.LAZY, lastnow.STREAK
    freeshape.LAZY, lastnow.STREAK = lazy, streak
    try:
        return op(*args, **kwargs)
    finally:
        freeshape.LAZY, lastnow.STREAK = old


@SETTINGS
@given(st.data())
def test_late_coalesced_moves_and_the_skipped_no_answer_as_the_definition(data):
    lazy, _first = later_table(data)
    eager = copy.deepcopy(lazy)
    streak = data.draw(st.sampled_from([0, 1, 2, 16]))
    made = 0
    for _ in range(data.draw(st.integers(1, 14))):
        op = data.draw(st.sampled_from(["ask"] * 6 + ["release", "advance"]))
        if op == "ask":
            req = data.draw(requests(lazy.nodes, GPUS))
            if data.draw(st.booleans()):
                req = spread(data.draw, req, 3, 1, 4)
            w = data.draw(st.integers(1, 600))
            policy = data.draw(st.sampled_from(["LASTAVAILABLE"] * 5 + POLICIES))
            ask = dict(until=lazy.origin, policy=policy,
                       job_class=data.draw(st.sampled_from(["", "batch", "debug"])))
            got = _on(lazy, True, streak, lazy.earliest_start, req, w, **ask)
            want = _on(eager, False, lastnow.NEVER_SKIP, eager.earliest_start, req, w, **ask)
            assert_same(got, want)
            if got and data.draw(st.booleans()):        # started: later questions meet it
                _on(lazy, True, streak, lazy.reserve_placement, f"s{made}", got)
                _on(eager, False, lastnow.NEVER_SKIP, eager.reserve_placement, f"s{made}", want)
                made += 1
        elif op == "release" and lazy.holds:
            owner = data.draw(st.sampled_from(sorted(lazy.holds)))
            assert _on(lazy, True, streak, lazy.release, owner) == eager.release(owner)
        elif op == "advance":
            to = lazy.origin + data.draw(st.integers(1, 400))
            assert (_on(lazy, True, streak, lazy.advance, to)
                    == _on(eager, False, lastnow.NEVER_SKIP, eager.advance, to))
        lazy._check()
        eager._check()
        assert not eager.shapes.pending


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_cycles_with_late_moves_decide_as_with_each_move_applied(sc):
    replay_on_off(freeshape, "LAZY", sc, limited_arrivals,
                  maps=("deferred", "batch_holds", "queue_time", "reservations"))
