"""LASTAVAILABLE start-now choices read from the kept order of the partly used nodes'
change points (planning/nowwalk.WALK, cyc55) against last_now's walk over every partly
used node then take_last_now (the definition, WALK off).

Tables of one or two node kinds where some nodes run jobs ending at a few shared instants
(ties of gap, broken by fit and node), some hold reservations to come (fits that fall
later: the flat-fit memo misses), and the rest are idle; with _by_gap_after's small-group
bound and sweep length drawn small (both sides alike) so that the idle nodes' key is the
sweep's end as well as FOREVER. Start-now questions (any, tasks-per-node, several nodes)
are asked on and off, answers held as the cycle holds a start, holds released and the
origin moved between them (the order's log and its drop), the order made from the first
question or after a few (nowwalk.WARM): every answer is the same
placement, and the table's invariants (the kept order's among them) hold after each step."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maui_py.model import JobRequest, Node, Resources
from maui_py.planning import nodechoice, nowwalk
from maui_py.planning.table import ReservationTable

from .both_ways import assert_same
from .test_table_properties import SETTINGS


def _answer(table, walk: bool, req, w):
    old = nowwalk.WALK
    nowwalk.WALK = walk
    table._floors_at = None
    try:
        return table.earliest_start(req, w, until=table.origin, policy="LASTAVAILABLE")
    finally:
        nowwalk.WALK = old


@st.composite
def _table(draw):
    n = draw(st.integers(2, 28))
    kinds = [Resources.of(8, 8000), Resources.of(4, 8000)][:draw(st.integers(1, 2))]
    nodes = [Node(f"n{i:02d}", kinds[draw(st.integers(0, len(kinds) - 1))]) for i in range(n)]
    table = ReservationTable(nodes, 1000)
    ends = draw(st.lists(st.integers(1, 40), min_size=1, max_size=4))
    for i, node in enumerate(nodes):
        use = draw(st.integers(0, 5))
        if use <= 2:                    # running, ending at one of a few instants
            procs = draw(st.integers(1, node.resources.procs))
            table.reserve(f"r{i}", 900, 1000 + 60 * draw(st.sampled_from(ends)),
                          [(node.name, Resources.of(procs, 100))], force=True)
        if use in (2, 3):               # a reservation to come: the fit falls then
            start = 1000 + 60 * draw(st.integers(1, 40))
            procs = draw(st.integers(1, node.resources.procs))
            p = table.earliest_start(JobRequest(tasks=procs, per_task=Resources.of(1, 100),
                                                hostlist=(node.name,)),
                                     600, start, policy="FIRSTAVAILABLE")
            if p and p.start == start:
                table.reserve(f"f{i}", start, start + 600, p.allocation)
    table._check()
    return table


@SETTINGS
@given(st.data())
def test_the_kept_order_answers_as_the_walk_over_every_partly_used_node(data):
    table = data.draw(_table())
    small, sweep, warm = nodechoice._SMALL_GROUP, nodechoice._SWEEP_LIMIT, nowwalk.WARM
    nodechoice._SMALL_GROUP = data.draw(st.sampled_from([64, 0, 2]))
    nodechoice._SWEEP_LIMIT = data.draw(st.sampled_from([128, 1, 3]))
    nowwalk.WARM = data.draw(st.sampled_from([0, 0, 0, 3]))
    try:
        for k in range(data.draw(st.integers(1, 14))):
            op = data.draw(st.sampled_from(["ask"] * 6 + ["release", "advance"]))
            if op == "release" and table.holds:
                table.release(data.draw(st.sampled_from(sorted(table.holds))))
            elif op == "advance":
                table.advance(table.origin + data.draw(st.integers(1, 300)))
            else:
                tpn = data.draw(st.sampled_from([0, 0, 0, 1, 2]))
                req = JobRequest(tasks=data.draw(st.integers(1, 24)),
                                 per_task=Resources.of(1, data.draw(st.sampled_from([100, 3000]))),
                                 tasks_per_node=tpn)
                w = 60 * data.draw(st.integers(1, 45)) - data.draw(st.sampled_from([0, 0, 1]))
                on = _answer(table, True, req, w)
                assert_same(on, _answer(table, False, req, w))
                if on and data.draw(st.booleans()):     # started: later questions meet it
                    table.reserve_placement(f"s{k}", on)
            table._check()
    finally:
        nodechoice._SMALL_GROUP, nodechoice._SWEEP_LIMIT, nowwalk.WARM = small, sweep, warm


def test_the_kept_order_is_taken_on_a_first_cycle_like_table():
    """The walk answers (not only falls back) where idle nodes and partly used ones both
    exist: a spy counts its answers."""
    nodes = [Node(f"n{i:02d}", Resources.of(8, 8000)) for i in range(12)]
    table = ReservationTable(nodes, 1000)
    for i in range(6):
        table.reserve(f"r{i}", 900, 1060 + 60 * (i % 3), [(nodes[i].name, Resources.of(3, 100))],
                      force=True)
    answered = []
    real = nowwalk.walk_take

    def spy(*args):
        out = real(*args)
        answered.append(out is not None)
        return out
    nowwalk.walk_take, warm, nowwalk.WARM = spy, nowwalk.WARM, 1
    try:
        for k, (tasks, w) in enumerate([(2, 50), (1, 100), (9, 60), (30, 200), (2, 500)]):
            req = JobRequest(tasks=tasks, per_task=Resources.of(1, 100))
            on = _answer(table, True, req, w)
            assert_same(on, _answer(table, False, req, w))
            table.reserve_placement(f"s{k}", on)
            table._check()
    finally:
        nowwalk.walk_take, nowwalk.WARM = real, warm
    assert not answered[0] and sum(answered) >= 2, answered   # the first: warming up
