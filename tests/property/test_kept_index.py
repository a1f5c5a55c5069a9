"""Quiet cycles answered from the index (policy/keptindex.Quiet, kept from quiet()'s last
yes and the priority pass's hooks) decide exactly as asking quiet()'s loop every cycle
(keptindex.QUIET_INDEX off, the definition): every cycle's starts and reservations and
every job's start the same, the table checked every cycle (check_table), and every yes the
index gives checked against the loop (keptindex.CHECK) the cycle it is given."""

from __future__ import annotations

from hypothesis import given

from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.policy import keptindex, priority_pass
from maui_py.sim.swf import SimJob

from .on_off import assert_same_cycles
from .test_kept_settled import SETTINGS, replay, replay_stamps, workloads


def _replay(monkeypatch, nodes, sims, text, per_event, on: bool):
    """replay() with keptindex.QUIET_INDEX set and CHECK on; the quiet cycles the index
    answered, and the quiet cycles in all."""
    monkeypatch.setattr(keptindex, "QUIET_INDEX", on)
    monkeypatch.setattr(keptindex, "CHECK", True)
    out, made = replay_stamps(monkeypatch, nodes, sims, text, per_event)
    return out, sum(s.index.hits for s in made), sum(s.quiets for s in made)


@SETTINGS
@given(workloads())
def test_quiet_cycles_from_the_index_decide_as_asking_every_reservation(monkeypatch, w):
    nodes, sims, text, per_event = w
    fast, _hits, quiets = _replay(monkeypatch, nodes, sims, text, per_event, True)
    definition, none, quiets_def = _replay(monkeypatch, nodes, sims, text, per_event, False)
    assert none == 0
    assert quiets == quiets_def
    assert_same_cycles(fast, definition)


def test_arrivals_that_cannot_start_are_answered_from_the_index(monkeypatch):
    """Whole-cluster jobs arriving while one runs, none ending early: after the first quiet
    cycle the index answers (the reservations the priority pass makes join it), with the
    same decisions as asking the loop."""
    nodes = (Node("n0", Resources.of(4, mem=4096)), Node("n1", Resources.of(4, mem=4096)))
    sims = [SimJob(Job(f"j{k:02d}", "u0", JobRequest(tasks=8, per_task=Resources.of(1, mem=256)),
                       1000, 10 * k), 1000) for k in range(8)]
    sims += [SimJob(Job(f"s{k:02d}", "u1", JobRequest(tasks=8, per_task=Resources.of(1, mem=256)),
                        900, 15 + 10 * k), 900) for k in range(4)]
    text = "RESERVATIONPOLICY HIGHEST\nQUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 100\n"
    fast, hits, quiets = _replay(monkeypatch, nodes, sims, text, False, True)
    definition, _n, quiets_def = _replay(monkeypatch, nodes, sims, text, False, False)
    assert hits >= 1
    assert quiets == quiets_def
    assert fast == definition


@SETTINGS
@given(workloads())
def test_the_reserved_head_counted_in_c_decides_as_the_pass_loop(monkeypatch, w):
    """priority_pass.REMADE_HEAD (the leading run of jobs holding a kept reservation
    counted per group in C) against the pass's loop over each: every cycle's starts and
    reservations and every job's start the same, the table checked every cycle."""
    nodes, sims, text, per_event = w
    monkeypatch.setattr(priority_pass, "REMADE_HEAD", True)
    fast = replay(nodes, sims, text, per_event, True, monkeypatch)
    monkeypatch.setattr(priority_pass, "REMADE_HEAD", False)
    definition = replay(nodes, sims, text, per_event, True, monkeypatch)
    assert fast == definition
