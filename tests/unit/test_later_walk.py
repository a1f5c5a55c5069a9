"""The FIRSTAVAILABLE walk (planning/firstnow.py) asked at a later instant before the first
change point: the node fits it spares, as operation counts (no timing)."""

from __future__ import annotations

from maui_py.model import JobRequest, Node, Resources
from tests.opcount import FitCountingTable as _Counted


def test_an_arrival_before_the_first_change_asks_one_partly_used_node():
    nodes = [Node(f"n{i}", Resources.of(8, 1000)) for i in range(50)]
    table = _Counted(nodes, origin=0)
    for i in range(50):                             # every node partly used until 100 + i
        table.reserve(f"j{i}", 0, 100 + i, [(f"n{i}", Resources.of(3, 100))])
    one = JobRequest(tasks=1, per_task=Resources.of(1, 10), tasks_per_node=1)
    p = table.earliest_start(one, 500, 60, until=60, policy="FIRSTAVAILABLE")
    assert table.asked == 1                         # node 0 holds it: the walk stops
    table.asked = 0
    table.use_first = False
    q = table.earliest_start(one, 500, 60, until=60, policy="FIRSTAVAILABLE")
    assert table.asked == 50                        # the scan fits every partly used node
    assert (p.start, p.end, p.items, p.allocation) == (q.start, q.end, q.items, q.allocation) == (
        60, 560, ((0, (1, 10)),), (("n0", Resources.of(1, 10)),))
    table._check()


def test_an_arrival_past_the_first_change_is_scanned():
    nodes = [Node(f"n{i}", Resources.of(8, 1000)) for i in range(4)]
    table = _Counted(nodes, origin=0)
    for i in range(4):
        table.reserve(f"j{i}", 0, 10 + i, [(f"n{i}", Resources.of(8, 100))])
    one = JobRequest(tasks=1, per_task=Resources.of(1, 10), tasks_per_node=1)
    p = table.earliest_start(one, 50, 10, until=10, policy="FIRSTAVAILABLE")
    assert (p.start, p.items) == (10, ((0, (1, 10)),))     # n0 freed at 10: the scan's
