"""Replays (cycles from what changed, idle times left out) decide the same with each of
two shortcuts on and off: core/keptorder.IN_PLACE (the dropped cache's order and ids
extended in place with the arrivals instead of copied) and policy/priority_pass.SKIP_KEPT
(a run of jobs holding a kept reservation counted in one step). The same start, kind,
end and nodes job for job, the same actions, order and reservations after every cycle,
the table checked every cycle; and no cycle's result sees its order change afterwards
(the in-place lists are the cache's own, never a result's)."""

from __future__ import annotations

from hypothesis import given

from maui_py.cfg import parse_config
from maui_py.core import keptorder
from maui_py.policy import priority_pass
from maui_py.sim.engine import SimOptions, Simulation

from .test_idle_arrivals import SETTINGS, configs, site_workloads, workloads


def _replay(nodes, sims, text, module, switch: str, on: bool):
    """The replay with module.<switch> set (restored after): (records, [(t, actions,
    order, reservations)]), each result's order checked unchanged at the end."""
    old = getattr(module, switch)
    setattr(module, switch, on)
    try:
        seen, held = [], []

        def hook(t, r):
            held.append((r.order, list(r.order)))
            seen.append((t, r.actions(), list(r.order),
                         {j: (kr.start, kr.end, kr.allocation)
                          for j, kr in r.state.reservations.items()}))
        res = Simulation(nodes, sims, parse_config(text), SimOptions(
            check_table=True, cycle_reserves=False, on_cycle=hook)).run()
    finally:
        setattr(module, switch, old)
    assert res.check.ok
    for later, then in held:
        assert list(later) == then, "a result's order changed after its cycle"
    return {j: (r.start, r.kind, r.end, r.nodes) for j, r in res.records.items()}, seen


def _same(nodes, sims, text, module, switch):
    fast = _replay(nodes, sims, text, module, switch, True)
    definition = _replay(nodes, sims, text, module, switch, False)
    assert fast[0] == definition[0]
    assert fast[1] == definition[1]


@SETTINGS
@given(workloads(), configs())
def test_orders_extended_in_place_decide_as_copies(wl, text):
    _same(*wl, text, keptorder, "IN_PLACE")


@SETTINGS
@given(site_workloads(), configs())
def test_orders_extended_in_place_on_the_node_table(wl, text):
    _same(*wl, text, keptorder, "IN_PLACE")


@SETTINGS
@given(site_workloads(), configs())
def test_kept_runs_counted_in_one_step_in_replays(wl, text):
    _same(*wl, text, priority_pass, "SKIP_KEPT")


def test_extended_is_the_list_itself_only_in_place():
    class J:
        def __init__(self, jid):
            self.id = jid
    ids = ["a"]
    out = keptorder.extended(ids, [(J("b"), None, 0.0)])
    assert out == ["a", "b"] and out is ids
    old, keptorder.IN_PLACE = keptorder.IN_PLACE, False
    try:
        ids = ["a"]
        out = keptorder.extended(ids, [(J("b"), None, 0.0)])
        assert out == ["a", "b"] and ids == ["a"]
    finally:
        keptorder.IN_PLACE = old
