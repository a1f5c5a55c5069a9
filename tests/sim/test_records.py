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
