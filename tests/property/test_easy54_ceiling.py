"""Ceilings of start-now questions (planning/memo.VectorShrinkMemo.above_most / note_most,
switch memo.CEILING: a tasks-per-node request asking more nodes than the free-shape
index's bound, measured after a failure of its (eligible, d, per node) at this epoch,
fails without asking the planner) decide exactly as asking it: in replays on several node
kinds (memory, GPUs, features) with multi-node tasks-per-node jobs of many sizes that end
early, under EASY-like and deeper reservation policies, each cycle's decisions, reports
and reservations equal and the table checked after every cycle; and in cycles from full
snapshots with a standing reservation some jobs may not use, decisions, order and the
persisted maps equal at every step."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings

from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.planning import memo
from maui_py.sim.swf import SimJob

from .node_kinds import (PER_TASK, assert_replays_alike, full_snapshots, kept_view,
                         replay_cycles, switch_workloads)
from .on_off import replay_on_off

SETTINGS = settings(max_examples=60 * int(os.environ.get("MAUI_TABLE_EXAMPLES_X", "1")),
                    deadline=None, suppress_health_check=list(HealthCheck))


def replay(nodes, sims, text, per_event, on: bool, monkeypatch) -> tuple[list, dict]:
    monkeypatch.setattr(memo, "CEILING", on)
    return replay_cycles(nodes, sims, text, per_event, kept_view)


@SETTINGS
@given(switch_workloads(two_node=False))
def test_ceilings_decide_as_asking_the_planner(monkeypatch, w):
    assert_replays_alike(replay, w, monkeypatch)


def _arrivals(k: int, pick: int, now: int) -> dict[str, Job]:
    """One to three node-table jobs, most tasks per node on 1-4 nodes (one per node or
    two), memory per task; some one task anywhere."""
    out = {}
    for b in range(1 + pick % 3):
        jid = f"j{k}_{b}"
        per = PER_TASK[(pick >> b) % 4]
        tpn = (pick >> (b + 2)) % 3
        nodes = 1 + (pick >> (b + 4)) % 4
        req = (JobRequest(tasks=tpn * nodes, per_task=per, nodes=nodes, tasks_per_node=tpn)
               if tpn else JobRequest(tasks=1 + (pick >> b) % 4, per_task=per))
        out[jid] = Job(jid, f"u{(pick >> b) % 3}", req, 60 + pick % 900, now)
    return out


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(full_snapshots(3, 5, [1, 1, 2], ["FIRSTAVAILABLE", "MINRESOURCE", "PRIORITY"]))
def test_ceilings_on_full_snapshots_decide_as_asking_the_planner(sc):
    replay_on_off(memo, "CEILING", sc, _arrivals, maps=("deferred", "reservations"))


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
    answered = []
    real = memo.VectorShrinkMemo.above_most

    def counted(self, *a):
        got = real(self, *a)
        answered.append(got)
        return got
    monkeypatch.setattr(memo.VectorShrinkMemo, "above_most", counted)
    fast = replay(nodes, sims, text, True, True, monkeypatch)
    assert any(answered)
    definition = replay(nodes, sims, text, True, False, monkeypatch)
    assert fast == definition
