"""The scan's count bound (planning/scan.py) and the FIRSTAVAILABLE start-now walk
(planning/firstnow.py): the walks they spare, as operation counts (no timing)."""

from __future__ import annotations

from maui_py.model import JobRequest, Node, Resources
from maui_py.planning.table import ReservationTable


def _staggered() -> ReservationTable:
    """Four 4-core nodes, all full, freed one at a time at 10, 20, 30 and 40."""
    table = ReservationTable([Node(f"n{i}", Resources.of(4, 0)) for i in range(4)], origin=0)
    for i in range(4):
        table.reserve(f"j{i}", 0, 10 * (i + 1), [(f"n{i}", Resources.of(4, 0))])
    table._check()
    return table


def test_change_points_with_too_few_nodes_not_full_are_passed_over():
    whole = JobRequest(tasks=16, per_task=Resources.of(1, 0), tasks_per_node=4)
    table = _staggered()
    p = table.earliest_start(whole, 100, policy="FIRSTAVAILABLE")
    assert (p.start, table.skipped) == (40, 3)      # 10, 20, 30: 1, 2, 3 nodes of 4 free
    table = _staggered()
    table.use_short = False
    q = table.earliest_start(whole, 100, policy="FIRSTAVAILABLE")
    assert (q.start, q.items, table.skipped) == (40, p.items, 0)


def test_a_one_core_start_now_asks_one_partly_used_node():
    nodes = [Node(f"n{i}", Resources.of(8, 1000)) for i in range(50)]
    table = ReservationTable(nodes, origin=0)
    for i in range(50):                             # every node partly used
        table.reserve(f"j{i}", 0, 100 + i, [(f"n{i}", Resources.of(3, 100))])
    one = JobRequest(tasks=1, per_task=Resources.of(1, 10), tasks_per_node=1)
    cr = table.compile(one)
    p = table.earliest_start(one, 500, until=0, policy="FIRSTAVAILABLE")
    asked = table._flat_fits[(cr.d, cr.exclusive)]  # every node whose fit was asked
    assert list(asked) == [0]
    table.use_first = False
    q = table.earliest_start(one, 500, until=0, policy="FIRSTAVAILABLE")
    assert len(asked) == 50                         # the scan asks every partly used node
    assert (p.start, p.items, p.allocation) == (q.start, q.items, q.allocation) == (
        0, ((0, (1, 10)),), (("n0", Resources.of(1, 10)),))
    table._check()


class _Reads(dict):
    """A bucket count map that counts its reads by key."""
    reads = 0

    def __getitem__(self, c):
        _Reads.reads += 1
        return super().__getitem__(c)


def test_a_whole_node_question_reads_only_the_idle_bucket():
    nodes = [Node(f"n{i}", Resources.of(8, 1000)) for i in range(8)]
    table = ReservationTable(nodes, origin=0)
    for i in range(1, 8):                           # n0 idle, n1..n7 use 1..7 processors
        table.reserve(f"j{i}", 0, 100, [(f"n{i}", Resources.of(i, 10))])
    shapes = table.shapes
    k = shapes.kind_of[0]
    assert shapes.order[k] == list(range(1, 9))
    shapes.count[k] = _Reads(shapes.count[k])
    whole = JobRequest(tasks=2, per_task=Resources.of(8, 10), tasks_per_node=1)
    cr = table.compile(whole)
    assert shapes.cannot_start(cr.eligible, cr.d, cr.mode, cr.per_node, cr.nodes_needed,
                               cr.tasks)
    assert _Reads.reads == 1                        # bucket 8 alone, not all eight
    assert not table.earliest_start(whole, 50, until=0, policy="FIRSTAVAILABLE")
    table._check()


def test_a_task_no_kind_can_hold_reads_no_bucket():
    nodes = [Node(f"n{i}", Resources.of(8, 1000)) for i in range(8)]
    table = ReservationTable(nodes, origin=0)
    for i in range(8):                              # i processors used, 900 MB on every node
        table.reserve(f"j{i}", 0, 100, [(f"n{i}", Resources.of(i, 900))])
    shapes = table.shapes
    k = shapes.kind_of[0]
    shapes.count[k] = _Reads(shapes.count[k])
    _Reads.reads = 0
    big = JobRequest(tasks=1, per_task=Resources.of(1, 200))    # 100 MB free at most
    cr = table.compile(big)
    assert shapes.cannot_start(cr.eligible, cr.d, cr.mode, cr.per_node, cr.nodes_needed,
                               cr.tasks)
    assert _Reads.reads == 0                        # the kind's maximum (8, 100) says no
    assert not table.earliest_start(big, 50, until=0, policy="FIRSTAVAILABLE")
    table._check()
