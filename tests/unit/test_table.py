"""Golden cases for the reservation table: resource kinds, node allocation policies, views."""

import pytest

from maui_py.cfg.choices import NodeAllocation
from maui_py.model import JobRequest, Node, NodeState, Resources
from maui_py.planning import owners
from maui_py.planning.table import FOREVER, OverAllocation, ReservationTable, Window

FIRST = NodeAllocation.FIRSTAVAILABLE
"""Nodes in index (resource-manager) order: what these tests' expected nodes follow."""

R = Resources.of


def nodes(n, procs=8, mem=8000, **kw):
    return [Node(f"n{i}", R(procs, mem), **kw) for i in range(n)]


def names(p):
    return [n for n, _ in p.allocation]


def test_memory_bound_request_packs_by_memory():
    t = ReservationTable(nodes(2), 0)
    p = t.earliest_start(JobRequest(tasks=4, per_task=R(1, 3000)), 100, policy=FIRST)
    assert p.start == 0 and sorted(r.procs for _, r in p.allocation) == [2, 2]
    assert not t.earliest_start(JobRequest(tasks=5, per_task=R(1, 3000)), 100, policy=FIRST)


def test_gpu_bound_request_waits_for_the_gpu_node():
    ns = nodes(3) + [Node("g0", R(8, 8000, gpu=2))]
    t = ReservationTable(ns, 0)
    t.reserve("a", 0, 500, [("g0", R(1, 0, gpu=2))])
    p = t.earliest_start(JobRequest(tasks=1, per_task=R(1, gpu=1)), 100, policy=FIRST)
    assert (p.start, names(p)) == (500, ["g0"])
    none = ReservationTable(nodes(2), 0).earliest_start(JobRequest(per_task=R(1, gpu=1)), 10, policy=FIRST)
    assert not none and "gpu" in none.reason


def test_feature_bound_request_uses_only_matching_nodes():
    ns = nodes(2) + [Node("f0", R(8, 8000), features=frozenset({"fast"}))]
    t = ReservationTable(ns, 0)
    t.reserve("a", 0, 300, [("f0", R(8))])
    p = t.earliest_start(JobRequest(tasks=2, features=frozenset({"fast"})), 60, policy=FIRST)
    assert (p.start, names(p)) == (300, ["f0"])
    miss = t.earliest_start(JobRequest(features=frozenset({"slow"})), 60, policy=FIRST)
    assert not miss and "slow" in miss.reason


def test_request_wider_than_the_cluster_says_so():
    t = ReservationTable(nodes(4), 0)
    p = t.earliest_start(JobRequest(tasks=33), 60, policy=FIRST)
    assert not p and "wider than the cluster" in p.reason and "32" in p.reason
    p = t.earliest_start(JobRequest(tasks=8, nodes=5), 60, policy=FIRST)
    assert not p and "5 nodes" in p.reason


def test_down_nodes_hold_nothing_and_host_nothing():
    ns = nodes(2) + [Node("d0", R(8, 8000), state=NodeState.DOWN)]
    t = ReservationTable(ns, 0)
    p = t.earliest_start(JobRequest(tasks=16), 60, policy=FIRST)
    assert p and "d0" not in names(p)
    assert not t.earliest_start(JobRequest(tasks=17), 60, policy=FIRST)


def test_exclusive_and_tasks_per_node_shapes():
    t = ReservationTable(nodes(3), 0)
    t.reserve("a", 0, 200, [("n0", R(1))])
    assert names(t.earliest_start(JobRequest(tasks=2, exclusive=True), 50, policy=FIRST)) == ["n1"]
    p = t.earliest_start(JobRequest(tasks=9, exclusive=True), 50, policy="FIRSTAVAILABLE")
    assert p.start == 0 and names(p) == ["n1", "n2"]
    assert all(r == R(8, 8000) for _, r in p.allocation)
    q = t.earliest_start(JobRequest(tasks=6, tasks_per_node=3), 50, policy="FIRSTAVAILABLE")
    assert q.start == 0 and [r.procs for _, r in q.allocation] == [3, 3]
    e = t.earliest_start(JobRequest(tasks=17, exclusive=True), 50, policy=FIRST)
    assert e.start == 200


def test_firstavailable_takes_resource_manager_order():
    t = ReservationTable(nodes(4), 0)
    assert names(t.earliest_start(JobRequest(tasks=2, nodes=2), 10, policy="FIRSTAVAILABLE")) == ["n0", "n1"]


def test_lastavailable_fits_in_time_before_and_after():
    t = ReservationTable(nodes(5, procs=1), 0)
    t.reserve("a", 0, 300, [("n1", R(1))])
    t.reserve("b", 0, 500, [("n2", R(1))])
    t.reserve("c", 0, 400, [("n4", R(1))])
    t.reserve("later", 700, 900, [("n3", R(1))])
    now = t.earliest_start(JobRequest(tasks=1), 100, policy="LASTAVAILABLE")
    assert names(now) == ["n3"]                     # ends 600 before n3 is needed at 700
    fut = t.earliest_start(JobRequest(tasks=2), 100, after=500, policy="LASTAVAILABLE")
    assert fut.start == 500 and names(fut) == ["n2", "n4"]   # freed last before 500
    first = t.earliest_start(JobRequest(tasks=2), 100, after=500, policy="FIRSTAVAILABLE")
    assert names(first) == ["n0", "n1"]


