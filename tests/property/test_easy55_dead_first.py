"""first_fit's walk with its pass memo asked first and ceilings kept in it (switch
backfill.DEAD_FIRST: _first_fit_dead_first, used without throttling limits or reservations
some jobs may use) decides exactly as first_fit's own walk: replays on several node kinds
(memory, GPUs, features; tasks-per-node requests of many sizes, so ceilings answer) under
FIRSTFIT and BESTFIT, with and without BFPRIORITYPOLICY DURATION (candidate lists rather
than the order's own entries), give each cycle the same decisions, reports and
reservations, the table checked after every cycle; the grouped walk off, so every pass
is walked."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.policy import backfill
from maui_py.sim.swf import SimJob

from .node_kinds import (assert_replays_alike, kept_text, kept_view, nodes_and_jobs, replay_cycles,
                         request)

SETTINGS = settings(max_examples=60 * int(os.environ.get("MAUI_TABLE_EXAMPLES_X", "1")),
                    deadline=None, suppress_health_check=list(HealthCheck))

EXTRAS = ["BFPRIORITYPOLICY DURATION\n", "PROCWEIGHT 50\n", "XFACTORWEIGHT 100\n"]


@st.composite
def workloads(draw):
    """nodes_and_jobs' nodes, and 6-30 jobs sharing two to four requests (the memo is
    keyed by compiled request) of many spans, arriving in bursts."""
    two_node = draw(st.booleans())
    nodes, _sims = nodes_and_jobs(draw, two_node=two_node)
    pool = [request(draw, len(nodes), two_node) for _ in range(draw(st.integers(2, 4)))]
    sims, t = [], 0
    for k in range(draw(st.integers(6, 30))):
        t += draw(st.sampled_from([0, 0, 0, 1, 10, 60]))
        wc = draw(st.integers(10, 500))
        run = draw(st.sampled_from([wc, draw(st.integers(1, wc))]))
        sims.append(SimJob(Job(f"j{k:02d}", f"u{k % 3}", draw(st.sampled_from(pool)), wc, t), run))
    return nodes, sims, kept_text(draw, EXTRAS), draw(st.booleans())


def replay(nodes, sims, text, per_event, on: bool, monkeypatch) -> tuple[list, dict]:
    monkeypatch.setattr(backfill, "DEAD_FIRST", on)
    monkeypatch.setattr(backfill, "GROUPED", False)
    return replay_cycles(nodes, sims, text, per_event, kept_view)


@SETTINGS
@given(workloads())
def test_the_memo_first_walk_decides_as_first_fit(monkeypatch, w):
    assert_replays_alike(replay, w, monkeypatch)


def test_a_ceiling_kept_in_the_pass_memo_answers_later_jobs(monkeypatch):
    """Three nodes, two with most of their memory taken for long: a 3-node job reserves;
    2-node jobs of one request, longest first, then a one-node job: the first 2-node job
    fails (its ceiling: one node holds a task), the later ones of its request are passed
    over by the ceiling kept in the memo (asked once), and the one-node job starts, as
    first_fit's own walk decides."""
    nodes = tuple(Node(f"n{i}", Resources.of(4, mem=4096)) for i in range(3))
    task = Resources.of(1, mem=2000)
    two = JobRequest(tasks=2, per_task=task, nodes=2, tasks_per_node=1)

    def job(jid, req, wc, t):
        return Job(jid, "u0", req, wc, t)
    busy = JobRequest(tasks=1, per_task=Resources.of(1, mem=3000), nodes=1, tasks_per_node=1)
    sims = [SimJob(job(f"busy{k}", busy, 5000, 0), 5000) for k in range(2)]
    sims.append(SimJob(job("top", JobRequest(tasks=3, per_task=task, nodes=3, tasks_per_node=1),
                           100, 1), 100))
    sims += [SimJob(job(f"w{k}", two, 900 - 100 * k, 2 + k), 50) for k in range(4)]
    sims.append(SimJob(job("one", JobRequest(tasks=1, per_task=task), 50, 9), 50))
    text = "QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\nNODEALLOCATIONPOLICY FIRSTAVAILABLE\n"
    asked = []
    real = backfill.memo.VectorShrinkMemo.above_most

    def counted(self, *a):
        got = real(self, *a)
        asked.append(got)
        return got
    monkeypatch.setattr(backfill.memo.VectorShrinkMemo, "above_most", counted)
    fast = replay(nodes, sims, text, True, True, monkeypatch)
    n_fast = len(asked)
    asked.clear()
    definition = replay(nodes, sims, text, True, False, monkeypatch)
    assert fast == definition
    assert n_fast < len(asked), (n_fast, len(asked))
    assert fast[1]["one"][0] < 5000
