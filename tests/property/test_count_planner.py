"""The count planner (planning/counts.py): invariants under random operations, earliest
starts against a brute force, and the same answers as the node table where both apply."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg.choices import NodeAllocation
from maui_py.model import JobRequest, Node, Resources
from maui_py.planning.counts import CountTable, counting_applies, counts_request
from maui_py.planning.table import ReservationTable

FIRST = NodeAllocation.FIRSTAVAILABLE
"""Nodes in index (resource-manager) order: what these tests' expected nodes follow."""

SETTINGS = settings(max_examples=150 * int(os.environ.get("MAUI_TABLE_EXAMPLES_X", "1")),
                    deadline=None,
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
        by = now + data.draw(st.integers(0, 200))
        assert table.ending_by(by) == [o for _e, o in sorted(
            (h.end, o) for o, h in table.holds.items() if h.end <= by)]


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


def _place_in_order(table: CountTable, jobs: list[tuple[str, int, int]]) -> list[int]:
    """Each job at its earliest start around the holds before it (a start now holds
    processors from now), as a cycle with no memory re-makes priority reservations."""
    starts = []
    for owner, need, w in jobs:
        p = table.earliest_start(JobRequest(tasks=need), w, policy=FIRST)
        assert p
        starts.append(p.start)
        table.reserve_placement(owner, p, kind="priority")
    return starts


@SETTINGS
@given(st.integers(1, 8), st.sampled_from([1, 2]), st.data())
def test_replan_places_reservations_as_releasing_and_re_making_them_in_order_would(n, procs,
                                                                                   data):
    """CountTable.replan against the definition: release every reservation, then make
    each again in priority order at its earliest start. The table first goes through
    what a replay does between cycles: running jobs end early or on time, time
    advances, jobs start around the reservations, new reservations join the end."""
    total = n * procs
    table = CountTable(_nodes(n, procs), 0)
    for k in range(data.draw(st.integers(0, 6))):
        need = data.draw(st.integers(1, total))
        p = table.earliest_start(JobRequest(tasks=need), data.draw(st.integers(1, 200)),
                                 until=0, policy=FIRST)
        if p:
            table.reserve_placement(f"job:r{k}", p)
    jobs = [(f"res:{k}", data.draw(st.integers(1, total)), data.draw(st.integers(1, 150)))
            for k in range(data.draw(st.integers(1, 8)))]
    _place_in_order(table, jobs)
    stamp = table.freed
    for step in range(data.draw(st.integers(1, 6))):
        op = data.draw(st.sampled_from(["end", "advance", "start", "arrive"]))
        running = sorted(o for o in table.holds if o.startswith("job:"))
        if op == "end" and running:
            table.release(data.draw(st.sampled_from(running)))
        elif op == "advance":
            now = table.origin + data.draw(st.integers(1, 60))
            first = min((table.holds[o].start for o, *_ in jobs if o in table.holds),
                        default=now + 1)
            table.advance(min(now, first - 1))
        elif op == "start":
            p = table.earliest_start(JobRequest(tasks=data.draw(st.integers(1, total))),
                                     data.draw(st.integers(1, 100)), until=table.origin,
                                     policy=FIRST)
            if p:
                table.reserve_placement(f"job:s{step}", p)
        else:
            job = (f"res:a{step}", data.draw(st.integers(1, total)),
                   data.draw(st.integers(1, 150)))
            p = table.earliest_start(JobRequest(tasks=job[1]), job[2], policy=FIRST)
            if p.start > table.origin:
                table.reserve_placement(job[0], p, kind="priority")
                jobs.append(job)
    jobs = [j for j in jobs if j[0] in table.holds and table.holds[j[0]].start > table.origin]
    owners = [o for o, *_ in jobs]
    want_table, want = _remade(table, jobs)
    bounded = data.draw(st.booleans())
    got = _replan(table, owners, table.freed_until(stamp) if bounded else None)
    assert got == want
    for (o, _need, _w), t in zip(jobs, got):
        if t == table.origin:
            want_table.release(o)
            assert o not in table.holds
        else:
            assert (table.holds[o].start, table.holds[o].end) == (
                want_table.holds[o].start, want_table.holds[o].end)
    table._check()
    assert list(zip(table._times, table._deltas)) == list(zip(want_table._times,
                                                              want_table._deltas))
    assert table.used0 == want_table.used0


def _remade(table, jobs):
    """The definition replan is held to: a copy of `table` with the holds of `jobs` released,
    then made again in order at their earliest starts; (the copy, those starts)."""
    want_table = CountTable(table.nodes, 0)
    want_table.__dict__.update({k: (v.copy() if isinstance(v, (list, dict, set)) else v)
                                for k, v in table.__dict__.items()})
    for o, *_ in jobs:
        want_table.release(o)
    return want_table, _place_in_order(want_table, jobs)


def _replan(table, owners, bound):
    """The starts CountTable.replan gives the holds of `owners` it re-made, in order:
    the new start of each it moved, the old one of the others."""
    before = [table.holds[o].start for o in owners]
    done, moves = table.replan(owners, len(owners), bound)
    new = dict(moves)
    assert len(new) == len(moves) and set(new) <= set(owners[:done])
    assert all(new[o] != before[k] for k, o in enumerate(owners) if o in new)
    return [new.get(o, before[k]) for k, o in enumerate(owners[:done])]


def test_replan_a_hold_pushed_later_reaches_the_holds_after_it():
    """A falsifying example of a wrong shortcut (found with 20,000 examples): res:1 is
    pushed past its own place by res:0, which moved earlier; the load it adds after its
    old end reaches the place of a hold after it, whose own place must be checked again."""
    table = CountTable(_nodes(4, 1), 0)
    for k, w in enumerate((1, 1, 1, 2)):
        p = table.earliest_start(JobRequest(tasks=1), w, until=0, policy=FIRST)
        table.reserve_placement(f"job:r{k}", p)
    jobs = [("res:0", 1, 1), ("res:1", 3, 2)] + [(f"res:{k}", 1, 1) for k in range(2, 7)]
    _place_in_order(table, jobs)
    stamp = table.freed
    table.release("job:r0")
    owners = [o for o, *_ in jobs]
    want_table, want = _remade(table, jobs)
    got = _replan(table, owners, table.freed_until(stamp))
    assert got == want
    for o, t in zip(owners, got):
        if t == table.origin:
            want_table.release(o)       # a start now: released, for its owner to start
    table._check()
    assert list(zip(table._times, table._deltas)) == list(zip(want_table._times,
                                                              want_table._deltas))


def test_replan_settles_several_waiting_holds_at_once_before_a_search():
    """Two holds (res:0, res:1) wait to be subtracted when the search for res:2 reads
    past them: they are settled together, through one difference array. A processor
    is free from now until 75 only, too short for res:2, so nothing moves; a wrong sum
    (each hold's subtraction ending a segment early) started res:2 now. Found by a
    search for the smallest case that tells the two apart."""
    table = CountTable(_nodes(2, 1), 0)
    for k, w in enumerate((53, 75)):
        p = table.earliest_start(JobRequest(tasks=1), w, until=0, policy=FIRST)
        table.reserve_placement(f"job:r{k}", p)
    jobs = [("res:0", 2, 79), ("res:1", 2, 106), ("res:2", 1, 111)]
    assert _place_in_order(table, jobs) == [75, 154, 260]
    stamp = table.freed
    table.release("job:r0")
    owners = [o for o, *_ in jobs]
    want_table, want = _remade(table, jobs)
    assert want == [75, 154, 260]
    assert _replan(table, owners, table.freed_until(stamp)) == want
    table._check()
    assert list(zip(table._times, table._deltas)) == list(zip(want_table._times,
                                                              want_table._deltas))
