"""Invariants of the reservation table on random clusters, holds and requests."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg.choices import NodeAllocation
from maui_py.planning.table import NoPlacement, ReservationTable

from .strategies import brute_earliest, clusters, populate, requests

FIRST = NodeAllocation.FIRSTAVAILABLE
"""Nodes in index (resource-manager) order: what these tests' expected nodes follow."""

EXAMPLES = 200
"""Examples per test; MAUI_TABLE_EXAMPLES_X=10 runs ten times as many (a soak run, not CI)."""
SETTINGS = settings(max_examples=EXAMPLES * int(os.environ.get("MAUI_TABLE_EXAMPLES_X", "1")),
                    deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def snapshot_of(t: ReservationTable):
    p = t._pts
    return (t.origin, t.idle0, t.full0, list(zip(p.times, p.chg, p.idle, p.full)), [list(x) for x in t._T],
            [list(x) for x in t._U], sorted((o, h.start, h.end, h.alloc) for o, h in t.holds.items()),
            [sorted(t.holds_on(i)) for i in range(len(t.nodes))])


def check_allocation(table, req, p, w):
    tasks_by_node = {}
    d = table.vector(req.per_task)
    for name, res in p.allocation:
        i = table.index[name]
        nd = table.nodes[i]
        assert nd.state.usable and req.features <= nd.features
        if req.hostlist:
            assert name in req.hostlist
        v = table.vector(res)
        if req.exclusive:
            assert v == table.cap[i]
            k = min(c // x for c, x in zip(table.cap[i], d) if x) if any(d) else 1
        else:
            k = min(a // x for a, x in zip(v, d) if x) if any(d) else 1
            assert tuple(x * k for x in d) == v
        tasks_by_node[name] = k
    assert p.end - p.start == w
    if req.tasks_per_node:
        need = max(req.nodes, -(-req.tasks // req.tasks_per_node))
        assert len(tasks_by_node) == need
        assert all(k >= req.tasks_per_node for k in tasks_by_node.values())
    elif req.nodes:
        assert len(tasks_by_node) == req.nodes and sum(tasks_by_node.values()) >= req.tasks
    else:
        assert sum(tasks_by_node.values()) >= req.tasks


@SETTINGS
@given(st.data())
def test_earliest_start_is_feasible_and_minimal(data):
    nodes = data.draw(clusters())
    table = ReservationTable(nodes, origin=1000)
    populate(data.draw, table)
    table._check()
    req = data.draw(requests(nodes))
    w = data.draw(st.integers(1, 600))
    after = 1000 + data.draw(st.integers(0, 400))
    policy = data.draw(st.sampled_from(["FIRSTAVAILABLE", "LASTAVAILABLE", "MINRESOURCE",
                                        "PRIORITY", "CPULOAD", "FASTEST"]))
    p = table.earliest_start(req, w, after, policy=policy)
    expect = brute_earliest(table, req, w, after)
    if expect is None:
        assert isinstance(p, NoPlacement) and p.reason
        return
    assert p, p
    assert p.start == expect
    check_allocation(table, req, p, w)
    before = snapshot_of(table)
    table.reserve("q", p.start, p.end, p.allocation)   # raises if any node is over-allocated
    table._check()
    assert table.release("q") and not table.release("q")
    table._check()
    assert snapshot_of(table) == before


@SETTINGS
@given(st.data())
def test_incremental_table_equals_rebuilt(data):
    nodes = data.draw(clusters(max_nodes=24))
    table = ReservationTable(nodes, origin=0)
    populate(data.draw, table, max_holds=10)
    for owner in data.draw(st.lists(st.sampled_from(sorted(table.holds) or ["none"]), max_size=3)):
        table.release(owner)
    now = data.draw(st.integers(0, 700))
    table.advance(now)
    table._check()
    fresh = ReservationTable(nodes, origin=now)
    for o, h in sorted(table.holds.items()):
        fresh.reserve(o, h.start, h.end, [(nodes[i].name, table.resources(v)) for i, v in h.alloc],
                      kind=h.kind)
    fresh._check()
    a, b = snapshot_of(table), snapshot_of(fresh)
    assert a[:6] == b[:6]


def busy_table(data, max_nodes):
    """A random populated table from origin 0, a request for it and a wallclock."""
    nodes = data.draw(clusters(max_nodes=max_nodes))
    table = ReservationTable(nodes, origin=0)
    populate(data.draw, table)
    return nodes, table, data.draw(requests(nodes)), data.draw(st.integers(1, 600))


@SETTINGS
@given(st.data())
def test_start_now_question_agrees_with_full_scan(data):
    _nodes, table, req, w = busy_table(data, 32)
    now_only = table.earliest_start(req, w, until=0, policy=FIRST)
    full = table.earliest_start(req, w, policy=FIRST)
    if full and full.start == 0:
        assert now_only and now_only.start == 0
    else:
        assert not now_only


@SETTINGS
@given(st.data())
def test_grouped_node_choice_equals_the_general_one(data):
    from maui_py.planning.nodechoice import select
    _nodes, table, req, w = busy_table(data, 40)
    after = data.draw(st.integers(0, 400))
    policy = data.draw(st.sampled_from(["FIRSTAVAILABLE", "LASTAVAILABLE", "MINRESOURCE"]))
    cr = table.compile(req)
    if not cr:
        return
    found = table.scan(cr, w, after)
    if found is None:
        return
    t, fast, fits = found
    a = select(table, cr, t, w, fast, fits, policy, shortcut=True)
    b = select(table, cr, t, w, fast, fits, policy, shortcut=False)
    assert sorted(a) == sorted(b)


@SETTINGS
@given(st.data())
def test_ignoring_a_hold_equals_releasing_it(data):
    _nodes, table, req, w = busy_table(data, 32)
    if not table.holds:
        return
    owner = data.draw(st.sampled_from(sorted(table.holds)))
    after = data.draw(st.integers(0, 300))
    ignoring = table.earliest_start(req, w, after, ignore=(owner,), policy=FIRST)
    table.release(owner)
    released = table.earliest_start(req, w, after, policy=FIRST)
    assert bool(ignoring) == bool(released)
    if released:
        assert ignoring.start == released.start


@SETTINGS
@given(st.data())
def test_members_inside_reservations_are_counted_once(data):
    import copy
    nodes, table, req, w = busy_table(data, 16)
    res = []
    for k in range(data.draw(st.integers(1, 3))):
        r = data.draw(requests(nodes))
        p = table.earliest_start(r, data.draw(st.integers(50, 800)), data.draw(st.integers(0, 300)), policy=FIRST)
        if p:
            table.reserve(f"sr:{k}", p.start, p.end, p.allocation, kind="standing")
            res.append(f"sr:{k}")
    if not res:
        return
    for k in range(data.draw(st.integers(0, 6))):
        access = tuple(data.draw(st.sets(st.sampled_from(res))))
        r = data.draw(requests(nodes))
        p = table.earliest_start(r, data.draw(st.integers(1, 400)), data.draw(st.integers(0, 300)),
                                 ignore=access, policy=FIRST)
        if p:
            table.reserve_placement(f"m{k}", p, inside=access)
            table._check()
    access = tuple(data.draw(st.sets(st.sampled_from(res))))
    after = data.draw(st.integers(0, 300))
    ignoring = table.earliest_start(req, w, after, ignore=access, policy=FIRST)
    other = copy.deepcopy(table)
    for o in access:
        other.release(o)
    other._check()
    released = other.earliest_start(req, w, after, policy=FIRST)
    assert bool(ignoring) == bool(released)
    if released:
        assert ignoring.start == released.start
    for o in data.draw(st.permutations(sorted(table.holds))):
        if data.draw(st.booleans()):
            table.release(o)
            table._check()
    table.advance(data.draw(st.integers(0, 500)))
    table._check()


def reserve_at_earliest(table, req, w, owner):
    """Reserve `req` for `owner` at its earliest start, checked against the brute-force
    search (nothing when neither finds one), and check the table."""
    p = table.earliest_start(req, w, policy=FIRST)
    expect = brute_earliest(table, req, w, 0)
    if expect is None:
        assert not p
        return
    assert p and p.start == expect
    table.reserve(owner, p.start, p.end, p.allocation)
    table._check()


@SETTINGS
@given(st.data())
def test_reservations_made_in_turn_start_where_a_full_scan_puts_them(data):
    """Earlier starts of the same request shape bound later scans (ReservationTable._floor):
    each start is still the earliest, as the brute-force search finds it."""
    _nodes, table, req, _w = busy_table(data, 24)
    for k, w in enumerate(data.draw(st.lists(st.integers(1, 600), min_size=2, max_size=5))):
        reserve_at_earliest(table, req, w, f"r{k}")


@SETTINGS
@given(st.data())
def test_reservations_of_larger_and_smaller_tasks_in_turn_start_where_a_full_scan_puts_them(data):
    """Earlier starts bound later scans whose per-task vectors are no smaller componentwise
    (ReservationTable._floor), and only those: requests of one shape with more or fewer
    processors and memory per task, more or fewer tasks, reserved in turn, each start still
    the earliest the brute-force search finds."""
    from dataclasses import replace

    from maui_py.model import Resources
    _nodes, table, req, _w = busy_table(data, 24)
    pt = req.per_task
    for k in range(data.draw(st.integers(2, 6))):
        procs = max(pt.procs + data.draw(st.sampled_from([-1, 0, 0, 1])), 1)
        mem = max(pt.mem + data.draw(st.sampled_from([-250, 0, 0, 250, 1000])), 0)
        tasks = req.tasks
        if not req.tasks_per_node:
            tasks = max(tasks + data.draw(st.sampled_from([-1, 0, 1])), max(req.nodes, 1))
        r = replace(req, tasks=tasks, per_task=Resources.of(procs, mem, dict(pt.gres)))
        w = data.draw(st.integers(1, 600))
        reserve_at_earliest(table, r, w, f"r{k}")
