from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.model import HoldType, Job, JobRequest, JobState, Node, NodeState, Resources
from maui_py.model.job import evolve


def test_resources_arithmetic_and_fit():
    a = Resources.of(4, 1000, gpu=2)
    b = Resources.of(1, 250, gpu=1)
    assert a - b == Resources.of(3, 750, gpu=1)
    assert (a - b - b) == Resources.of(2, 500)
    assert b.fits_in(a) and not a.fits_in(b)
    assert b.times_fits_in(a) == 2          # gpu-bound
    assert Resources.of(1).times_fits_in(Resources.of(64, 1000)) == 64
    assert b.scaled(3) == Resources.of(3, 750, gpu=3)
    assert Resources.of(1, gpu=0).gres == ()


def test_job_request_totals():
    r = JobRequest(tasks=8, per_task=Resources.of(2, 100))
    assert r.procs == 16 and r.total == Resources.of(16, 800)
    j = Job("1", "bob", r, wallclock=3600, submit_time=10, start_time=100,
            state=JobState.RUNNING, allocation=(("n1", Resources.of(16, 800)),))
    assert j.expected_end == 3700 and j.nodes == ("n1",) and j.state.active


def test_node_usable_and_serves():
    n = Node("n1", Resources.of(8), partitions=frozenset({"batch"}))
    assert n.state.usable and n.serves("batch") and not n.serves("debug")
    assert not Node("n2", Resources.of(8), state=NodeState.DRAINED).state.usable


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 64), st.integers(1, 8), st.sampled_from(list(JobState)),
       st.one_of(st.none(), st.integers(0, 10**9)), st.booleans())
def test_evolve_gives_what_replace_gives(tasks, per, state, start, with_request):
    """model.job.evolve, the simulated RM's fast replace: the same job as
    dataclasses.replace, derived fields included, also when the request changes."""
    job = Job("j1", "u", JobRequest(tasks=tasks, per_task=Resources.of(per)), 600, 10,
              qos="hi", holds=frozenset({HoldType.USER}))
    changes = {"state": state, "start_time": start,
               "allocation": (("n1", Resources.of(per)),)}
    if with_request:
        changes["request"] = JobRequest(tasks=tasks + 1, per_task=Resources.of(per))
    got, want = evolve(job, **changes), replace(job, **changes)
    assert got == want
    assert got.procs == want.procs == want.request.tasks * per
    assert job.state is JobState.IDLE and job.allocation == ()


def test_evolve_refuses_a_name_that_is_no_field():
    job = Job("j1", "u", JobRequest(), 600, 10)
    with pytest.raises(TypeError):
        evolve(job, start=5)


def test_the_snapshot_builders_make_what_the_constructors_make():
    """model.snapshot's builders (the simulated RM's per-event snapshot and delta) take
    every field, in order, and give objects equal to the dataclasses' own."""
    from dataclasses import astuple, fields
    from maui_py.model import ClusterSnapshot, SnapshotDelta
    from maui_py.model.snapshot import build_delta, build_snapshot

    job = Job("j1", "u", JobRequest(), 600, 10)
    delta = SnapshotDelta(3, frozenset({"a"}), frozenset({"b"}), frozenset({"c"}), True,
                          ("j1",), {"j1": job})
    values = [getattr(delta, f.name) for f in fields(SnapshotDelta)]
    assert build_delta(*values) == delta
    snap = ClusterSnapshot(7, (), (job,), (), 4, delta)
    built = build_snapshot(*[getattr(snap, f.name) for f in fields(ClusterSnapshot)])
    assert built == snap and type(built) is ClusterSnapshot
    assert astuple(built) == astuple(snap)


def test_copier_gives_what_evolve_gives_and_refuses_derived_inputs():
    """model.job.copier, evolve without keywords (the simulated RM's start and end): the
    same job as evolve and replace; a change evolve rebuilds for is refused."""
    from maui_py.model.job import copier

    job = Job("j1", "u", JobRequest(tasks=3, per_task=Resources.of(2)), 600, 10, qos="hi")
    alloc = (("n1", Resources.of(6)),)
    started = copier("state", "start_time", "allocation")(job, JobState.RUNNING, 50, alloc)
    assert started == evolve(job, state=JobState.RUNNING, start_time=50, allocation=alloc)
    assert started == replace(job, state=JobState.RUNNING, start_time=50, allocation=alloc)
    assert started.procs == 6 and job.allocation == ()
    assert copier("allocation")(started, ()) == replace(started, allocation=())
    with pytest.raises(TypeError):
        copier("request")
    with pytest.raises(TypeError):
        copier("start")