def test_minresource_prefers_the_smallest_node_that_fits():
    ns = [Node("big", R(64, 256000)), Node("mid", R(16, 64000)), Node("small", R(4, 8000))]
    t = ReservationTable(ns, 0)
    assert names(t.earliest_start(JobRequest(tasks=4), 10, policy="MINRESOURCE")) == ["small"]
    assert names(t.earliest_start(JobRequest(tasks=8), 10, policy="MINRESOURCE")) == ["small", "mid"]
    one = JobRequest(tasks=8, nodes=1)
    assert names(t.earliest_start(one, 10, policy="MINRESOURCE")) == ["mid"]


def test_priority_and_cpuload_policies():
    ns = [Node("a", R(8), priority=1, load=6.0), Node("b", R(8), priority=5, load=0.5),
          Node("c", R(8), priority=3, load=2.0)]
    t = ReservationTable(ns, 0)
    assert names(t.earliest_start(JobRequest(tasks=8), 10, policy="PRIORITY")) == ["b"]
    assert names(t.earliest_start(JobRequest(tasks=16, nodes=2), 10, policy="CPULOAD")) == ["b", "c"]


def test_packing_keeps_idle_nodes_whole():
    t = ReservationTable(nodes(2), 0)
    t.reserve("half", 0, 300, [("n1", R(4))])
    p = t.earliest_start(JobRequest(tasks=4), 100, policy="LASTAVAILABLE")
    assert names(p) == ["n1"]


def test_reserve_refuses_over_allocation_and_release_is_idempotent():
    t = ReservationTable(nodes(1), 0)
    t.reserve("a", 0, 100, [("n0", R(6))])
    with pytest.raises(OverAllocation):
        t.reserve("b", 50, 150, [("n0", R(4))])
    with pytest.raises(KeyError):
        t.reserve("a", 200, 300, [("n0", R(1))])
    t.reserve("b", 100, 150, [("n0", R(8))])
    t._check()
    assert t.release("a") and not t.release("a")
    t._check()


def test_running_jobs_loaded_as_reported_and_overcommit_flagged():
    t = ReservationTable(nodes(2), 1000)
    t.load([("j1", 400, 1600, [("n0", R(8))], "job"), ("j2", 900, 1200, [("n1", R(6))], "job"),
            ("j3", 950, 2000, [("n1", R(4))], "job")])
    assert t.overcommitted == {1}
    assert t.free_at("n0", 1000) == R(0, 8000) and t.free_at("n0", 1600) == R(8, 8000)
    t._check()


def test_advance_folds_the_past_and_reports_expired_holds():
    t = ReservationTable(nodes(2), 0)
    t.reserve("a", 0, 100, [("n0", R(8))])
    t.reserve("b", 50, 300, [("n1", R(8))])
    assert t.advance(150) == ["a"]
    t._check()
    assert set(t.holds) == {"b"} and t.earliest_start(JobRequest(tasks=16), 10, policy=FIRST).start == 300


def test_windows_list_free_procs_widest_first():
    t = ReservationTable(nodes(3), 0)
    t.reserve("run", 0, 500, [("n0", R(8))])
    t.reserve("res", 3600, 7200, [("n1", R(8))])
    t.reserve("part", 0, 100, [("n2", R(2))])
    t.reserve("part2", 1000, 2000, [("n2", R(8))])
    assert t.windows() == [Window(14, 2, 1000), Window(8, 1, 3600)]
    assert t.windows(min_duration=2000) == [Window(8, 1, 3600)]
    t.release("res")
    assert t.windows()[-1] == Window(8, 1, FOREVER)


def test_dump_names_holds_and_nodes():
    t = ReservationTable(nodes(1), 0)
    t.reserve("job42", 0, 60, [("n0", R(2))])
    text = t.dump()
    assert "hold job42 job [0, 60) n0:procs=2" in text and "node n0 cap procs=8" in text


def test_ignoring_a_reservation_that_starts_where_a_job_ends():
    # n0 is used without a break: job to 100, then the reservation to 160. Ignored, the
    # reservation's node comes free at 100 although no change point of n0 lies there.
    t = ReservationTable(nodes(2, procs=1), 0)
    t.reserve("job", 0, 100, [("n0", R(1))])
    t.reserve("res", 100, 160, [("n0", R(1))])
    t.reserve("other", 0, 500, [("n1", R(1))])
    assert t.earliest_start(JobRequest(tasks=1), 60, policy=FIRST).start == 160
    p = t.earliest_start(JobRequest(tasks=1), 60, ignore=("res",), policy=FIRST)
    assert p.start == 100 and names(p) == ["n0"]


