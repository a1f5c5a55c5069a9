"""The free-shape index (planning/freeshape.py): node kinds, the buckets, and the start-now
questions it answers without walking a node (an operation count, not a timing)."""

from __future__ import annotations

from maui_py.model import JobRequest, Node, Resources
from maui_py.planning.table import ReservationTable


def _cluster():
    nodes = [Node(f"c{i}", Resources.of(8, 32000)) for i in range(6)]
    nodes += [Node(f"g{i}", Resources.of(8, 64000, gpu=2), features=frozenset({"gpu"}),
                   partitions=frozenset({"gpu"})) for i in range(2)]
    return nodes


def _walks(table, monkeypatch) -> list[int]:
    calls = []
    real = ReservationTable._scan_start

    def counted(self, *a):
        calls.append(1)
        return real(self, *a)
    monkeypatch.setattr(ReservationTable, "_scan_start", counted)
    return calls


def test_kinds_split_by_capacity_features_and_partitions():
    table = ReservationTable(_cluster(), origin=0)
    shapes = table.shapes
    assert len(shapes.masks) == 2
    assert shapes.kind_of[:6] == [shapes.kind_of[0]] * 6 and shapes.kind_of[6] != shapes.kind_of[0]
    assert shapes.count[shapes.kind_of[0]] == {8: 6}


def test_a_full_cluster_answers_no_without_walking(monkeypatch):
    table = ReservationTable(_cluster(), origin=0)
    for i, nd in enumerate(table.nodes):       # 7 of 8 processors, most of the memory
        table.reserve(f"j{i}", 0, 1000, [(nd.name, Resources.of(7, nd.resources.mem - 1000))])
    table._check()
    assert table.shapes.count[table.shapes.kind_of[0]] == {1: 6}
    calls = _walks(table, monkeypatch)
    two_cores = JobRequest(tasks=2, per_task=Resources.of(1, 100), tasks_per_node=2)
    big_memory = JobRequest(tasks=1, per_task=Resources.of(1, 2000))
    too_many = JobRequest(tasks=9, per_task=Resources.of(1, 100))
    for req in (two_cores, big_memory, too_many):
        assert not table.earliest_start(req, 100, until=0, policy="FIRSTAVAILABLE")
    assert calls == []
    fits = JobRequest(tasks=1, per_task=Resources.of(1, 500))
    p = table.earliest_start(fits, 100, until=0, policy="FIRSTAVAILABLE")
    assert p and p.nodes == ("c0",) and calls == [1]


def test_buckets_follow_starts_ends_and_the_origin():
    table = ReservationTable(_cluster(), origin=0)
    k = table.shapes.kind_of[0]
    table.reserve("a", 0, 100, [("c0", Resources.of(3, 1000)), ("c1", Resources.of(3, 1000))])
    table.reserve("b", 50, 200, [("c2", Resources.of(8, 0))])
    assert table.shapes.count[k] == {8: 4, 5: 2}
    assert table.shapes.shapes[k][5] == {(5, 31000, 0): 2}
    table.advance(60)
    assert table.shapes.count[k] == {8: 3, 5: 2, 0: 1}
    table.release("a")
    assert table.shapes.count[k] == {8: 5, 0: 1}
    table._check()
