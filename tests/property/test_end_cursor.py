"""planning/endheap.EndCursor answers what ending_by answers for a growing `now`, and
core.changes.ends_wait, which reads it (END_CURSOR), leaves out exactly the cycles it left
out asking ending_by each time: the same replay, cycle for cycle."""

from __future__ import annotations

import heapq

from hypothesis import given
from hypothesis import strategies as st

from maui_py.core import changes
from maui_py.planning.endheap import EndCursor, ending_by
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.cfg import parse_config

from .test_idle_arrivals import SETTINGS, configs, site_workloads, workloads


class _Hold:
    __slots__ = ("end",)

    def __init__(self, end: int):
        self.end = end


@st.composite
def heaps(draw):
    """Holds (owner -> end) and an end heap with their entries, stale ones (owners gone or
    moved) and duplicates, as the planners' lazy deletion leaves it."""
    holds = {f"o{k}": _Hold(draw(st.integers(0, 60))) for k in range(draw(st.integers(0, 25)))}
    ends = [(h.end, o) for o, h in holds.items()]
    ends += [(draw(st.integers(0, 60)), f"o{draw(st.integers(0, 30))}") for _ in range(draw(st.integers(0, 15)))]
    ends += draw(st.lists(st.sampled_from(ends), max_size=5)) if ends else []
    heapq.heapify(ends)
    nows = sorted(draw(st.lists(st.integers(-1, 70), min_size=1, max_size=8)))
    return holds, ends, nows


@SETTINGS
@given(heaps())
def test_a_cursor_answers_what_ending_by_answers(case):
    holds, ends, nows = case
    before = list(ends)
    cur = EndCursor(ends, holds, 0)
    seen: list[str] = []
    for now in nows:
        seen += cur.advance(now)
        assert seen == ending_by(ends, holds, now), now
    assert ends == before                   # the planner's heap is not touched


def test_a_cursor_refuses_to_go_back():
    cur = EndCursor([(5, "a")], {"a": _Hold(5)}, 0)
    assert cur.advance(5) == ["a"] and cur.advance(5) == []
    try:
        cur.advance(4)
    except ValueError:
        return
    raise AssertionError("went back")


def _replay(nodes, sims, text, on: bool):
    old = changes.END_CURSOR
    changes.END_CURSOR = on
    try:
        res = Simulation(nodes, sims, parse_config(text), SimOptions(
            check_table=True, leave_idle=True, cycle_reserves=False)).run()
    finally:
        changes.END_CURSOR = old
    return res


@SETTINGS
@given(st.one_of(workloads(), site_workloads()), configs())
def test_the_cursor_leaves_out_the_cycles_ending_by_leaves_out(wl, text):
    nodes, sims = wl
    on, off = _replay(nodes, sims, text, True), _replay(nodes, sims, text, False)
    assert on.check.ok and off.check.ok
    assert on.cycles == off.cycles
    assert {j: (r.start, r.kind, r.end) for j, r in on.records.items()} == \
        {j: (r.start, r.kind, r.end) for j, r in off.records.items()}


class _Cache:
    """The ChangeCache fields _ends_only_since keeps (cursor, pending, ended_set, ended_seen)."""

    def __init__(self):
        self.cursor, self.pending, self.ended_set, self.ended_seen = None, [], set(), 0


def test_a_hold_past_its_end_without_its_job_ended_keeps_the_cycle_until_the_job_ends():
    from maui_py.model import Node, Resources
    from maui_py.planning.counts import CountTable
    from maui_py.planning.table import ReservationTable
    for cls in (CountTable, ReservationTable):
        table = cls(tuple(Node(f"n{i}", Resources.of(4)) for i in range(2)), 0)
        table.reserve("job:a", 0, 10, (("n0", Resources.of(1)),))
        table.reserve("job:b", 0, 20, (("n1", Resources.of(1)),))
        cache, ended = _Cache(), []
        assert changes._ends_only_since(table, 5, ended, cache)
        assert not changes._ends_only_since(table, 15, ended, cache)   # a's hold ended, a has not
        assert not changes._ends_only_since(table, 16, ended, cache)   # still not (pending)
        ended.append("a")
        assert changes._ends_only_since(table, 17, ended, cache)
        assert not changes._ends_only_since(table, 20, ended, cache)   # b's hold by 20
        ended.append("b")
        assert changes._ends_only_since(table, 21, ended, cache)
        table.release("job:b")                                         # holds changed: a new cursor
        assert changes._ends_only_since(table, 22, ["a"], cache)
        assert not changes._ends_only_since(table, 22, [], cache)
