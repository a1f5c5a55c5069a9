"""The simulator pauses Python's cyclic collector through a whole replay (SimOptions
.collect_between False, the default) and leaves it as it found it; the schedule is the one
a replay collecting between cycles (as mauid does) makes, on the node table and the count
planner."""

from __future__ import annotations

import gc

import pytest
from hypothesis import HealthCheck, given, settings

from maui_py.cfg import parse_config
from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import SimJob

from ..property.node_kinds import switch_workloads


def _replay(nodes, sims, text: str, per_event: bool, collect_between: bool):
    """Each job's (start, end, nodes) and whether the collector was on at each cycle's
    on_cycle call."""
    seen: list[bool] = []
    res = Simulation(nodes, sims, parse_config(text),
                     SimOptions(per_event=per_event, collect_between=collect_between,
                                on_cycle=lambda _t, _r: seen.append(gc.isenabled()))).run()
    assert res.check.ok, res.check.violations
    return {j: (r.start, r.end, r.nodes) for j, r in res.records.items()}, seen


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_off_through_the_replay_and_as_found_after(enabled):
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        nodes = tuple(Node(f"n{i}", Resources.of(4)) for i in range(6))
        sims = [SimJob(Job(f"j{k}", "u0", JobRequest(tasks=1 + k % 7), 300, 10 * k), 200)
                for k in range(30)]
        _records, paused = _replay(nodes, sims, "RESERVATIONDEPTH 2\n", False, False)
        assert paused and not any(paused)
        assert gc.isenabled() is enabled
        _records, between = _replay(nodes, sims, "RESERVATIONDEPTH 2\n", False, True)
        assert all(between) is enabled and between
    finally:
        (gc.enable if was else gc.disable)()


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(switch_workloads(two_node=True))
def test_a_replay_schedules_the_same_whether_collected_between_cycles_or_not(w):
    nodes, sims, text, per_event = w
    assert _replay(nodes, sims, text, per_event, False)[0] == \
        _replay(nodes, sims, text, per_event, True)[0]
    counted = tuple(Node(n.name, Resources.of(n.resources.procs)) for n in nodes)
    plain = [SimJob(Job(s.job.id, s.job.user, JobRequest(tasks=s.job.procs), s.job.wallclock,
                        s.job.submit_time), s.runtime) for s in sims]
    assert _replay(counted, plain, text, per_event, False)[0] == \
        _replay(counted, plain, text, per_event, True)[0]
