"""core.changes.static_choice: under a node choice whose keys are the nodes' own
(FIRSTAVAILABLE, MINRESOURCE, PRIORITY, FASTEST) a backfill start that passed the
reservations a cycle made anew leaves a fixed point, so a replay may still leave the next
idle cycles out. Checked against the replay that runs a cycle at every event time, with
requests of every kind (any split, tasks per node, node counts, exclusive) and LASTAVAILABLE
among the choices (where it must not apply: the fixed example of test_idle_arrivals)."""

from __future__ import annotations

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from maui_py.core import changes
from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.sim.swf import SimJob

from .test_idle_arrivals import PASSED_BY_BACKFILL, SETTINGS, SITE_KINDS, SITE_PER, configs, replay

CHOICES = ["FIRSTAVAILABLE", "MINRESOURCE", "PRIORITY", "FASTEST", "LASTAVAILABLE"]


@st.composite
def mixed_workloads(draw):
    """Node kinds with memory and GPUs; requests split any way, by tasks per node, over a
    node count or exclusive; runtimes often short of their limits."""
    nodes = tuple(Node(f"n{i}", SITE_KINDS[draw(st.integers(0, 2))])
                  for i in range(draw(st.integers(2, 6))))
    sims, t = [], 0
    for k in range(draw(st.integers(3, 40))):
        t += draw(st.sampled_from([0, 1, 3, 5, 10, 30, 120]))
        per = draw(st.sampled_from(SITE_PER))
        tasks = draw(st.integers(1, 12))
        shape = draw(st.sampled_from(["any", "any", "tpn", "nodes", "exclusive"]))
        if shape == "tpn":
            per_node = draw(st.integers(1, 4))
            req = JobRequest(tasks=per_node * draw(st.integers(1, 3)), per_task=per,
                             tasks_per_node=per_node)
        elif shape == "nodes":
            req = JobRequest(tasks=tasks, per_task=per, nodes=draw(st.integers(1, min(3, tasks))))
        else:
            req = JobRequest(tasks=tasks, per_task=per, exclusive=shape == "exclusive")
        wc = draw(st.integers(1, 400))
        run = draw(st.integers(0, wc + (50 if draw(st.integers(0, 9)) == 0 else 0)))
        sims.append(SimJob(Job(f"j{k}", f"u{draw(st.integers(0, 2))}", req, wc, t), run))
    return nodes, sims


def _same(full, fast, full_acts, fast_acts, full_states, fast_states):
    assert fast.check.ok and full.check.ok
    assert {j: (r.start, r.kind, r.end) for j, r in fast.records.items()} == \
        {j: (r.start, r.kind, r.end) for j, r in full.records.items()}
    assert fast_acts == full_acts and fast.holds == full.holds
    assert all(kept == full_states[t] for t, kept in fast_states.items() if t in full_states)


@SETTINGS
@given(mixed_workloads(), configs(), st.sampled_from(CHOICES))
def test_leaving_idle_cycles_out_under_each_node_choice_changes_no_schedule(wl, text, nap):
    nodes, sims = wl
    text += f"NODEALLOCATIONPOLICY {nap}\n"
    full, full_acts, full_states = replay(nodes, sims, text, False)
    fast, fast_acts, fast_states = replay(nodes, sims, text, True)
    _same(full, fast, full_acts, fast_acts, full_states, fast_states)
    assert fast.cycles <= full.cycles
    event(f"{nap}: cycles left out: {'some' if fast.cycles < full.cycles else 'none'}")


def _example(nap):
    nodes = tuple(Node(f"n{i}", Resources.of(8, mem=16384)) for i in range(3))
    sims = [SimJob(Job(f"j{k}", "u0", JobRequest(
        tasks=t, per_task=Resources.of(p, gpu=1) if g else Resources.of(p, mem=m)), wc, sub), run)
        for k, t, p, m, g, wc, sub, run in PASSED_BY_BACKFILL]
    text = ("RESERVATIONDEPTH 3\nRESERVATIONPOLICY CURRENTHIGHEST\nBACKFILLPOLICY FIRSTFIT\n"
            f"QUEUETIMEWEIGHT 1\nNODEALLOCATIONPOLICY {nap}\n")
    return nodes, sims, text


@pytest.mark.parametrize("nap", ["FIRSTAVAILABLE", "MINRESOURCE"])
def test_a_static_choice_leaves_more_cycles_out_with_the_same_schedule(nap, monkeypatch):
    """The fixed example of test_idle_arrivals under a static choice: with static_choice
    the replay leaves out cycles it ran without it, and schedules as every event's cycle."""
    nodes, sims, text = _example(nap)
    full, full_acts, full_states = replay(nodes, sims, text, False)
    fast, fast_acts, fast_states = replay(nodes, sims, text, True)
    _same(full, fast, full_acts, fast_acts, full_states, fast_states)
    monkeypatch.setattr(changes, "STATIC_CHOICE", False)
    off = replay(nodes, sims, text, True)[0]
    assert fast.cycles < off.cycles <= full.cycles


def test_lastavailable_is_no_static_choice():
    assert not changes.static_choice(changes.NodeAllocation.LASTAVAILABLE, [])
    assert changes.static_choice(changes.NodeAllocation.FIRSTAVAILABLE, [])
