"""CURRENTHIGHEST reservations left in place on the node table (policy/inplace.py) decide
exactly as dropping and re-making every one each cycle (inplace.KEEP off, the definition:
policy/kept.reserved_jobs and the priority pass), on several node kinds (memory, GPUs,
features), with tasks-per-node, whole-node and "any" requests, jobs that end early and
arrivals between: every cycle's starts and reservations (start, end, nodes, group, date
made) are the same, every job's start too, and the table is checked after every cycle
(`_check()`, SimOptions.check_table)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.policy import inplace
from maui_py.sim.swf import SimJob

from .node_kinds import nodes_and_jobs, replay_cycles
from .on_off import assert_same_cycles

SETTINGS = settings(max_examples=80 * int(os.environ.get("MAUI_TABLE_EXAMPLES_X", "1")),
                    deadline=None, suppress_health_check=list(HealthCheck))


@st.composite
def workloads(draw):
    """Several node kinds (the node table), runtimes mostly short of the limit."""
    nodes, sims = nodes_and_jobs(draw, two_node=False)
    text = ("RESERVATIONPOLICY CURRENTHIGHEST\nQUEUETIMEWEIGHT 1\n"
            f"RESERVATIONDEPTH {draw(st.sampled_from([1, 1, 2, 3]))}\n"
            f"BACKFILLPOLICY {draw(st.sampled_from(['FIRSTFIT', 'FIRSTFIT', 'BESTFIT']))}\n"
            "NODEALLOCATIONPOLICY "
            f"{draw(st.sampled_from(['FIRSTAVAILABLE', 'MINRESOURCE', 'CPULOAD', 'LASTAVAILABLE']))}\n"
            + draw(st.sampled_from(["", "", "XFACTORWEIGHT 100\n", "PROCWEIGHT 50\n"])))
    return nodes, sims, text, draw(st.booleans())


def replay(nodes, sims, text, per_event, keep: bool, monkeypatch,
           switch: str = "KEEP") -> tuple[list, dict, int]:
    """Every cycle's (time, decisions, reports, reservations kept), each job's (start, end, kind, runs), and
    how many reservations were left in place, with inplace.<switch> set to `keep`."""
    monkeypatch.setattr(inplace, switch, keep)
    made = []
    init = inplace.Made.__init__

    def counted(self, *a, **k):
        init(self, *a, **k)
        made.append(self)
    monkeypatch.setattr(inplace.Made, "__init__", counted)

    seen, records = replay_cycles(nodes, sims, text, per_event, lambda now, result: (
        now, result.decisions, result.reports,
        sorted((jid, kr.start, kr.end, kr.allocation, kr.group, kr.made_at)
               for jid, kr in result.state.reservations.items())))
    return seen, records, sum(m.left for m in made)


def same_on_off(monkeypatch, w, switch: str = "KEEP") -> int:
    """`w` replayed with inplace.<switch> on and off: the same cycles and job starts, none
    left in place with it off; how many were left with it on."""
    nodes, sims, text, per_event = w
    fast = replay(nodes, sims, text, per_event, True, monkeypatch, switch)
    definition = replay(nodes, sims, text, per_event, False, monkeypatch, switch)
    assert definition[2] == 0
    assert_same_cycles(fast, definition)
    return fast[2]


@SETTINGS
@given(workloads())
def test_reservations_left_in_place_decide_as_re_making_every_one(monkeypatch, w):
    same_on_off(monkeypatch, w)


def test_a_reservation_is_left_when_ends_free_nothing_it_could_use(monkeypatch):
    """A two-node job waits behind two long jobs on n0 and n1 (FIRSTAVAILABLE) while short
    jobs on n2 end and new short ones start there: n2 is too small for it, so every end
    leaves its reservation in place, with the decisions of re-making it."""
    nodes = (Node("n0", Resources.of(4, mem=4096)), Node("n1", Resources.of(4, mem=4096)),
             Node("n2", Resources.of(1, mem=4096)))
    sims = [SimJob(Job("a", "u0", JobRequest(tasks=4, per_task=Resources.of(1, mem=100)),
                       1000, 0), 1000),
            SimJob(Job("b", "u0", JobRequest(tasks=4, per_task=Resources.of(1, mem=100)),
                       1000, 0), 1000),
            SimJob(Job("big", "u1", JobRequest(tasks=8, per_task=Resources.of(1, mem=100),
                                               nodes=2, tasks_per_node=4), 500, 1), 500)]
    sims += [SimJob(Job(f"s{k}", "u2", JobRequest(tasks=1, per_task=Resources.of(1, mem=100)),
                        100, 2 + 40 * k), 30) for k in range(10)]
    text = ("RESERVATIONPOLICY CURRENTHIGHEST\nQUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\n"
            "NODEALLOCATIONPOLICY FIRSTAVAILABLE\n")
    left = same_on_off(monkeypatch, (nodes, sims, text, True))
    assert left >= 5


def test_a_later_reservation_over_the_room_given_back_does_not_keep_an_earlier_one(monkeypatch):
    """Falsifying example (MAUI_TABLE_EXAMPLES_X=3, CPULOAD, depth 2), made small: j1's
    reservation waits for n0 at 1000; j2's was made around it on n1 over [500, 1000). x ends
    early at 300, freeing n0: the re-make drops j2's reservation before it makes j1's again,
    so j1 moves to 500 on n0 and n1. The check must treat the later reservations' holds as
    free, as the re-make does (it kept j1 at 1000 and started j2 on n0)."""
    whole = Resources.of(4, mem=1024)
    nodes = tuple(Node(f"n{i}", Resources.of(4, mem=4096)) for i in range(3))
    sims = [SimJob(Job("a_x", "u0", JobRequest(tasks=1, per_task=whole), 1000, 0), 300),
            SimJob(Job("b_y", "u0", JobRequest(tasks=1, per_task=whole), 500, 0), 500),
            SimJob(Job("c_z", "u0", JobRequest(tasks=1, per_task=whole), 2000, 0), 2000),
            SimJob(Job("j1", "u1", JobRequest(tasks=2, per_task=whole, nodes=2,
                                              tasks_per_node=1), 1000, 10), 1000),
            SimJob(Job("j2", "u2", JobRequest(tasks=1, per_task=whole, nodes=1,
                                              tasks_per_node=1), 500, 10), 500)]
    text = ("RESERVATIONPOLICY CURRENTHIGHEST\nQUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 2\n"
            "NODEALLOCATIONPOLICY FIRSTAVAILABLE\n")
    for per_event in (True, False):
        same_on_off(monkeypatch, (nodes, sims, text, per_event))
    starts = replay(nodes, sims, text, True, True, monkeypatch)[1]
    assert starts["j1"][0] == 500 and starts["j2"][0] >= 1500
