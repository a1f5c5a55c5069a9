"""Cycles from what changed and the idle-time questions ask whether a defer runs out by
now against the cache's lower bound of the defer records' `until`s
(core/changes.DEFER_FLOOR, defer_floor) and decide as walking the records every time:
the same start, kind, end and nodes job for job, the same actions, order and reservations
after every cycle, the table checked every cycle; and after every cycle the bound is at
most every positive `until` (the cache's check). Configs defer often: DEFERTIME, and a
per-job processor limit that new arrivals break (deferred by the cycle from what
changed itself)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core import changes
from maui_py.sim.engine import SimOptions, Simulation

from .test_idle_arrivals import SETTINGS, configs, site_workloads, workloads
from .test_kept_order import _same, deferring


def _floor_holds(nodes, sims, text) -> int:
    """Replay with the switch on, checking the bound after every cycle; how many cycles
    left a cache with a finite bound (so the bound was used)."""
    used = [0]

    def hook(t, r):
        cache = r.state.caches.changes
        if cache is not None:
            untils = [d.until for d in r.state.deferred.values() if d.until > 0]
            assert all(cache.defer_floor <= u for u in untils), (t, cache.defer_floor, untils)
            used[0] += cache.defer_floor != float("inf")
    res = Simulation(nodes, sims, parse_config(text), SimOptions(
        check_table=True, cycle_reserves=False, on_cycle=hook)).run()
    assert res.check.ok
    return used[0]


@SETTINGS
@given(workloads(), configs(), st.integers(1, 4))
def test_the_defer_floor_decides_as_walking_the_records(wl, text, limit):
    text = deferring(text, limit)
    _floor_holds(*wl, text)
    _same(*wl, text, changes, "DEFER_FLOOR")


@SETTINGS
@given(site_workloads(), configs(), st.integers(1, 4))
def test_the_defer_floor_on_the_node_table(wl, text, limit):
    text = deferring(text, limit)
    _floor_holds(*wl, text)
    _same(*wl, text, changes, "DEFER_FLOOR")
