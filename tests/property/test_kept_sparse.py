"""HIGHEST's walk visiting only the kept reservations policy/sparse.Want names (those
settled() might not leave, and those the room given back while walking could move)
decides exactly as visiting every one (sparse.SPARSE off, each one asked settled()): every
cycle's starts and reservations (start, end, nodes) and every job's start the same, the
table checked every cycle (check_table), on the node table with several node kinds and on
the count planner (where the walk is not sparse)."""

from __future__ import annotations

from hypothesis import given

from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.policy import sparse
from maui_py.sim.swf import SimJob

from .on_off import assert_same_cycles
from .test_kept_settled import SETTINGS, replay_counting, workloads


def _replay(monkeypatch, nodes, sims, text, per_event, on: bool):
    """replay() with sparse.SPARSE set, and the reservations walks passed over."""
    return replay_counting(monkeypatch, sparse, "SPARSE", on, "passed", nodes, sims, text,
                           per_event)


@SETTINGS
@given(workloads())
def test_walk_over_the_wanted_reservations_decides_as_visiting_every_one(monkeypatch, w):
    nodes, sims, text, per_event = w
    fast, _n = _replay(monkeypatch, nodes, sims, text, per_event, True)
    definition, none = _replay(monkeypatch, nodes, sims, text, per_event, False)
    assert none == 0
    assert_same_cycles(fast, definition)


def test_room_given_back_too_short_passes_the_long_reservations_over(monkeypatch):
    """One 8-core node kept busy by short jobs that end early, and a queue of long
    whole-node jobs each holding a reservation behind them: the room the short ones give
    back is too short for the long ones, so walks pass them over without a look, with the
    same decisions as visiting every one."""
    nodes = (Node("n0", Resources.of(8, mem=8192)), Node("n1", Resources.of(8, mem=8192)))
    sims = [SimJob(Job(f"s{k:02d}", "u0", JobRequest(tasks=4, per_task=Resources.of(1)),
                       600, 20 * k), 60) for k in range(8)]
    sims += [SimJob(Job(f"l{k:02d}", "u1", JobRequest(tasks=16, per_task=Resources.of(1)),
                        5000, 5 + 20 * k), 5000) for k in range(6)]
    text = ("RESERVATIONPOLICY HIGHEST\nQUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 100\n"
            "BACKFILLPOLICY FIRSTFIT\n")
    fast, passed = _replay(monkeypatch, nodes, sims, text, True, True)
    definition, _n = _replay(monkeypatch, nodes, sims, text, True, False)
    assert passed > 0
    assert fast == definition
