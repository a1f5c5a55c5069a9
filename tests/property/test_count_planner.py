"""The count planner (planning/counts.py): invariants under random operations, earliest
starts against a brute force, and the same answers as the node table where both apply."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg.choices import NodeAllocation
from maui_py.model import JobRequest, Node, Resources
from maui_py.planning.counts import CountTable, counting_applies, counts_request
from maui_py.planning.table import ReservationTable

FIRST = NodeAllocation.FIRSTAVAILABLE
"""Nodes in index (resource-manager) order: what these tests' expected nodes follow."""

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _nodes(n: int, procs: int) -> tuple[Node, ...]:
    return tuple(Node(f"n{i:02d}", Resources.of(procs)) for i in range(n))


def _brute(table: CountTable, need: int, w: int, after: int) -> int | None:
    """The earliest instant among `after` and every hold boundary where `need` processors
    are free over [t, t + w), by summing the holds at every boundary inside the window."""
    holds = list(table.holds.values())
    cands = sorted({after} | {x for h in holds for x in (h.start, h.end) if x > after})
    for t in cands:
        inside = sorted({t} | {x for h in holds for x in (h.start, h.end) if t < x < t + w})
        if all(sum(h.procs for h in holds if h.start <= x < h.end) + need <= table.total
               for x in inside):
            return t
    return None


@SETTINGS
@given(st.integers(1, 12), st.sampled_from([1, 1, 2, 4]), st.data())
def test_random_operations_keep_the_invariants_and_earliest_start_is_the_first_fit(n, procs, data):
    table = CountTable(_nodes(n, procs), 0)
    total = n * procs
    now = 0
    for step in range(data.draw(st.integers(1, 30))):
        op = data.draw(st.sampled_from(["start", "reserve", "release", "advance", "query"]))
        if op in ("start", "reserve", "query"):
            need = data.draw(st.integers(1, total))
            w = data.draw(st.integers(1, 200))
            after = now + data.draw(st.integers(0, 100)) if op != "start" else None
            p = table.earliest_start(JobRequest(tasks=need), w, after, policy=FIRST)
            want = _brute(table, need, w, now if after is None else after)
            assert (p.start if p else None) == want
            if p and op == "start" and p.start == now:
                assert sum(r.procs for _, r in p.allocation) == need
                table.reserve_placement(f"job:{step}", p)
            elif p and op == "reserve":
                table.reserve_placement(f"res:{step}", p, kind="priority")
        elif op == "release" and table.holds:
            owner = data.draw(st.sampled_from(sorted(table.holds)))
            assert table.release(owner)
            assert not table.release(owner)
        elif op == "advance":
            now += data.draw(st.integers(0, 150))
            gone = table.advance(now)
            assert all(o not in table.holds for o in gone)
        table._check()
        assert 0 <= table.free_now <= total


@SETTINGS
@given(st.integers(1, 10), st.sampled_from([1, 2, 4]), st.data())
def test_with_only_running_jobs_both_planners_give_the_same_earliest_start(n, procs, data):
    """Holds that started on concrete nodes: counting and node-by-node planning agree."""
    nodes = _nodes(n, procs)
    assert counting_applies(nodes)
    counts, exact = CountTable(nodes, 0), ReservationTable(nodes, 0)
    for k in range(data.draw(st.integers(0, 12))):
        need = data.draw(st.integers(1, n * procs))
        w = data.draw(st.integers(1, 300))
        p = counts.earliest_start(JobRequest(tasks=need), w, until=0, policy=FIRST)
        if not p:
            continue
        counts.reserve_placement(f"job:{k}", p)
        exact.reserve(f"job:{k}", 0, p.end, p.allocation)
    for _ in range(5):
        req = JobRequest(tasks=data.draw(st.integers(1, n * procs)))
        w = data.draw(st.integers(1, 300))
        a, b = counts.earliest_start(req, w, policy=FIRST), exact.earliest_start(req, w, policy=FIRST)
        assert bool(a) == bool(b) and (not a or a.start == b.start)


def test_only_plain_one_processor_tasks_are_counted():
    assert counts_request(JobRequest(tasks=8))
    assert not counts_request(JobRequest(tasks=8, exclusive=True))
    assert not counts_request(JobRequest(tasks=8, features=frozenset({"gpu"})))
    assert not counts_request(JobRequest(tasks=8, tasks_per_node=2))
    assert not counts_request(JobRequest(tasks=8, per_task=Resources.of(2)))
    assert not counts_request(JobRequest(tasks=2, hostlist=("n01",)))
    assert not counting_applies(_nodes(2, 4) + (Node("big", Resources.of(8)),))
    assert not counting_applies((Node("m", Resources.of(4, 1000)),))


def test_a_future_reservation_holds_a_count_not_nodes():
    """The CTC-SP2 case: a reservation later must not pin a processor that is free now and
    that a long job could use, when another processor comes free in time for it."""
    table = CountTable(_nodes(3, 1), 0)
    table.reserve("job:a", 0, 100, [("n00", Resources.of(1))])
    table.reserve("job:b", 0, 100, [("n01", Resources.of(1))])
    p = table.earliest_start(JobRequest(tasks=2), 50, policy=FIRST)
    assert p.start == 100 and p.allocation == ()
    table.reserve_placement("res:top", p, kind="priority")
    long_job = table.earliest_start(JobRequest(tasks=1), 1000, until=0, policy=FIRST)
    assert long_job and long_job.start == 0
    table.reserve_placement("job:long", long_job)
    table._check()
    assert not table.earliest_start(JobRequest(tasks=1), 1000, until=0, policy=FIRST)
