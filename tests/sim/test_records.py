"""A replay's records keep each job's nodes compactly (index runs) and give back exactly the
nodes, in the order, of the start decision that placed it."""

from __future__ import annotations

from maui_py.cfg import parse_config
from maui_py.model import Job, JobRequest, Node, Resources, Start
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import SimJob


def test_records_give_back_the_nodes_of_each_start():
    nodes = tuple(Node(f"n{i:03d}", Resources.of(4)) for i in range(40))
    jobs = [SimJob(Job(f"j{k}", f"u{k % 3}", JobRequest(tasks=1 + (k * 7) % 60), 100 + 13 * k, 5 * k),
                   60 + 11 * k) for k in range(60)]
    starts: dict[str, tuple[str, ...]] = {}

    def seen(_t, result):
        starts.update((d.job_id, d.nodes) for d in result.decisions if isinstance(d, Start))

    res = Simulation(nodes, jobs, parse_config("RESERVATIONDEPTH 2\n"),
                     SimOptions(on_cycle=seen)).run()
    assert res.check.ok and len(starts) == len(jobs)
    wide = 0
    for jid, rec in res.records.items():
        assert rec.nodes == starts[jid], jid
        assert len(rec.runs) <= 2 * len(rec.nodes)
        wide += len(rec.nodes) > 3 and len(rec.runs) < 2 * len(rec.nodes)
    assert wide, "no record was stored as runs shorter than its node list"


def test_a_refused_start_leaves_the_account_and_a_taken_one_keeps_runs():
    """The simulated RM takes a processors-only allocation in one pass that also finds its
    index runs: a start that does not fit part way is refused with the reason and gives
    back what it took; one that fits keeps the runs of its nodes."""
    from maui_py.model import StartKind
    from maui_py.sim.rm import SimulatedRM

    nodes = tuple(Node(f"n{i}", Resources.of(2)) for i in range(5))
    rm = SimulatedRM(nodes, lambda: 10)
    for k in (1, 2):
        rm.submit(Job(f"j{k}", "u", JobRequest(tasks=6), 100, 0), 50)
    per = Resources.of(2)
    bad = Start("j1", (("n0", per), ("n1", per), ("n2", Resources.of(3))), StartKind.IMMEDIATE)
    failures = rm.apply([bad])
    assert [f.job_id for f in failures] == ["j1"]
    assert "n2 over-allocated" in failures[0].reason
    assert rm.busy_procs() == 0 and rm.records["j1"].start is None
    good = Start("j2", (("n3", per), ("n4", per), ("n0", per)), StartKind.IMMEDIATE)
    assert rm.apply([good]) == []
    assert rm.busy_procs() == 6
    assert rm.records["j2"].runs == (3, 2, 0, 1)
    assert rm.records["j2"].nodes == ("n3", "n4", "n0")
