"""The last cycle's ceilings asked again (planning/memo.Carried with switch memo.CARRY_MOST:
a tasks-per-node request asking more nodes than its (eligible, d, tasks per node) ceiling
of the last cycle fails when no node of its given back on since has room for a node's
share; the ceiling so found is lent to this cycle's memo) decide exactly as asking the
planner: in replays on several node kinds with tasks-per-node jobs of many sizes that end
early, each cycle's decisions, reports and reservations equal and the table checked after
every cycle; and in cycles from full snapshots (holds forced again, standing reservations
held or not), decisions, order and the persisted maps equal at every step."""

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
    monkeypatch.setattr(memo, "CARRY_MOST", on)
    return replay_cycles(nodes, sims, text, per_event, kept_view)


@SETTINGS
@given(switch_workloads(two_node=False))
def test_carried_ceilings_decide_as_asking_the_planner(monkeypatch, w):
    assert_replays_alike(replay, w, monkeypatch)


def _arrivals(k: int, pick: int, now: int) -> dict[str, Job]:
    """One to three jobs, most tasks per node on 1-4 nodes (one or two a node), memory
    per task; some one task anywhere."""
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
@given(full_snapshots(3, 5, [1, 1, 2], ["FIRSTAVAILABLE", "MINRESOURCE"]))
def test_carried_ceilings_on_full_snapshots_decide_as_asking_the_planner(sc):
    replay_on_off(memo, "CARRY_MOST", sc, _arrivals, maps=("deferred", "reservations"))


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
    lent = []
    real = memo.VectorShrinkMemo.lend_most

    def counted(self, *a):
        lent.append(a)
        return real(self, *a)
    monkeypatch.setattr(memo.VectorShrinkMemo, "lend_most", counted)
    fast = replay(nodes, sims, text, True, True, monkeypatch)
    assert lent
    definition = replay(nodes, sims, text, True, False, monkeypatch)
    assert fast == definition
