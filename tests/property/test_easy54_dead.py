"""first_fit's pass-local failure memo (switch backfill.DEAD: a candidate whose compiled
request failed to start now earlier in the pass, at the same epoch, for a span no longer
than its own, is passed over without asking fits_now) decides exactly as asking fits_now
for every candidate: replays on several node kinds under FIRSTFIT and BESTFIT, with and
without BFPRIORITYPOLICY DURATION, throttling limits (the soft and hard passes) and a
standing reservation some jobs may use, give each cycle the same decisions, reports and
reservations, the table checked after every cycle; the grouped walk off, so first_fit
walks every pass."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.core.cycle import Cycle
from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.planning import owners
from maui_py.policy import backfill
from maui_py.sim.swf import SimJob

from .node_kinds import (assert_replays_alike, kept_text, kept_view, memory_queue, nodes_and_jobs,
                         replay_cycles)

SETTINGS = settings(max_examples=60 * int(os.environ.get("MAUI_TABLE_EXAMPLES_X", "1")),
                    deadline=None, suppress_health_check=list(HealthCheck))

EXTRAS = ["BFPRIORITYPOLICY DURATION\n", "USERCFG[DEFAULT] MAXJOB=1,3\n",
          "USERCFG[u0] MAXJOB=1,2 MAXPROC=3\n",
          "SRCFG[r] STARTTIME=00:00:00 ENDTIME=00:10:00 PERIOD=DAY HOSTLIST=n0 USERLIST=u1\n"]


@st.composite
def workloads(draw):
    nodes, sims = nodes_and_jobs(draw, two_node=draw(st.booleans()))
    text = kept_text(draw, EXTRAS)
    return nodes, sims, text, draw(st.booleans())


def replay(nodes, sims, text, per_event, dead: bool, monkeypatch,
           grouped: bool = False) -> tuple[list, dict]:
    monkeypatch.setattr(backfill, "DEAD", dead)
    monkeypatch.setattr(backfill, "GROUPED", grouped)
    return replay_cycles(nodes, sims, text, per_event, kept_view)


@SETTINGS
@given(workloads())
def test_the_pass_memo_decides_as_asking_every_candidate(monkeypatch, w):
    assert_replays_alike(replay, w, monkeypatch)


def test_the_pass_memo_passes_over_later_jobs_of_a_failed_request(monkeypatch):
    """One node whose memory a running job mostly takes; eight queued jobs of one request
    (3 GB) behind a wide one that reserves, and a small one last: with the memo the pass
    asks fits_now fewer times (the 3 GB request once a pass), and the small job starts
    first, as asking every candidate decides."""
    nodes, sims, text = memory_queue()
    asked = {True: 0, False: 0}
    real = Cycle.fits_now

    def counted(self, job, cr):
        asked[backfill.DEAD] += 1
        return real(self, job, cr)
    monkeypatch.setattr(Cycle, "fits_now", counted)
    fast = replay(nodes, sims, text, True, True, monkeypatch)
    definition = replay(nodes, sims, text, True, False, monkeypatch)
    assert asked[True] < asked[False], asked
    assert fast == definition
    assert fast[1]["small"][0] < fast[1]["b0"][0]


def test_a_shorter_job_of_a_failed_request_is_still_asked(monkeypatch):
    """One node of 4 processors, 2 taken for 1000 s; a 4-processor job reserves at the
    end; two jobs of one request (2 processors) follow, the first too long to end before
    the reservation, the second short enough: the memo passes over only spans at least as
    long as the one that failed, so the short job starts now, as asking every candidate."""
    nodes = (Node("n0", Resources.of(4, mem=4096)),)
    two = JobRequest(tasks=2, per_task=Resources.of(1, mem=100))
    sims = [SimJob(Job("run", "u0", JobRequest(tasks=2, per_task=Resources.of(1)), 1000, 0), 1000),
            SimJob(Job("wide", "u1", JobRequest(tasks=4, per_task=Resources.of(1)), 500, 1), 500),
            SimJob(Job("long", "u2", two, 3000, 2), 3000),
            SimJob(Job("short", "u2", two, 300, 2), 300)]
    text = "QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n"
    fast = replay(nodes, sims, text, False, True, monkeypatch)
    definition = replay(nodes, sims, text, False, False, monkeypatch)
    assert fast == definition
    assert fast[1]["short"][0] < 1000


@pytest.mark.parametrize("grouped", [False, True])
def test_the_pass_memo_forgets_its_failures_when_something_is_given_back(monkeypatch, grouped):
    """No start gives anything back today (candidates hold no reservation), so the epoch
    moving inside a pass is forced here: starting `j2` releases `wide`'s reservation, as a
    give-back during the pass would. `j3`, of `j1`'s request and span, failed before only
    because of that reservation: the walk must forget `j1`'s failure and start it, as asking
    every candidate does, in first_fit and in the grouped walk (first_fit's `dead` not
    emptied, or Askable not reset, when the epoch moves: each fails its case)."""
    nodes = (Node("n0", Resources.of(4, mem=4096)),)
    long = JobRequest(tasks=1, per_task=Resources.of(1, mem=100))
    sims = [SimJob(Job("run", "u0", JobRequest(tasks=2, per_task=Resources.of(1)), 1000, 0), 1000),
            SimJob(Job("wide", "u1", JobRequest(tasks=4, per_task=Resources.of(1)), 500, 1), 500),
            SimJob(Job("j1", "u2", long, 2000, 2), 2000),
            SimJob(Job("j2", "u2", JobRequest(tasks=1, per_task=Resources.of(1)), 100, 2), 100),
            SimJob(Job("j3", "u2", long, 2000, 2), 2000)]
    text = "QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n"
    real = Cycle.start

    def start(self, job, p, kind, pos):
        real(self, job, p, kind, pos)
        if job.id == "j2" and self.state.reservations.pop("wide", None) is not None:
            self.table.release(owners.priority("wide"))
    monkeypatch.setattr(Cycle, "start", start)
    monkeypatch.setattr(backfill, "GROUP_FROM", 0)      # the grouped walk even for 3 jobs
    fast = replay(nodes, sims, text, False, True, monkeypatch, grouped)   # one pass at 2
    definition = replay(nodes, sims, text, False, False, monkeypatch)
    assert fast == definition
    assert fast[1]["j3"][0] == 2, fast[1]
