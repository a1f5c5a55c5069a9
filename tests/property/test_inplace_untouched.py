"""CURRENTHIGHEST reservations left in place under throttling limits when their re-make
would see the planner untouched since they were made (policy/inplace.untouched) decide
exactly as dropping and re-making every one each cycle (inplace.UNTOUCHED off, the
definition: policy/kept.reserved_jobs and the priority pass), under random MAXJOB /
MAXPROC limits of users and QOSs, QOS priorities, fair share, several node kinds and
node allocation policies (LASTAVAILABLE among them), jobs that end early and arrivals
between: every cycle's decisions, reports and reservations (start, end, nodes, group,
date made) are the same, every job's start too, and the table is checked after every
cycle (`_check()`, SimOptions.check_table)."""

from __future__ import annotations

import os
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.sim.swf import SimJob

from .node_kinds import nodes_and_jobs
from .test_inplace import replay as inplace_replay, same_on_off

SETTINGS = settings(max_examples=80 * int(os.environ.get("MAUI_TABLE_EXAMPLES_X", "1")),
                    deadline=None, suppress_health_check=list(HealthCheck))

LIMITS = ["USERCFG[u1] MAXJOB=1\n", "USERCFG[DEFAULT] MAXJOB=2\n", "USERCFG[u0] MAXPROC=4\n",
          "QOSCFG[long] MAXJOB=1\n", "QOSCFG[long] MAXPROC=3 PRIORITY=-50\n",
          "USERCFG[u2] MAXJOB=1,3\n"]


@st.composite
def workloads(draw):
    """Several node kinds (the node table), runtimes mostly short of the limit, some jobs
    of QOS long or hi, one to three throttling limits."""
    nodes, sims = nodes_and_jobs(draw, two_node=False)
    qos = [draw(st.sampled_from(["", "", "long", "hi"])) for _ in sims]
    sims = [SimJob(replace(s.job, qos=q), s.runtime) if q else s for s, q in zip(sims, qos)]
    limits = "".join(draw(st.lists(st.sampled_from(LIMITS), min_size=1, max_size=3,
                                   unique=True)))
    text = ("RESERVATIONPOLICY CURRENTHIGHEST\nQUEUETIMEWEIGHT 1\n"
            f"RESERVATIONDEPTH {draw(st.sampled_from([1, 2, 2, 3]))}\n"
            f"BACKFILLPOLICY {draw(st.sampled_from(['FIRSTFIT', 'FIRSTFIT', 'BESTFIT']))}\n"
            "NODEALLOCATIONPOLICY "
            f"{draw(st.sampled_from(['LASTAVAILABLE', 'LASTAVAILABLE', 'FIRSTAVAILABLE', 'MINRESOURCE', 'CPULOAD']))}\n"
            "QOSCFG[hi] PRIORITY=200\nQOSCFG[long] QFLAGS=NOBF\n" + limits
            + draw(st.sampled_from(["", "", "FSPOLICY DEDICATEDPS\nFSINTERVAL 100\nFSWEIGHT 1\n"
                                    "FSUSERWEIGHT 10\nUSERCFG[DEFAULT] FSTARGET=30-\n"
                                    "USERCFG[u0] FSTARGET=20\n", "XFACTORWEIGHT 100\n"])))
    return nodes, sims, text, draw(st.booleans())


def replay(nodes, sims, text, per_event, keep: bool, monkeypatch) -> tuple[list, dict, int]:
    """test_inplace.replay with inplace.UNTOUCHED set to `keep`."""
    return inplace_replay(nodes, sims, text, per_event, keep, monkeypatch, "UNTOUCHED")


def _same(monkeypatch, w) -> int:
    return same_on_off(monkeypatch, w, "UNTOUCHED")


@SETTINGS
@given(workloads())
def test_untouched_reservations_left_in_place_decide_as_re_making_every_one(monkeypatch, w):
    _same(monkeypatch, w)


