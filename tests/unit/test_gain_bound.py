"""The scan's gain bound and the free-shape index at a later instant (planning/scan.py):
the evaluations and node fits they spare, as operation counts (no timing)."""

from __future__ import annotations

from maui_py.model import JobRequest, Node, Resources
from maui_py.planning.table import ReservationTable


def _partly_used() -> ReservationTable:
    """Eight 4-core nodes, each running a one-core job; node i's ends at 10 (i + 1)."""
    table = ReservationTable([Node(f"n{i}", Resources.of(4, 0)) for i in range(8)], origin=0)
    for i in range(8):
        table.reserve(f"j{i}", 0, 10 * (i + 1), [(f"n{i}", Resources.of(1, 0))])
    table._check()
    return table


def test_change_points_before_enough_nodes_freed_are_passed_over():
    whole = JobRequest(tasks=4, per_task=Resources.of(4, 0), tasks_per_node=1)
    table = _partly_used()
    p = table.earliest_start(whole, 100, policy="FIRSTAVAILABLE")
    # short of 4 nodes at 0; 10, 20, 30 free 1, 2, 3: passed over; 40 evaluated and fits
    assert (p.start, table.gained_over, table.skipped) == (40, 3, 0)
    table = _partly_used()
    table.use_gain = False
    q = table.earliest_start(whole, 100, policy="FIRSTAVAILABLE")
    assert (q.start, q.items, table.gained_over) == (40, p.items, 0)


def _counting(table: ReservationTable) -> list[int]:
    """Count the table's window fits (Compiling._fit_between) from now on."""
    calls = [0]
    fit = table._fit_between

    def counted(*args):
        calls[0] += 1
        return fit(*args)
    table._fit_between = counted
    return calls


def test_a_question_before_the_first_change_asks_no_node():
    table = _partly_used()                          # first change point at 10
    whole = JobRequest(tasks=1, per_task=Resources.of(4, 0), tasks_per_node=1)
    calls = _counting(table)
    assert not table.earliest_start(whole, 100, 5, until=5, policy="FIRSTAVAILABLE")
    assert calls[0] == 0                            # every node ruled out by the index
    table.use_shapes = False
    assert not table.earliest_start(whole, 100, 5, until=5, policy="FIRSTAVAILABLE")
    assert calls[0] == 8                            # the walk fits each partly used node
    table.use_shapes = True
    calls[0] = 0
    p = table.earliest_start(whole, 100, 10, until=10, policy="FIRSTAVAILABLE")
    # at 10 n0 is idle: the walk fits the seven others
    assert (p.start, p.items, calls[0]) == (10, ((0, (4,)),), 7)
    table._check()
