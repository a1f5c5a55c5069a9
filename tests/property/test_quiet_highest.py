"""Quiet cycles under RESERVATIONPOLICY HIGHEST on the node table that resume the last
priority pass when the kept-reservation index shows every reservation left in place
(core/quietkept.QUIET_HIGHEST) decide as when their passes run in full: the same start,
kind, end and nodes job for job, the same actions at every time either replay acted, the
same reservations (start, end, nodes) after every cycle both ran once, and the same kept
pass bookkeeping (policy/kept.Stamps: reservations left and re-made, quiet cycles, the
floor) after every cycle; the table checked every cycle. With keptindex.CHECK on, every
resumed cycle also asks Stamps.quiet's own loop (quietkept asserts its yes)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core import quietkept
from maui_py.model import Job, JobRequest, Node
from maui_py.policy import keptindex
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import SimJob

from .on_off import spying
from .test_idle_arrivals import SETTINGS, SITE_KINDS, SITE_PER, configs, site_workloads


def _highest(text: str) -> str:
    return re.sub(r"RESERVATIONPOLICY \w+", "RESERVATIONPOLICY HIGHEST", text)


def _replay(nodes, sims, text, on: bool, check: bool):
    """(records, [(t, actions, reservations, kept counts)])."""
    old = quietkept.QUIET_HIGHEST, keptindex.CHECK
    quietkept.QUIET_HIGHEST, keptindex.CHECK = on, check
    seen = []
    try:
        def hook(t, r):
            stamps = r.state.caches.kept_stamps
            counts = None if stamps is None else (stamps.left, stamps.remade, stamps.quiets,
                                                  stamps.floor)
            seen.append((t, r.actions(), {j: (kr.start, kr.end, kr.allocation)
                                          for j, kr in r.state.reservations.items()}, counts))
        res = Simulation(nodes, sims, parse_config(text), SimOptions(
            check_table=True, cycle_reserves=False, on_cycle=hook)).run()
    finally:
        quietkept.QUIET_HIGHEST, keptindex.CHECK = old
    assert res.check.ok
    return {j: (r.start, r.kind, r.end, r.nodes) for j, r in res.records.items()}, seen


def _same(nodes, sims, text, check: bool = False) -> None:
    fast = _replay(nodes, sims, text, True, check)
    definition = _replay(nodes, sims, text, False, check)
    assert fast[0] == definition[0]
    assert [(t, a) for t, a, _r, _k in fast[1] if a] == \
        [(t, a) for t, a, _r, _k in definition[1] if a]
    assert [t for t, *_ in fast[1]] == [t for t, *_ in definition[1]]
    for (t, _a, r, k), (_t, _b, r2, k2) in zip(fast[1], definition[1]):
        assert r == r2, f"reservations after the cycle at {t}"
        assert k == k2, f"kept pass counts after the cycle at {t}"


def _deep_queue():
    """Three node kinds, a queue that builds up behind wide jobs and arrivals that keep
    coming between ends: most cycles are quiet ones with kept reservations."""
    nodes = tuple(Node(f"n{i}", SITE_KINDS[i % 3]) for i in range(5))
    sims = []
    for k in range(60):
        per = SITE_PER[k % len(SITE_PER)]
        tasks = 1 + (k * 7) % 9
        wc = 60 + (k * 37) % 300
        sims.append(SimJob(Job(f"j{k}", f"u{k % 3}", JobRequest(tasks=tasks, per_task=per),
                               wc, k * 7), wc - (k * 13) % 50))
    text = ("RESERVATIONDEPTH 100\nRESERVATIONPOLICY HIGHEST\nBACKFILLPOLICY FIRSTFIT\n"
            "NODEALLOCATIONPOLICY LASTAVAILABLE\nQUEUETIMEWEIGHT 1\n")
    return nodes, sims, text


def test_quiet_highest_cycles_resume_and_decide_as_in_full():
    """The path runs (a spy counts the resumed cycles), and decides as the passes in full.
    Mutants that fail here: left_in_place without `stamps.counted_quiet(e, n)` (the kept counts
    differ at the first resumed cycle); left_in_place without its gate, the index's
    conditions (the floor differs after the cycle at 42: a walk that quiet() would not
    have skipped)."""
    nodes, sims, text = _deep_queue()
    _same(nodes, sims, text)
    _same(nodes, sims, text, check=True)
    with spying(quietkept, "left_in_place") as calls:
        _replay(nodes, sims, text, True, False)
    assert sum(calls) >= 10


@SETTINGS
@given(site_workloads(), configs())
def test_quiet_highest_on_the_node_table_decides_as_in_full(wl, text):
    _same(*wl, _highest(text))


@SETTINGS
@given(site_workloads(), configs(), st.booleans())
def test_quiet_highest_yes_is_stamps_quiet_yes(wl, text, predict):
    """keptindex.CHECK on: each resumed cycle asks Stamps.quiet (whose index answer is
    checked against its loop); with runtime predictions on, none resumes."""
    extra = "PREDICTIONPOLICY USERAVERAGE\nPREDICTIONHISTORY 1\n" if predict else ""
    _same(*wl, _highest(text) + extra, check=True)