def test_a_job_inside_a_reservation_is_counted_once():
    # a reservation of 4 of n0's 8 procs; a member job takes 3 of them
    t = ReservationTable(nodes(1), 0)
    t.reserve("sr:x", 0, 1000, [("n0", R(4))], kind="standing")
    member = t.earliest_start(JobRequest(tasks=7), 100, ignore=("sr:x",), policy=FIRST)
    assert member.start == 0
    outsider = t.earliest_start(JobRequest(tasks=5), 100, policy=FIRST)
    assert outsider.start == 1000                   # only 4 are free to outsiders
    t.reserve("job:m", 0, 100, [("n0", R(3))], inside=("sr:x",))
    t._check()                                      # no double counting: usage <= capacity
    assert t.free_at("n0", 0) == R(4, 8000)         # outsiders: still the reservation's 4
    assert t.earliest_start(JobRequest(tasks=5), 100, policy=FIRST).start == 1000
    other = t.earliest_start(JobRequest(tasks=5), 100, ignore=("sr:x",), policy=FIRST)
    assert other.start == 0                          # 1 left inside + 4 outside
    assert t.earliest_start(JobRequest(tasks=6), 100, ignore=("sr:x",), policy=FIRST).start == 100
    t.release("job:m")
    t._check()
    assert t.credits_against == {} and t.free_at("n0", 0) == R(4, 8000)
    t.reserve("job:m2", 0, 2000, [("n0", R(2))], inside=("sr:x",))
    t.release("sr:x")                               # the reservation goes: its credit too
    t._check()
    assert t.free_at("n0", 0) == R(6, 8000) and owners.credit("job:m2", "sr:x") not in t.holds


def test_a_hold_made_again_with_a_later_end_outlives_its_first_end():
    """The end heap keeps a released hold's entry until it surfaces: advancing past the
    first end must not take the owner's new hold with it, and the heap is compacted once
    stale entries outnumber the holds."""
    t = ReservationTable(nodes(2), 0)
    t.reserve("a", 0, 100, [("n0", R(8))])
    t.release("a")
    t.reserve("a", 0, 300, [("n0", R(8))])
    assert t.advance(150) == [] and set(t.holds) == {"a"}
    t._check()
    for k in range(200):                # stale entries well past twice the holds
        t.reserve(f"x{k}", 160, 170 + k, [("n1", R(1))])
        t.release(f"x{k}")
    t._check()
    assert len(t._ends) <= 2 * len(t.holds) + 64
    assert t.advance(300) == ["a"] and not t.holds
    t._check()


def _gpu_table_with_spies(seen):
    """Five partly used nodes of 4 processors and 2 GPUs, whose GPUs are all taken over
    [0, 100) (n0), [200, 300) (n1), [0, 400) (n2), [99, 150) (n3) and [199, 260) (n4, one
    of them taken before 100); each evaluation of a node's fit at start s is appended to
    `seen` as (node, s)."""
    t = ReservationTable([Node(f"n{i}", R(4, 0, gpu=2)) for i in range(5)], 0)
    t.reserve("a", 0, 100, [("n0", R(1, 0, gpu=2))])
    t.reserve("b", 200, 300, [("n1", R(1, 0, gpu=2))])
    t.reserve("c", 0, 400, [("n2", R(1, 0, gpu=2))])
    t.reserve("d", 99, 150, [("n3", R(1, 0, gpu=2))])
    t.reserve("f", 0, 100, [("n4", R(1, 0, gpu=1))])
    t.reserve("g", 199, 260, [("n4", R(1, 0, gpu=2))])
    t.reserve("e", 0, 400, [(f"n{i}", R(1, 0)) for i in range(5)])
    t._check()
    for name in ("_fit_between", "_fit_now", "_fit"):
        def spy(cr, i, s, *rest, _f=getattr(t, name)):
            seen.append((i, s))
            return _f(cr, i, s, *rest)
        setattr(t, name, spy)
    fits_now = t._fits_now

    def spy_now(cr, mask, e, *rest):
        seen.extend((i, 0) for i in range(5) if mask >> i & 1)
        return fits_now(cr, mask, e, *rest)
    t._fits_now = spy_now
    return t


@pytest.mark.parametrize("after", [0, 50, 100])
def test_a_gpu_request_sets_aside_nodes_whose_gpus_are_all_taken_and_only_those(after):
    """A node whose GPUs are all taken at a candidate start or within its window holds no
    GPU task there: the scan reads that off the gres index (its state at the start and
    its points inside the window, both as the scan moves on) and never evaluates the
    node: n2 at all, n0 before 100, n3 before 150, n4 from 100 to 259. The bounds are
    exact (n3 and n4 are taken a second before a window ends; n0's GPUs free at 100 and
    n1's are taken from 200, so both hold two tasks over [100, 200), the earliest window
    with four), from the origin, from 50 and from 100."""
    seen = []
    t = _gpu_table_with_spies(seen)
    p = t.earliest_start(JobRequest(tasks=4, per_task=R(1, 0, gpu=1)), 100, after,
                         policy=FIRST)
    assert p.start == 100 and sorted(names(p)) == ["n0", "n1"]
    assert (1, after) in seen and (0, 100) in seen, seen
    assert not any(i == 2 or (i == 0 and s < 100) or (i == 3 and s < 150)
                   or (i == 4 and 99 < s < 260) for i, s in seen), seen
