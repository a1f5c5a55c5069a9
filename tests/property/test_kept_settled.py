"""HIGHEST's kept reservations left in place (policy/kept.Stamps) decide exactly as re-making
every one of them each cycle (kept.SETTLED off, the definition: policy/highest.py's walk),
on the node table (memory, GPUs, features, several node kinds) and on the count planner,
with jobs that end early: every cycle's starts and reservations (start, end, nodes) are
the same, and so is every job's start."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.planning import givenback
from maui_py.policy import kept
from maui_py.sim.swf import SimJob

from .node_kinds import nodes_and_jobs, replay_cycles
from .on_off import assert_same_cycles

SETTINGS = settings(max_examples=60 * int(os.environ.get("MAUI_TABLE_EXAMPLES_X", "1")),
                    deadline=None, suppress_health_check=list(HealthCheck))


@st.composite
def workloads(draw):
    """A cluster and its jobs: several node kinds (the node table) or identical one-core
    nodes (the count planner); runtimes mostly short of the limit (early ends)."""
    nodes, sims = nodes_and_jobs(draw, two_node=False, counting=draw(st.integers(0, 4)) == 0)
    text = ("RESERVATIONPOLICY HIGHEST\nQUEUETIMEWEIGHT 1\n"
            f"RESERVATIONDEPTH {draw(st.sampled_from([2, 100, 100]))}\n"
            f"BACKFILLPOLICY {draw(st.sampled_from(['FIRSTFIT', 'BESTFIT', 'NONE']))}\n"
            "NODEALLOCATIONPOLICY "
            f"{draw(st.sampled_from(['LASTAVAILABLE', 'FIRSTAVAILABLE', 'MINRESOURCE']))}\n"
            + draw(st.sampled_from(["", "XFACTORWEIGHT 100\n", "PROCWEIGHT 50\n"])))
    return nodes, sims, text, draw(st.booleans())


def replay(nodes, sims, text, per_event, settled: bool, monkeypatch) -> tuple[list, dict]:
    """Every cycle's (time, starts, reservations) and each job's (start, nodes)."""
    monkeypatch.setattr(kept, "SETTLED", settled)
    return replay_cycles(nodes, sims, text, per_event, lambda now, result: (
        now, [(d.job_id, d.allocation) for d in result.starts()],
        sorted((jid, kr.start, kr.end, kr.allocation)
               for jid, kr in result.state.reservations.items())))


@SETTINGS
@given(workloads())
def test_kept_reservations_left_in_place_decide_as_re_making_every_one(monkeypatch, w):
    nodes, sims, text, per_event = w
    fast = replay(nodes, sims, text, per_event, True, monkeypatch)
    definition = replay(nodes, sims, text, per_event, False, monkeypatch)
    assert_same_cycles(fast, definition)


@SETTINGS
@given(workloads())
def test_re_makes_scanned_from_the_gained_instant_decide_as_from_now(monkeypatch, w):
    """kept.FROM_GAIN (a re-make's scan begun where the room given back first lets the
    reservation fit) against scans from now: every cycle's starts and reservations and
    every job's start the same, the table checked every cycle (check_table)."""
    nodes, sims, text, per_event = w
    monkeypatch.setattr(kept, "FROM_GAIN", True)
    fast = replay(nodes, sims, text, per_event, True, monkeypatch)
    monkeypatch.setattr(kept, "FROM_GAIN", False)
    definition = replay(nodes, sims, text, per_event, True, monkeypatch)
    assert fast == definition


def replay_counting(monkeypatch, module, switch: str, on: bool, count: str, nodes, sims, text,
                    per_event):
    """replay() with module.<switch> set, and `count` summed over the walks' kept.Stamps."""
    monkeypatch.setattr(module, switch, on)
    out, made = replay_stamps(monkeypatch, nodes, sims, text, per_event)
    return out, sum(getattr(s, count) for s in made)


def replay_stamps(monkeypatch, nodes, sims, text, per_event) -> tuple[tuple, list]:
    """replay() (SETTLED on) and every kept.Stamps its walks made, for their counts."""
    made, init = [], kept.Stamps.__init__

    def counted(self, table):
        init(self, table)
        made.append(self)
    monkeypatch.setattr(kept.Stamps, "__init__", counted)
    return replay(nodes, sims, text, per_event, True, monkeypatch), made


def _quiet_walks(monkeypatch, nodes, sims, text, per_event, quiet: bool):
    """replay() with kept.QUIET set, and the walks Stamps.quiet skipped."""
    return replay_counting(monkeypatch, kept, "QUIET", quiet, "quiets", nodes, sims, text,
                           per_event)


@SETTINGS
@given(workloads())
def test_quiet_cycles_skip_the_walk_and_decide_as_walking(monkeypatch, w):
    """kept.QUIET (HIGHEST's walk skipped when every kept reservation is stamped at the
    planner's epoch now, Stamps.quiet) against walking every cycle: every cycle's starts
    and reservations and every job's start the same, the table checked every cycle
    (check_table); with QUIET off no walk is skipped."""
    nodes, sims, text, per_event = w
    fast, _n = _quiet_walks(monkeypatch, nodes, sims, text, per_event, True)
    definition, none = _quiet_walks(monkeypatch, nodes, sims, text, per_event, False)
    assert none == 0
    assert fast == definition


def test_quiet_cycles_happen_when_jobs_only_arrive(monkeypatch):
    """Arrivals that cannot start, nothing ending: the cycles after the first find every
    reservation stamped at the epoch now and skip the walk, with the same decisions."""
    nodes = (Node("n0", Resources.of(4, mem=4096)), Node("n1", Resources.of(4, mem=4096)))
    sims = [SimJob(Job(f"j{k:02d}", "u0", JobRequest(tasks=8, per_task=Resources.of(1, mem=256)),
                       1000, 10 * k), 1000) for k in range(6)]
    text = "RESERVATIONPOLICY HIGHEST\nQUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 100\n"
    fast, skipped = _quiet_walks(monkeypatch, nodes, sims, text, True, True)
    definition, _n = _quiet_walks(monkeypatch, nodes, sims, text, True, False)
    assert skipped >= 3
    assert fast == definition


@SETTINGS
@given(workloads())
def test_nodes_ruled_out_by_their_processors_decide_as_walking_them(monkeypatch, w):
    """givenback.CORE_REACH (a region's node passed over when no window long enough keeps
    the request's processors free there) against walking every node: every cycle's starts
    and reservations and every job's start the same, the table checked every cycle."""
    nodes, sims, text, per_event = w
    monkeypatch.setattr(givenback, "CORE_REACH", True)
    fast = replay(nodes, sims, text, per_event, True, monkeypatch)
    monkeypatch.setattr(givenback, "CORE_REACH", False)
    definition = replay(nodes, sims, text, per_event, True, monkeypatch)
    assert fast == definition
