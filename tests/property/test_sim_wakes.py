"""A replay on the node table whose cycles list no Reserve decisions, waking at the kept
reservations' starts read from the state (sim/engine.WAKE_FROM_STATE), runs its cycles at
the same times and schedules every job as a replay that lists a Reserve per reservation
each cycle and wakes at each: the same cycle times, the same actions and reservations
(start, end, nodes) after every cycle, the same start, kind, end and nodes job for job,
the table checked every cycle (check_table); with and without idle cycles left out."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.sim import engine
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import SimJob

from .test_idle_arrivals import SETTINGS, configs, site_workloads


def _replay(nodes, sims, text, leave: bool, on: bool):
    """The replay with WAKE_FROM_STATE set (restored after): (records, [(t, actions,
    reservations)])."""
    old, engine.WAKE_FROM_STATE = engine.WAKE_FROM_STATE, on
    try:
        return _run(nodes, sims, text, leave)
    finally:
        engine.WAKE_FROM_STATE = old


def _run(nodes, sims, text, leave: bool):
    seen = []

    def hook(t, r):
        seen.append((t, r.actions(), {j: (kr.start, kr.end, kr.allocation)
                                      for j, kr in r.state.reservations.items()}))
    res = Simulation(nodes, sims, parse_config(text), SimOptions(
        check_table=True, leave_idle=leave, cycle_reserves=False, on_cycle=hook)).run()
    assert res.check.ok
    return {j: (r.start, r.kind, r.end, r.nodes) for j, r in res.records.items()}, seen


def _same(nodes, sims, text, leave):
    fast = _replay(nodes, sims, text, leave, True)
    definition = _replay(nodes, sims, text, leave, False)
    assert [s[0] for s in fast[1]] == [s[0] for s in definition[1]], "cycle times"
    for a, b in zip(fast[1], definition[1]):
        assert a == b, f"cycle at {a[0]}"
    assert fast[0] == definition[0]
    return fast


@SETTINGS
@given(site_workloads(), configs(), st.booleans())
def test_waking_at_kept_starts_from_the_state_runs_the_same_cycles(wl, text, leave):
    nodes, sims = wl
    _same(nodes, sims, text, leave)


def test_a_reservation_start_no_other_event_marks_is_woken_at():
    """A whole-node job reserved behind a job that overruns nothing but whose start the
    reservation names: a short job ends early, so the wide job's reservation starts at
    the end of the long one's limit, where no event but the wake is; the cycle there
    runs in both replays."""
    nodes = (Node("n0", Resources.of(4, mem=4096)), Node("n1", Resources.of(4, mem=4096)))
    per = Resources.of(1, mem=512)
    sims = [SimJob(Job("a", "u0", JobRequest(tasks=4, per_task=per), 1000, 0), 1000),
            SimJob(Job("b", "u0", JobRequest(tasks=4, per_task=per), 500, 0), 100),
            SimJob(Job("w", "u1", JobRequest(tasks=8, per_task=per), 300, 10), 300),
            SimJob(Job("c", "u2", JobRequest(tasks=4, per_task=per), 2000, 20), 2000)]
    text = "RESERVATIONPOLICY HIGHEST\nRESERVATIONDEPTH 100\nBACKFILLPOLICY FIRSTFIT\n"
    records, seen = _same(nodes, sims, text, True)
    assert 1000 in [t for t, _a, _r in seen]
    assert records["w"][0] == 1000
