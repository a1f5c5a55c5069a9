"""Cycles from what changed treating the order as fixed when no queued job's queue time
restarted (core/restarts.QUEUED_ONLY: the entries of jobs not queued ignored) decide
exactly as treating it so only when no job at all has an entry: every job's start, kind,
end and nodes, the actions at every time either replay acted, the reservations (start,
end, nodes) after each cycle both ran once, the table checked every cycle. The replays start from a state whose queue_time holds entries of
jobs that are not queued (as those of started jobs stay until they end), and the configs
sometimes defer (DEFERTIME), which restarts queued jobs' queue times."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core import restarts
from maui_py.core.state import SchedulerState
from maui_py.sim.engine import SimOptions, Simulation

from .test_idle_arrivals import SETTINGS, configs, site_workloads, workloads


def _replay(nodes, sims, text, ghosts: int, on: bool):
    """The replay with QUEUED_ONLY set (restored after), from a state whose queue_time
    names `ghosts` jobs that never arrive: (records, [(t, actions, reservations)])."""
    old, restarts.QUEUED_ONLY = restarts.QUEUED_ONLY, on
    try:
        state = SchedulerState()
        state.queue_time.update({f"gone{k}": 0 for k in range(ghosts)})
        seen = []

        def hook(t, r):
            seen.append((t, r.actions(), {j: (kr.start, kr.end, kr.allocation)
                                          for j, kr in r.state.reservations.items()}))
        res = Simulation(nodes, sims, parse_config(text), SimOptions(
            check_table=True, cycle_reserves=False, on_cycle=hook, state=state)).run()
    finally:
        restarts.QUEUED_ONLY = old
    assert res.check.ok
    return {j: (r.start, r.kind, r.end, r.nodes) for j, r in res.records.items()}, seen


def _same(nodes, sims, text, ghosts):
    """The same jobs' schedules and the same actions at every time either one acted (a
    fixed order lets a replay leave more idle arrival cycles out: core.changes
    .arrivals_wait), and the same reservations after every cycle both ran."""
    fast = _replay(nodes, sims, text, ghosts, True)
    definition = _replay(nodes, sims, text, ghosts, False)
    assert fast[0] == definition[0]
    assert [(t, a) for t, a, _r in fast[1] if a] == [(t, a) for t, a, _r in definition[1] if a]
    assert len(fast[1]) <= len(definition[1])
    last = {t: r for t, _a, r in definition[1]}
    for t, _a, r in fast[1]:
        if t in last and sum(1 for s in definition[1] if s[0] == t) == 1:
            assert r == last[t], f"reservations after the cycle at {t}"


@SETTINGS
@given(workloads(), configs(), st.integers(0, 3))
def test_restarts_of_jobs_not_queued_leave_the_order_fixed(wl, text, ghosts):
    nodes, sims = wl
    _same(nodes, sims, text, ghosts)


@SETTINGS
@given(site_workloads(), configs(), st.integers(0, 3))
def test_restarts_of_jobs_not_queued_on_the_node_table(wl, text, ghosts):
    nodes, sims = wl
    _same(nodes, sims, text, ghosts)


def test_none_queued_reads_the_queued_jobs_only():
    class J:
        def __init__(self, jid):
            self.id = jid
    order = [(J("a"), None, 0.0), (J("b"), None, 0.0)]
    assert restarts.none_queued({}, order)
    assert restarts.none_queued({"gone": 5}, order)
    assert not restarts.none_queued({"b": 5}, order)
    assert not restarts.none_queued({"gone": 5}, order, [(J("gone"), None, 0.0)])
    assert restarts.none_arrived({"gone": 5}, [J("a")])
    assert not restarts.none_arrived({"a": 5}, [J("a")])
