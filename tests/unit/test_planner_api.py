"""Both planners answer the Planner protocol (planning/api.py) with its very signatures, and
an ability a planner lacks is answered "not supported" (issue 33)."""

from __future__ import annotations

import inspect

import pytest

from maui_py.model import Node, Resources
from maui_py.planning.api import Ability, Placement, Planner, Unsupported, has
from maui_py.planning.counts import CountTable
from maui_py.planning.table import ReservationTable

PLANNERS = (ReservationTable, CountTable)
METHODS = sorted(n for n, v in vars(Planner).items()
                 if callable(v) and not n.startswith("_"))
ATTRIBUTES = sorted(n for n in Planner.__annotations__)


def _shape(fn) -> list[tuple[str, object, object]]:
    """Parameter names, kinds and defaults: what a caller relies on."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


def _nodes(n: int = 2) -> tuple[Node, ...]:
    return tuple(Node(f"n{i}", Resources.of(4)) for i in range(n))


def test_the_protocol_names_the_questions_the_cycle_asks():
    assert {"earliest_start", "reserve", "reserve_placement", "release", "fits",
            "next_change", "replan", "advance", "load"} <= set(METHODS)
    assert {"abilities", "freed", "free_now", "holds", "version"} <= set(ATTRIBUTES)


@pytest.mark.parametrize("cls", PLANNERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("name", METHODS)
def test_each_planner_has_the_protocols_signature(cls, name):
    assert _shape(getattr(cls, name)) == _shape(getattr(Planner, name)), name


@pytest.mark.parametrize("cls", PLANNERS, ids=lambda c: c.__name__)
def test_each_planner_is_a_planner_with_every_attribute(cls):
    table = cls(_nodes(), 0)
    assert isinstance(table, Planner)
    for name in ATTRIBUTES:
        assert hasattr(table, name), name
    assert table.abilities <= {Ability.COUNTS, Ability.REPLAN}


def test_an_ability_a_planner_lacks_is_answered_not_supported():
    table = ReservationTable(_nodes(), 0)
    assert not has(table, Ability.REPLAN) and not has(None, Ability.COUNTS)
    for call in (lambda: table.replan([], 0), lambda: table.freed_until(0),
                 lambda: table.free_procs_at(0),
                 lambda: table.reserve("r", 0, 10, (), procs=2)):
        with pytest.raises(Unsupported):
            call()
    counts = CountTable(_nodes(), 0)
    assert has(counts, Ability.REPLAN) and has(counts, Ability.COUNTS)
    assert counts.free_procs_at(0) == 8


def test_a_later_count_placement_carries_its_count_and_no_sentinel():
    from maui_py.cfg.choices import NodeAllocation
    from maui_py.model import JobRequest
    counts = CountTable(_nodes(), 0)
    counts.reserve("job:a", 0, 100, (("n0", Resources.of(4)), ("n1", Resources.of(4))))
    p = counts.earliest_start(JobRequest(tasks=6), 50, policy=NodeAllocation.FIRSTAVAILABLE)
    assert isinstance(p, Placement) and p.start == 100
    assert p.items == () and p.allocation == () and p.count == 6
    counts.reserve_placement("priority:b", p, kind="priority")
    assert counts.free_procs_at(100) == 2 and counts.free_procs_at(150) == 8


@pytest.mark.parametrize("cls", PLANNERS, ids=lambda c: c.__name__)
def test_next_change_and_ending_by_agree_on_both_planners(cls):
    table = cls(_nodes(), 0)
    assert table.next_change() == float("inf") and table.ending_by(10**9) == []
    table.reserve("job:a", 0, 30, (("n0", Resources.of(1)),))
    table.reserve("job:b", 0, 20, (("n1", Resources.of(1)),))
    assert table.next_change() == 20
    assert table.ending_by(25) == ["job:b"] and table.ending_by(30) == ["job:b", "job:a"]
    table.release("job:b")
    assert table.next_change() == 30 and table.ending_by(30) == ["job:a"]
