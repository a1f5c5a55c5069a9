"""Invariants of the reservation table on random clusters, holds and requests."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg.choices import NodeAllocation
from maui_py.model import JobRequest, Node, Resources
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
    # Ignoring never sees more room than releasing (a release lets the members re-take
    # credit, which only grows in total), and sees the same where no member of an ignored
    # reservation is also inside a kept one: see test_a_member_inside_an_ignored_and_a_kept_
    # reservation_is_counted_inside_the_ignored_one.
    assert not ignoring or (released and released.start <= ignoring.start)
    straddles = any(set(h.inside) & set(access) and set(h.inside) - set(access)
                    for h in table.holds.values() if h.kind != "credit")
    if not straddles:
        assert bool(ignoring) == bool(released)
        if released:
            assert ignoring.start == released.start
    if ignoring:                        # where ignoring puts a member, the node has room
        table.reserve_placement("q", ignoring, inside=access)
        table._check()
        table.release("q")
    for o in data.draw(st.permutations(sorted(table.holds))):
        if data.draw(st.booleans()):
            table.release(o)
            table._check()
    table.advance(data.draw(st.integers(0, 500)))
    table._check()


@SETTINGS
@given(st.data())
def test_gpu_requests_where_gpus_run_out_start_where_a_full_scan_puts_them(data):
    """The scan sets aside nodes whose GPUs are all taken at a candidate start or within
    its window (the gres index, ReservationTable._gpts). On tables where GPU holds use up
    nodes' GPUs, after the origin moved: GPU requests from any instant start where the
    brute-force search puts them, reserved in turn too (a first cycle's GPU reservations),
    and ignoring a hold still equals releasing it."""
    nodes = data.draw(clusters(max_nodes=24, gpus=(1, 2, 4)))
    table = ReservationTable(nodes, origin=0)
    populate(data.draw, table, gpus=(0, 1, 1, 2))
    now = data.draw(st.integers(0, 300))
    table.advance(now)
    table._check()
    for k in range(data.draw(st.integers(1, 4))):
        req = data.draw(requests(nodes, gpus=(1, 1, 2)))
        w = data.draw(st.integers(1, 600))
        after = now + data.draw(st.integers(0, 400))
        p = table.earliest_start(req, w, after, policy=FIRST)
        expect = brute_earliest(table, req, w, after)
        assert (p.start if p else None) == expect
        reserve_at_earliest(table, req, w, f"r{k}", now)
    if table.holds:
        req = data.draw(requests(nodes, gpus=(1, 2)))
        w = data.draw(st.integers(1, 600))
        owner = data.draw(st.sampled_from(sorted(table.holds)))
        ignoring = table.earliest_start(req, w, ignore=(owner,), policy=FIRST)
        table.release(owner)
        table._check()
        released = table.earliest_start(req, w, policy=FIRST)
        assert (ignoring.start if ignoring else None) == (released.start if released else None)


def reserve_at_earliest(table, req, w, owner, after=0):
    """Reserve `req` for `owner` at its earliest start, checked against the brute-force
    search (nothing when neither finds one), and check the table."""
    p = table.earliest_start(req, w, after, policy=FIRST)
    expect = brute_earliest(table, req, w, after)
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


@st.composite
def reported_holds(draw, nodes, origin):
    """Holds as a resource manager reports running jobs: any nodes (the same node in
    several holds, or twice in one), any amounts up to a little over capacity (load does
    no room check), starts before the origin, ends at or before it, empty allocations."""
    out = []
    for k in range(draw(st.integers(0, 25))):
        alloc = []
        for i in draw(st.lists(st.integers(0, len(nodes) - 1), max_size=5)):
            r = nodes[i].resources
            gpu = r.gres_count("gpu")
            alloc.append((nodes[i].name, Resources.of(
                draw(st.integers(0, r.procs + 1)), draw(st.integers(0, r.mem)),
                gpu=draw(st.integers(0, gpu)) if gpu else 0)))
        start = origin + draw(st.integers(-300, 300))
        end = start + draw(st.one_of(st.integers(1, 600), st.integers(-5, 5)))
        out.append((f"j{k}", start, end, alloc, draw(st.sampled_from(["job", "reservation"]))))
    return out


@SETTINGS
@given(st.data())
def test_loading_a_fresh_table_equals_loading_holds_one_at_a_time(data):
    """load() into a table that never held anything builds every step function and set
    at once (_load_fresh); into any other table it splices hold by hold. Both give the
    same table."""
    nodes = data.draw(clusters(max_nodes=24))
    origin = 1000
    holds = data.draw(reported_holds(nodes, origin))
    fresh = ReservationTable(nodes, origin)
    fresh.load(holds)
    spliced = ReservationTable(nodes, origin)
    spliced.load([])                    # no longer fresh: the next load splices
    spliced.load(holds)
    for t in (fresh, spliced):
        t._check()
    assert snapshot_of(fresh) == snapshot_of(spliced)
    assert fresh._pts.frees == spliced._pts.frees
    for name in ("later", "fills", "free_now", "overcommitted"):
        assert getattr(fresh, name) == getattr(spliced, name), name
    assert (fresh.version, fresh.freed) == (spliced.version - 1, spliced.freed - 1)
    assert sorted(fresh._ends) == sorted(spliced._ends)
    held = [h for h in holds if h[0] in fresh.holds]
    if held:                            # an owner loaded twice is refused either way
        for t in (ReservationTable(nodes, origin), spliced):
            try:
                t.load(holds + held[:1])
            except KeyError:
                continue
            raise AssertionError("an owner loaded twice was accepted")


def test_loading_a_node_twice_in_one_hold_sums_its_amounts():
    """The regression example the fresh load must agree on: one hold naming a node twice
    and a second hold on it starting before the origin, together over its capacity."""
    nodes = [Node("n0", Resources.of(4, 1000)), Node("n1", Resources.of(4, 1000))]
    holds = [("a", 900, 1500, [("n0", Resources.of(2, 100)), ("n0", Resources.of(1, 0))], "job"),
             ("b", 1000, 1200, [("n0", Resources.of(2, 0)), ("n1", Resources.of(4, 0))], "job")]
    fresh = ReservationTable(nodes, 1000)
    fresh.load(holds)
    fresh._check()
    assert fresh.overcommitted == {0} and fresh.free_now == -1   # 5 of n0's 4 in use
    assert fresh.free_at("n0", 1200) == Resources.of(1, 900)
    assert fresh.free_at("n1", 1200) == Resources.of(4, 1000)


def test_a_member_inside_an_ignored_and_a_kept_reservation_is_counted_inside_the_ignored_one():
    """The falsifying example of the 10x soak at 250734c, cut down. Member m2 is inside
    sr:1 and sr:0 and took its credit against sr:1 (the first it named). A job that may use
    sr:1 ignores sr:1 and the credits against it: m2 then counts in full next to sr:0,
    though a release of sr:1 lets m2 re-take its credit against sr:0, where it fits. So
    the ignoring question answers later than the released table would (1 against 0): a
    start too late, never an over-allocation, as a hold placed there shows. Re-working
    the credits of such members for each question is left undone (docs/algorithms.md)."""
    import copy
    t = ReservationTable([Node("n0", Resources.of(4))], 0)
    t.reserve("sr:0", 0, 50, [("n0", Resources.of(3))], kind="standing")
    t.reserve("sr:1", 0, 50, [("n0", Resources.of(1))], kind="standing")
    t.reserve("m2", 0, 1, [("n0", Resources.of(1))], inside=("sr:1", "sr:0"))
    assert [t.holds[c].inside for c in t.holds["m2"].credits] == [("sr:1",)]
    req = JobRequest(tasks=1, per_task=Resources.of(1))
    released = copy.deepcopy(t)
    released.release("sr:1")
    released._check()
    assert [released.holds[c].inside for c in released.holds["m2"].credits] == [("sr:0",)]
    assert released.earliest_start(req, 248, 0, policy=FIRST).start == 0
    ignoring = t.earliest_start(req, 248, 0, ignore=("sr:1",), policy=FIRST)
    assert ignoring.start == 1
    t.reserve_placement("q", ignoring, inside=("sr:1",))
    t._check()
