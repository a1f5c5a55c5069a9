"""The last cycle's start-now failures asked again (planning/memo.Carried, switch
memo.CARRY) decide exactly as asking the planner: in replays on several node kinds
(memory, GPUs, features) with jobs that end early and arrivals between, under
CURRENTHIGHEST and HIGHEST, each cycle's decisions, reports and reservations equal and the
table checked after every cycle (`_check()`, SimOptions.check_table); and in cycles from
full snapshots (no delta) where running jobs outlive their limits (their holds forced
again), with standing reservations held or not: decisions, order and the persisted maps
equal at every step, each side's planner checked."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings

from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.planning import memo
from maui_py.sim.swf import SimJob

from .node_kinds import (PER_TASK, assert_replays_alike, full_snapshots, kept_view,
                         replay_cycles, switch_workloads)
from .on_off import replay_on_off

SETTINGS = settings(max_examples=80 * int(os.environ.get("MAUI_TABLE_EXAMPLES_X", "1")),
                    deadline=None, suppress_health_check=list(HealthCheck))


def replay(nodes, sims, text, per_event, carry: bool, monkeypatch) -> tuple[list, dict]:
    monkeypatch.setattr(memo, "CARRY", carry)
    return replay_cycles(nodes, sims, text, per_event, kept_view)


@SETTINGS
@given(switch_workloads(two_node=True))
def test_carried_failures_decide_as_asking_the_planner(monkeypatch, w):
    assert_replays_alike(replay, w, monkeypatch)


def _arrivals(k: int, pick: int, now: int) -> dict[str, Job]:
    """One to three node-table jobs: memory per task, some two tasks per node."""
    out = {}
    for b in range(1 + pick % 3):
        jid = f"j{k}_{b}"
        per = PER_TASK[(pick >> b) % 4]
        tpn = (pick >> (b + 2)) % 3
        req = (JobRequest(tasks=2 * tpn, per_task=per, nodes=2, tasks_per_node=tpn) if tpn
               else JobRequest(tasks=1 + (pick >> b) % 4, per_task=per))
        out[jid] = Job(jid, f"u{(pick >> b) % 3}", req, 60 + pick % 900, now)
    return out


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(full_snapshots(2, 4, [1, 2, 3], ["FIRSTAVAILABLE", "MINRESOURCE"]))
def test_carried_failures_on_full_snapshots_decide_as_asking_the_planner(sc):
    replay_on_off(memo, "CARRY", sc, _arrivals, maps=("deferred", "reservations"))


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
    asked = []
    real = memo.Carried.fails

    def counted(self, *a):
        got = real(self, *a)
        asked.append(got)
        return got
    monkeypatch.setattr(memo.Carried, "fails", counted)
    fast = replay(nodes, sims, text, True, True, monkeypatch)
    assert any(asked)
    definition = replay(nodes, sims, text, True, False, monkeypatch)
    assert fast == definition
