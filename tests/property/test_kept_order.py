"""Replays (cycles from what changed, idle times left out) decide the same with
core/keptorder.QT_CARRIED on and off: "no queued job has a queue-time restart" taken as
known from a cache with a common static part instead of checked over the order each
cycle; the fact itself checked after every cycle. The same start, kind, end and nodes job
for job, the same actions, order and reservations after every cycle, the table checked
every cycle, and no cycle's result seeing its order change afterwards. Configs restart
queue times often (DEFERTIME, a per-job processor limit new arrivals break)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core import keptorder, restarts
from maui_py.core.state import SchedulerState
from maui_py.sim.engine import SimOptions, Simulation

from .test_idle_arrivals import SETTINGS, configs, site_workloads, workloads


def deferring(text: str, limit: int) -> str:
    """`text` with DEFERTIME one minute and SYSTEMMAXPROCPERJOB `limit`."""
    keep = [ln for ln in text.splitlines()
            if not ln.startswith(("DEFERTIME", "SYSTEMMAXPROCPERJOB"))]
    return "\n".join(keep + ["DEFERTIME 00:01:00", f"SYSTEMMAXPROCPERJOB {limit}"]) + "\n"


def _replay(nodes, sims, text, module, switch: str, on: bool, restarted=()):
    """The replay with module.<switch> set (restored after), from a state whose
    queue_time restarts the jobs `restarted` at 50 (after they were submitted):
    (records, [(t, actions, order, reservations)]), each result's order checked
    unchanged at the end."""
    old = getattr(module, switch)
    setattr(module, switch, on)
    try:
        seen, held = [], []

        def hook(t, r):
            held.append((r.order, list(r.order)))
            seen.append((t, r.actions(), list(r.order),
                         {j: (kr.start, kr.end, kr.allocation)
                          for j, kr in r.state.reservations.items()}))
        state = SchedulerState()
        state.queue_time.update({j: 50 for j in restarted})
        res = Simulation(nodes, sims, parse_config(text), SimOptions(
            check_table=True, cycle_reserves=False, on_cycle=hook, state=state)).run()
    finally:
        setattr(module, switch, old)
    assert res.check.ok
    for later, then in held:
        assert list(later) == then, "a result's order changed after its cycle"
    return {j: (r.start, r.kind, r.end, r.nodes) for j, r in res.records.items()}, seen


def _same(nodes, sims, text, module, switch, restarted=()):
    fast = _replay(nodes, sims, text, module, switch, True, restarted)
    definition = _replay(nodes, sims, text, module, switch, False, restarted)
    assert fast[0] == definition[0]
    assert fast[1] == definition[1]


def _restarts_carried(nodes, sims, text, pick: int = 0) -> None:
    """Replay with QT_CARRIED on and off (DEFERTIME restarting queued jobs; with `pick`,
    every pick-th job of the first cycle's snapshot with a restart after its submission
    in the queue_time map, as a released hold leaves one): the same, and after every
    cycle a cache with a common static part has no queued job with a restart."""
    first = min((sj.job.submit_time for sj in sims), default=0)
    restarted = [sj.job.id for k, sj in enumerate(sims)     # in the first cycle's snapshot
                 if pick and k % pick == 0 and sj.job.submit_time == first]

    def hook(t, r):
        cache = r.state.caches.changes
        if cache is not None and cache.static is not None:
            assert restarts.none_queued(r.state.queue_time, cache.order), t
    state = SchedulerState()
    state.queue_time.update({j: 50 for j in restarted})
    res = Simulation(nodes, sims, parse_config(text), SimOptions(
        check_table=True, cycle_reserves=False, on_cycle=hook, state=state)).run()
    assert res.check.ok
    _same(nodes, sims, text, keptorder, "QT_CARRIED", restarted)


@SETTINGS
@given(workloads(), configs(), st.integers(1, 4))
def test_restarts_known_absent_from_the_cache_decide_as_checked(wl, text, limit):
    _restarts_carried(*wl, deferring(text, limit))


@SETTINGS
@given(site_workloads(), configs(), st.integers(1, 4))
def test_restarts_known_absent_on_the_node_table(wl, text, limit):
    _restarts_carried(*wl, deferring(text, limit))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(workloads(), configs(), st.integers(1, 16), st.integers(1, 3))
def test_arrivals_with_a_restart_are_never_taken_as_known_absent(wl, text, limit, pick):
    _restarts_carried(*wl, deferring(text, limit), pick)
