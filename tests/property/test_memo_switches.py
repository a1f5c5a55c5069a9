"""Three start-now memos decide exactly as asking the planner. memo.CARRY (planning/
memo.Carried): the last cycle's start-now failures asked again. memo.CEILING
(VectorShrinkMemo.above_most / note_most): a tasks-per-node request asking more nodes than
the free-shape index's bound, measured after a failure of its (eligible, d, per node) at
this epoch, fails without asking the planner. memo.CARRY_MOST: Carried asks the last
cycle's ceilings too (no node given back since has room for a node's share) and lends a
ceiling so found to this cycle's memo. In replays on several node kinds (memory,
GPUs, features) with jobs of many sizes that end early and arrivals between, under
CURRENTHIGHEST and HIGHEST and deeper reservation policies, each cycle's decisions, reports
and reservations equal and the table checked after every cycle (`_check()`,
SimOptions.check_table); and in cycles from full snapshots (no delta) where running jobs
outlive their limits (their holds forced again), with standing reservations some jobs may
not use: decisions, order and the persisted maps equal at every step, each side's planner
checked."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.planning import memo
from maui_py.sim.swf import SimJob

from .node_kinds import (assert_replays_alike, assert_used_and_alike, full_snapshots,
                         switch_replay, switch_workloads, tpn_arrivals)
from .on_off import replay_on_off

SETTINGS = settings(max_examples=80 * int(os.environ.get("MAUI_TABLE_EXAMPLES_X", "1")),
                    deadline=None, suppress_health_check=list(HealthCheck))

SWITCHES = {"CARRY": dict(two_node=True, snapshots=(2, 4, [1, 2, 3], ["FIRSTAVAILABLE",
                                                                     "MINRESOURCE"])),
            "CEILING": dict(two_node=False, snapshots=(3, 5, [1, 1, 2], [
                "FIRSTAVAILABLE", "MINRESOURCE", "PRIORITY"])),
            "CARRY_MOST": dict(two_node=False, snapshots=(3, 5, [1, 1, 2], [
                "FIRSTAVAILABLE", "MINRESOURCE"]))}
"""Per switch: the workloads' two-node jobs (CARRY) or 1-4 node spreads, and
full_snapshots' (kinds, most nodes, depths, allocations)."""


@pytest.mark.parametrize("switch", sorted(SWITCHES))
@SETTINGS
@given(data=st.data())
def test_the_memos_decide_as_asking_the_planner(monkeypatch, switch, data):
    w = data.draw(switch_workloads(two_node=SWITCHES[switch]["two_node"]))
    assert_replays_alike(switch_replay(memo, switch), w, monkeypatch)


@pytest.mark.parametrize("switch", sorted(SWITCHES))
@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_the_memos_on_full_snapshots_decide_as_asking_the_planner(switch, data):
    sc = data.draw(full_snapshots(*SWITCHES[switch]["snapshots"]))
    replay_on_off(memo, switch, sc, tpn_arrivals(spread=not SWITCHES[switch]["two_node"]),
                  maps=("deferred", "reservations"))


def test_a_failure_is_carried_when_nothing_given_back_could_help(monkeypatch):
    """A 4 GB job waits while 1-core jobs of 100 MB end on a node with too little memory
    left for it: the cycles at those ends answer its start-now question from the last
    cycle's failure, and decide as asking the planner."""
    nodes = (Node("n0", Resources.of(4, mem=4096)),)
    sims = [SimJob(Job("a", "u0", JobRequest(tasks=1, per_task=Resources.of(1, mem=3000)),
                       1000, 0), 1000)]
    sims += [SimJob(Job(f"s{k}", "u1", JobRequest(tasks=1, per_task=Resources.of(1, mem=100)),
                        300, 1 + k), 100 + 50 * k) for k in range(3)]
    sims.append(SimJob(Job("big", "u2", JobRequest(tasks=1, per_task=Resources.of(1, mem=2000)),
                           100, 5), 100))
    text = "QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\nNODEALLOCATIONPOLICY FIRSTAVAILABLE\n"
    assert_used_and_alike(switch_replay(memo, "CARRY"), (nodes, sims, text, True), memo.Carried,
                          "fails", monkeypatch)


def test_a_ceiling_answers_the_wider_jobs_of_a_shape(monkeypatch):
    """Three nodes, two with most of their memory taken for long (processors to spare): a
    3-node job fails to start and reserves; a 2-node job fails (its ceiling: one node
    holds a task), and the 2- and 3-node jobs after it of the same shape and shorter
    spans are answered by that ceiling; the decisions are those of asking the planner."""
    nodes = tuple(Node(f"n{i}", Resources.of(4, mem=4096)) for i in range(3))
    task = Resources.of(1, mem=2000)

    def job(jid, n, wc, t, per=task):
        return Job(jid, "u0", JobRequest(tasks=n, per_task=per, nodes=n, tasks_per_node=1), wc, t)
    sims = [SimJob(job(f"busy{k}", 1, 5000, 0, Resources.of(1, mem=3000)), 5000) for k in range(2)]
    sims += [SimJob(job("top", 3, 100, 1), 100), SimJob(job("two", 2, 900, 2), 900)]
    sims += [SimJob(job(f"w{k}", 2 + k % 2, 800 - 100 * k, 3 + k), 50) for k in range(4)]
    text = "QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\nNODEALLOCATIONPOLICY FIRSTAVAILABLE\n"
    assert_used_and_alike(switch_replay(memo, "CEILING"), (nodes, sims, text, True),
                          memo.VectorShrinkMemo, "above_most", monkeypatch)


def test_a_ceiling_is_carried_when_nothing_given_back_could_help(monkeypatch):
    """Three nodes, two with most of their memory taken for long; 2-node jobs of 2 GB a
    task wait behind a 3-node one while small jobs end on the third node one after the
    other: the cycles at those ends answer the 2-node jobs by the last cycle's ceiling
    (lent to this cycle's memo), and decide as asking the planner."""
    nodes = tuple(Node(f"n{i}", Resources.of(4, mem=4096)) for i in range(3))
    task = Resources.of(1, mem=2000)

    def job(jid, n, wc, t, per=task):
        return Job(jid, "u0", JobRequest(tasks=n, per_task=per, nodes=n, tasks_per_node=1), wc, t)
    sims = [SimJob(job(f"busy{k}", 1, 5000, 0, Resources.of(1, mem=3000)), 5000) for k in range(2)]
    sims += [SimJob(job(f"s{k}", 1, 3000, 0, Resources.of(1, mem=100)), 200 + 100 * k)
             for k in range(3)]
    sims += [SimJob(job("top", 3, 100, 1), 100)]
    sims += [SimJob(job(f"w{k}", 2, 900 - 100 * k, 2 + k), 50) for k in range(3)]
    text = "QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\nNODEALLOCATIONPOLICY FIRSTAVAILABLE\n"
    assert_used_and_alike(switch_replay(memo, "CARRY_MOST"), (nodes, sims, text, True),
                          memo.VectorShrinkMemo, "lend_most", monkeypatch, called=True)
