"""Operation counts of the first cycle's work on the node table (issue 33): what it no
longer does per node or per partly used node. Counts, not timings."""

from __future__ import annotations

import pytest

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


@pytest.mark.parametrize("const, statics_made", [(False, 4), (True, 2)])
def test_a_first_cycle_compiles_and_ranks_per_shape_and_credential_set_not_per_job(
        monkeypatch, const, statics_made):
    """600 queued jobs of 3 request shapes and 3 users, no order carried: the first cycle
    compiles and limit-checks 3 shapes and works out 3 static priority parts, and the
    first job's for the order kept (core/firstselect.py), where Cycle.select does both for
    each of the 600 jobs; with no credential PRIORITY and no RES weight
    (priority/engine.STATIC_CONST) one static part for the whole queue instead of one per
    credential set. The order, priorities and decisions are Cycle.select's."""
    from maui_py.cfg import parse_config
    from maui_py.core import firstselect
    from maui_py.core.cycle import run_cycle
    from maui_py.model import ClusterSnapshot, Job
    from maui_py.priority import engine
    from maui_py.priority.engine import PriorityEngine

    monkeypatch.setattr(engine, "STATIC_CONST", const)
    nodes = tuple(Node(f"n{i}", Resources.of(4, 4000)) for i in range(4))
    jobs = tuple(Job(f"q{k}", f"u{k % 3}", JobRequest(tasks=1 + k % 3,
                                                     per_task=Resources.of(1, 500)),
                     600, 1000 - k % 50) for k in range(600))
    snap = ClusterSnapshot(2000, nodes, jobs)
    statics = {"n": 0}
    real_static = PriorityEngine._new_static

    def spy(self, job, _real=real_static):
        statics["n"] += 1
        return _real(self, job)
    results = []
    for per_shape in (True, False):
        before, statics["n"] = firstselect.shapes_compiled, 0
        real = firstselect.first_select
        if not per_shape:
            firstselect.first_select = lambda c, q: None
        PriorityEngine._new_static = spy
        try:
            got = run_cycle(snap, parse_config("RESERVATIONDEPTH 1\n"), explain=False)
        finally:
            firstselect.first_select = real
            PriorityEngine._new_static = real_static
        results.append((got, firstselect.shapes_compiled - before, statics["n"]))
    (fast, shapes, made), (slow, _none, per_job) = results
    # 3 credential sets (or one for the queue), and the first job's in order (the cache's)
    assert (shapes, made) == (3, statics_made) and per_job == 600
    assert fast.order == slow.order and fast.decisions == slow.decisions
    order = [(j.id, p.hex()) for j, _cr, p in fast.state.caches.selection.order]
    assert order == [(j.id, p.hex()) for j, _cr, p in slow.state.caches.selection.order]
