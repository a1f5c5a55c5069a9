"""check_snapshot: each kind of inconsistent resource-manager fact is resolved so that the
cycle runs, the rest is scheduled, nothing is over-allocated and a warning names the record."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.core.cycle import run_cycle
from maui_py.model import (ClusterSnapshot, Job, JobRequest, JobState, NodeState, Reservation,
                           ReservationKind, Resources)
from maui_py.rm.check import MAX_SECONDS, check_snapshot
from maui_py.store import Store

from .helpers import EASY, NOW, node, one_cycle, over_allocated, running, waiting

NODES = (node("n0"), node("n1"), node("n2"), node("n3"))


def snap(nodes=NODES, jobs=(), reservations=()) -> ClusterSnapshot:
    return ClusterSnapshot(NOW, tuple(nodes), tuple(jobs), tuple(reservations))


def state_of(s: ClusterSnapshot, name: str) -> NodeState:
    return next(n.state for n in s.nodes if n.name == name)


def started(result) -> set[str]:
    return {s.job_id for s in result.starts()}


def mentions(warnings: list[str], *words: str) -> bool:
    return any(all(w in text for w in words) for text in warnings)


def test_a_consistent_snapshot_comes_back_as_it_is():
    s = snap(jobs=[running("r1", {"n0": Resources(2)}), waiting("q1")])
    checked, warnings = check_snapshot(s)
    assert checked is s and warnings == []


def test_the_cycle_alone_fails_on_a_job_running_on_an_unknown_node():
    s = snap(jobs=[running("r1", {"ghost": Resources(2)})])
    with pytest.raises(KeyError, match="unknown node"):
        run_cycle(s, EASY)


def test_a_job_on_an_unknown_node_keeps_its_known_nodes_and_the_rest_is_scheduled():
    s = snap(jobs=[running("r1", {"ghost": Resources(2), "n0": Resources(4)}),
                   waiting("q1", 4), waiting("q2", 4), waiting("q3", 4), waiting("q4", 4)])
    checked, warnings, result = one_cycle(s)
    assert mentions(warnings, "r1", "ghost")
    assert checked.job("r1").allocation == (("n0", Resources(4)),)
    assert len(started(result)) == 3                       # n1..n3; n0 stays held by r1
    assert "n0" not in {n for st_ in result.starts() for n in st_.nodes}
    assert over_allocated(checked, result) == []


def test_a_gpu_allocation_on_a_node_without_gres_makes_that_node_unusable():
    s = snap(jobs=[running("g1", {"n0": Resources.of(1, gpu=1)}), waiting("q1", 4),
                   waiting("q2", 4), waiting("q3", 4), waiting("q4", 4)])
    with pytest.raises(KeyError):
        run_cycle(s, EASY)                                  # no node has a gpu at all
    checked, warnings, result = one_cycle(s)
    assert mentions(warnings, "g1", "gpu", "n0")
    assert not state_of(checked, "n0").usable
    assert checked.job("g1").allocation == (("n0", Resources(1)),)
    assert started(result) == {"q1", "q2", "q3"}
    assert over_allocated(checked, result) == []


def test_allocations_beyond_a_nodes_capacity_make_it_unusable():
    s = snap(jobs=[running("a", {"n0": Resources(3)}), running("b", {"n0": Resources(3)}),
                   waiting("q1", 1), waiting("q2", 4)])
    checked, warnings, result = one_cycle(s)
    assert mentions(warnings, "node n0", "a", "b")
    assert state_of(checked, "n0") is NodeState.DRAINING
    assert started(result) == {"q1", "q2"}
    assert "n0" not in {n for st_ in result.starts() for n in st_.nodes}
    assert over_allocated(checked, result) == []


def test_a_node_listed_twice_with_different_facts_is_unusable_and_identical_copies_are_one():
    s = snap(nodes=NODES + (node("n1", procs=64), node("n2")),
             jobs=[waiting(f"q{i}", 4) for i in range(4)])
    with pytest.raises(ValueError, match="duplicate node"):
        run_cycle(s, EASY)
    checked, warnings, result = one_cycle(s)
    assert [n.name for n in checked.nodes] == ["n0", "n1", "n2", "n3"]
    assert mentions(warnings, "n1", "different") and mentions(warnings, "n2", "kept once")
    assert not state_of(checked, "n1").usable and state_of(checked, "n2").usable
    assert len(started(result)) == 3
    assert over_allocated(checked, result) == []


def test_a_running_job_listed_twice_keeps_the_first_copy_and_the_others_nodes_are_unusable():
    s = snap(jobs=[running("r", {"n0": Resources(4)}), running("r", {"n1": Resources(4)}),
                   waiting("q", 1, 60), waiting("q", 2, 60), waiting("same", 4),
                   waiting("same", 4), waiting("w", 4)])
    checked, warnings, result = one_cycle(s)
    assert [j.id for j in checked.jobs] == ["r", "same", "w"]
    assert checked.job("r").allocation == (("n0", Resources(4)),)
    assert not state_of(checked, "n1").usable
    assert mentions(warnings, "job r", "different") and mentions(warnings, "job q", "not scheduled")
    assert mentions(warnings, "job same", "kept once")
    assert started(result) == {"same", "w"}
    assert over_allocated(checked, result) == []


@pytest.mark.parametrize("wallclock", [-60, MAX_SECONDS + 1, 10 ** 18 * 60])
def test_a_waiting_job_with_an_impossible_limit_is_dropped_and_named(wallclock):
    s = snap(jobs=[waiting("bad", 1, wallclock), waiting("good", 1)])
    checked, warnings, result = one_cycle(s)
    assert [j.id for j in checked.jobs] == ["good"]
    assert mentions(warnings, "bad", "time limit")
    assert started(result) == {"good"}


@pytest.mark.parametrize("request_", [JobRequest(0), JobRequest(10 ** 12),
                                      JobRequest(1, Resources(-1)),
                                      JobRequest(1, Resources(1, 10 ** 400))])
def test_a_waiting_job_with_an_impossible_size_is_dropped_and_named(request_):
    bad = Job("bad", "eve", request_, 60, NOW)
    checked, warnings, result = one_cycle(snap(jobs=[bad, waiting("good")]))
    assert [j.id for j in checked.jobs] == ["good"] and mentions(warnings, "bad")
    assert started(result) == {"good"}


def test_a_running_job_with_impossible_times_holds_its_nodes_and_the_store_saves(tmp_path):
    s = snap(jobs=[running("huge", {"n0": Resources(4)}, wallclock=10 ** 18 * 60),
                   running("neg", {"n1": Resources(4)}, wallclock=-60),
                   running("future", {"n2": Resources(4)}, start_time=NOW + 10 ** 12),
                   waiting("q1", 4), waiting("q2", 4)])
    store = Store.open(tmp_path / "s.db")
    try:
        checked, warnings, result = one_cycle(s, store=store)
    finally:
        store.close()
    assert checked.job("huge").wallclock == MAX_SECONDS
    assert checked.job("neg").wallclock == MAX_SECONDS
    assert checked.job("future").start_time is None
    assert all(mentions(warnings, jid, "impossible") for jid in ("huge", "neg", "future"))
    assert started(result) == {"q1"}                        # only n3 is free
    assert over_allocated(checked, result) == []


def test_a_running_job_with_impossible_amounts_loses_its_allocation_and_its_nodes():
    s = snap(jobs=[running("bad", {"n0": Resources(-4), "n1": Resources(1)}),
                   *(waiting(f"q{i}", 4) for i in range(4))])
    checked, warnings, result = one_cycle(s)
    assert checked.job("bad").allocation == ()
    assert not state_of(checked, "n0").usable and not state_of(checked, "n1").usable
    assert mentions(warnings, "bad", "impossible allocation")
    assert len(started(result)) == 2
    assert over_allocated(checked, result) == []


def test_a_node_with_impossible_resources_is_unusable():
    s = snap(nodes=NODES[:3] + (node("n3", procs=-8),), jobs=[waiting(f"q{i}", 4) for i in range(4)])
    checked, warnings, result = one_cycle(s)
    assert state_of(checked, "n3") is NodeState.DOWN and mentions(warnings, "node n3")
    assert len(started(result)) == 3
    assert over_allocated(checked, result) == []


def test_a_reservation_on_unknown_nodes_keeps_its_known_part_and_bad_times_are_ignored():
    r1 = Reservation("maint", ReservationKind.USER, NOW, NOW + 3600,
                     allocation=(("ghost", Resources(4)), ("n0", Resources(4))))
    r2 = Reservation("weird", ReservationKind.USER, NOW + 10, NOW)
    s = snap(jobs=[waiting(f"q{i}", 4) for i in range(4)], reservations=[r1, r2])
    checked, warnings, result = one_cycle(s)
    assert [r.name for r in checked.reservations] == ["maint"]
    assert checked.reservations[0].allocation == (("n0", Resources(4)),)
    assert mentions(warnings, "maint", "ghost") and mentions(warnings, "weird", "times")
    assert len(started(result)) == 3
    assert "n0" not in {n for st_ in result.starts() for n in st_.nodes}


# ------------------------------------------------------------------- property
NAMES = ["n0", "n1", "n2", "ghost"]
AMOUNTS = st.sampled_from([-5, 0, 1, 2, 4, 7, 10 ** 7, 10 ** 19])
TIMES = st.sampled_from([-10 ** 6, -1, 0, 1, 600, MAX_SECONDS, 10 ** 18, 10 ** 30])


@st.composite
def resources(draw):
    gres = draw(st.sampled_from([{}, {}, {"gpu": 1}, {"gpu": 9}, {"fpga": 1}, {"gpu": -2}]))
    return Resources(draw(AMOUNTS), draw(st.sampled_from([0, 100, -1, 10 ** 12])),
                     tuple(sorted(gres.items())))


@st.composite
def inconsistent_snapshots(draw):
    nodes = [node(draw(st.sampled_from([f"n{i}", f"n{i}", f"n{i}", "n0"])),
                  draw(st.sampled_from([2, 4, 4, -1])), 1000,
                  **draw(st.sampled_from([{}, {"gpu": 2}])))
             for i in range(draw(st.integers(1, 5)))]
    jobs = []
    for i in range(draw(st.integers(0, 8))):
        jid = draw(st.sampled_from([f"j{i}", "dup"]))
        if draw(st.booleans()):
            alloc = tuple((draw(st.sampled_from(NAMES)), draw(resources()))
                          for _ in range(draw(st.integers(0, 3))))
            jobs.append(Job(jid, "u", JobRequest(draw(st.integers(-1, 6))), draw(TIMES),
                            draw(TIMES), state=draw(st.sampled_from([JobState.RUNNING,
                                                                     JobState.SUSPENDED,
                                                                     JobState.STARTING])),
                            start_time=draw(st.one_of(st.none(), TIMES)), allocation=alloc))
        else:
            jobs.append(Job(jid, "u", JobRequest(draw(st.integers(-1, 6)), draw(resources()),
                                                 nodes=draw(st.sampled_from([0, 1, 2, -1])),
                                                 hostlist=draw(st.sampled_from([(), ("ghost",)]))),
                            draw(TIMES), draw(TIMES)))
    reservations = [Reservation(f"r{i}", ReservationKind.USER, draw(TIMES), draw(TIMES),
                                allocation=tuple((draw(st.sampled_from(NAMES)), draw(resources()))
                                                 for _ in range(draw(st.integers(0, 2)))))
                    for i in range(draw(st.integers(0, 2)))]
    return ClusterSnapshot(draw(st.sampled_from([NOW, 0, 10 ** 9])), tuple(nodes), tuple(jobs),
                           tuple(reservations))


@settings(max_examples=300, deadline=None)
@given(inconsistent_snapshots())
def test_inconsistent_snapshots_never_make_the_cycle_raise_or_over_allocate(s):
    checked, warnings, result = one_cycle(s)
    assert over_allocated(checked, result) == []
    if checked is not s:
        assert warnings, "a snapshot was changed without a warning"
