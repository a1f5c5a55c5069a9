"""maui-py's replays against the independent reference simulator, job for job (issue 12).

benchmarks/reference_sim.py shares no code with maui-py: it counts processors, FCFS, EASY or
conservative by its published definition (Mu'alem and Feitelson: a reservation on arrival,
compression at each end, as pyss implements it). On a trace's one-processor nodes (and on
multi-core nodes with one-processor tasks) maui-py's count planner must give every job the
start the reference gives it: EASY as is; conservative under RESERVATIONPOLICY HIGHEST (a
reservation once made is kept and only slides earlier, which is compression) with a cycle
per event, as the reference takes its events one at a time (by default maui-py takes every
event of one time in one cycle, as Maui's iteration does: docs/simulator.md says what that
changes).
"""

from __future__ import annotations


import pytest

from maui_py.cfg import parse_config
from maui_py.sim.cluster import NodeGroup, build_nodes
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import clean, read_swf, to_sim_jobs, write_swf

from tests.traces import trace_path
from tests.scripts import load_script

POLICIES = {"easy": "QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n",
            "conservative": "QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 100000\nBACKFILLPOLICY FIRSTFIT\n"
                            "RESERVATIONPOLICY HIGHEST\n"}


def _reference():
    return load_script("benchmarks/reference_sim.py", "reference_sim")


@pytest.mark.trace
@pytest.mark.parametrize("policy", ["easy", "conservative"])
@pytest.mark.parametrize("per_node", [1, 4])
def test_every_job_starts_when_the_reference_starts_it(tmp_path, policy, per_node):
    header, records = read_swf(trace_path("KTH-SP2-1996-2.1-cln.swf.gz"))
    kept, _report = clean(records, header.max_procs, estimates="max")
    kept = kept[:2500]
    path = tmp_path / "cleaned.swf"
    write_swf(kept, path, header)
    ref = _reference()
    jobs, _max = ref.read_jobs(str(path))
    want = {str(j): s for j, (s, _e) in ref.simulate(jobs, header.max_procs, policy).items()}

    nodes = build_nodes([NodeGroup(header.max_procs // per_node, per_node)])
    result = Simulation(nodes, to_sim_jobs(kept), parse_config(POLICIES[policy]),
                        SimOptions(per_event=policy == "conservative")).run()
    assert result.check.ok, result.check.violations
    got = {j: r.start for j, r in result.records.items()}
    differ = sorted((j for j in want if got.get(j) != want[j]), key=int)
    assert not differ, f"{len(differ)} jobs differ, first {differ[0]}: " \
                       f"reference {want[differ[0]]}, maui-py {got.get(differ[0])}"
    assert len(got) == len(want) == 2500
