"""The start-now walk under MINRESOURCE (planning/firstnow.py: capacity classes in order,
each in index order): the node fits it spares, as operation counts (no timing), and the
same placement as the scan followed by node choice."""

from __future__ import annotations

from maui_py.model import JobRequest, Node, Resources
from tests.opcount import FitCountingTable as _Counted


def _two_kinds() -> _Counted:
    """20 large nodes first in index order, then 20 small ones; every node partly used."""
    nodes = ([Node(f"big{i}", Resources.of(16, 2000)) for i in range(20)]
             + [Node(f"small{i}", Resources.of(8, 1000)) for i in range(20)])
    table = _Counted(nodes, origin=0)
    for i, n in enumerate(nodes):
        table.reserve(f"j{i}", 0, 100 + i, [(n.name, Resources.of(3, 100))])
    return table


def test_a_minresource_start_now_walks_the_smallest_class_first_and_stops():
    table = _two_kinds()
    one = JobRequest(tasks=1, per_task=Resources.of(1, 10), tasks_per_node=1)
    p = table.earliest_start(one, 500, until=0, policy="MINRESOURCE")
    assert table.asked == 1                         # small0 holds it: the walk stops
    scanned = _two_kinds()                          # (no fit cached by the walk)
    scanned.use_first = False
    q = scanned.earliest_start(one, 500, until=0, policy="MINRESOURCE")
    assert scanned.asked == 40                      # the scan fits every partly used node
    assert (p.start, p.end, p.items, p.allocation) == (q.start, q.end, q.items, q.allocation) == (
        0, 500, ((20, (1, 10)),), (("small0", Resources.of(1, 10)),))
    table._check()


def test_a_request_too_large_for_the_small_class_walks_on_to_the_next():
    table = _two_kinds()
    wide = JobRequest(tasks=2, per_task=Resources.of(6, 10), tasks_per_node=2)   # 12 cores
    p = table.earliest_start(wide, 500, until=0, policy="MINRESOURCE")
    table.use_first = False
    q = table.earliest_start(wide, 500, until=0, policy="MINRESOURCE")
    assert (p.items, p.allocation) == (q.items, q.allocation) == (
        ((0, (12, 20)),), (("big0", Resources.of(12, 20)),))