def test_a_reservation_is_left_while_only_arrivals_come(monkeypatch):
    """A two-node job waits behind two long jobs (LASTAVAILABLE, a MAXJOB limit on
    another user) while jobs of a user held by MAXJOB=1 arrive and wait: nothing is given
    back or placed between those cycles, so its reservation is left in place, with the
    decisions of re-making it."""
    cpu = Resources.of(4, mem=4096)
    nodes = tuple(Node(f"n{i}", cpu) for i in range(3))
    one = JobRequest(tasks=4, per_task=Resources.of(1, mem=100))
    sims = [SimJob(Job("a", "u0", one, 1000, 0), 1000),
            SimJob(Job("b", "u0", one, 1000, 0), 1000),
            SimJob(Job("c", "u1", one, 1000, 0), 1000),
            SimJob(Job("big", "u2", JobRequest(tasks=8, per_task=Resources.of(1, mem=100),
                                               nodes=2, tasks_per_node=4), 500, 1), 500)]
    sims += [SimJob(Job(f"w{k}", "u1", one, 100, 5 + 10 * k), 100) for k in range(6)]
    text = ("RESERVATIONPOLICY CURRENTHIGHEST\nQUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\n"
            "NODEALLOCATIONPOLICY LASTAVAILABLE\nUSERCFG[u1] MAXJOB=1\n")
    left = _same(monkeypatch, (nodes, sims, text, True))
    assert left >= 3


def _whole(tasks: int, nodes: int, features=frozenset()) -> JobRequest:
    return JobRequest(tasks=tasks, per_task=Resources.of(1, mem=100), nodes=nodes,
                      tasks_per_node=tasks // nodes, features=frozenset(features))


LIMITED = ("RESERVATIONPOLICY CURRENTHIGHEST\nQUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\n"
           "NODEALLOCATIONPOLICY LASTAVAILABLE\nUSERCFG[zz] MAXJOB=1\n")


def test_a_hold_that_expired_between_the_cycles_reorders_lastavailable(monkeypatch):
    """j waits for n0 and n1 (a's) and takes n3, whose job e ends at 50, before idle n2
    (LASTAVAILABLE: less idle time before its start). e runs to its limit, so its hold
    expires at the advance to 50 and nothing is given back; but from 50 on n2 and n3 are
    both idle since the origin, and n2 comes first by index: the re-make moves j to n2.
    The rule must not leave it (the next change of its view, 50, is not after now)."""
    cpu = Resources.of(4, mem=4096)
    nodes = (Node("n0", cpu), Node("n1", cpu), Node("n2", cpu),
             Node("n3", cpu, features=frozenset({"ib"})))
    sims = [SimJob(Job("e", "u0", _whole(4, 1, {"ib"}), 50, 0), 50),
            SimJob(Job("f", "u0", _whole(8, 2), 1000, 0), 1000),
            SimJob(Job("j", "u1", _whole(12, 3), 500, 1), 500)]
    _same(monkeypatch, (nodes, sims, LIMITED, True))
    starts = replay(nodes, sims, LIMITED, True, True, monkeypatch)[1]
    assert starts["j"][0] == 1000


def test_a_backfill_start_between_the_cycles_reorders_lastavailable(monkeypatch):
    """j waits for n0 and n1 (f's) and takes idle n2 before idle n3 (by index). c,
    which only n3 can hold, backfills there over [10, 110) after j's reservation was
    made; from then on n3 has been idle for less time before j's start than n2, so the
    re-make at the next arrival moves j to n3. The rule must not leave it (a placement
    since that was no later reservation: the planner's version moved once too often)."""
    cpu = Resources.of(4, mem=4096)
    nodes = (Node("n0", cpu), Node("n1", cpu), Node("n2", cpu),
             Node("n3", cpu, features=frozenset({"ib"})))
    sims = [SimJob(Job("f", "u0", _whole(8, 2), 1000, 0), 1000),
            SimJob(Job("j", "u1", _whole(12, 3), 500, 1), 500),
            SimJob(Job("c", "u2", _whole(4, 1, {"ib"}), 100, 10), 100),
            SimJob(Job("d", "u2", _whole(16, 4), 2000, 20), 2000)]
    _same(monkeypatch, (nodes, sims, LIMITED, True))
