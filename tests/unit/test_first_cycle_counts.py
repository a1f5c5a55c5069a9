"""Operation counts of the first cycle's work on the node table (issue 33): what it no
longer does per node or per partly used node. Counts, not timings."""

from __future__ import annotations

from maui_py.cfg.choices import NodeAllocation
from maui_py.model import JobRequest, Node, Resources
from maui_py.planning import nodechoice
from maui_py.planning.table import ReservationTable


def _cluster(n: int) -> list[Node]:
    return [Node(f"n{i}", Resources.of(8, 1000)) for i in range(n)]


def test_a_fresh_load_moves_the_free_shapes_once_per_usage_not_per_node():
    """10 running jobs of 10 nodes each, two usages among them: the free-shape index is
    moved once per (capacity, usage) group (2), not once per node (100)."""
    nodes = _cluster(100)
    table = ReservationTable(nodes, 0)
    calls = {"move": 0, "move_one": 0}
    for name in calls:
        real = getattr(table.shapes, name)

        def spy(*a, _real=real, _name=name):
            calls[_name] += 1
            return _real(*a)
        setattr(table.shapes, name, spy)
    holds = [(f"j{k}", 0, 100 + k, [(f"n{10 * k + i}", Resources.of(2 + k % 2, 100))
                                   for i in range(10)], "job") for k in range(10)]
    table.load(holds)
    table._check()
    assert calls == {"move": 2, "move_one": 0}


def test_a_one_task_start_now_ranks_one_partly_used_node_not_all():
    """30 partly used nodes fit a one-task job: node choice keeps one ranked key (the best),
    where it sorted all 30, and three for three one-task-per-node tasks; the nodes chosen
    are the best of all 30."""
    nodes = _cluster(30)
    table = ReservationTable(nodes, 0)
    for i in range(30):
        table.reserve(f"r{i}", 0, 1000 + 37 * ((i * 7) % 30), [(f"n{i}", Resources.of(4, 100))])
    kept = []
    real = nodechoice._keyed_last

    def spy(*a, **k):
        out = real(*a, **k)
        kept.append(len(out))
        return out
    nodechoice._keyed_last = spy
    try:
        p = table.earliest_start(JobRequest(tasks=1), 500, until=0,
                                 policy=NodeAllocation.LASTAVAILABLE)
        q = table.earliest_start(JobRequest(tasks=3, tasks_per_node=1), 500, until=0,
                                 policy=NodeAllocation.LASTAVAILABLE)
    finally:
        nodechoice._keyed_last = real
    assert kept == [1, 3]
    ranked = sorted(real(table, {i: 4 for i in range(30)}, 0, 500))
    assert [n for n, _r in p.allocation] == [f"n{ranked[0][1]}"]
    assert [n for n, _r in q.allocation] == [f"n{e[1]}" for e in ranked[:3]]
