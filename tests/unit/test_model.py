from maui_py.model import Job, JobRequest, JobState, Node, NodeState, Resources


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
