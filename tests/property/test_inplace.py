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

from maui_py.cfg import parse_config
from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.policy import inplace
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import SimJob

from .node_kinds import nodes_and_jobs

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


def replay(nodes, sims, text, per_event, keep: bool, monkeypatch) -> tuple[list, dict, int]:
    """Every cycle's (time, decisions, reports, reservations kept), each job's (start, end, kind, runs), and
    how many reservations were left in place."""
    monkeypatch.setattr(inplace, "KEEP", keep)
    seen, made = [], []
    init = inplace.Made.__init__

    def counted(self, *a, **k):
        init(self, *a, **k)
        made.append(self)
    monkeypatch.setattr(inplace.Made, "__init__", counted)

    def on_cycle(now, result):
        seen.append((now, result.decisions, result.reports,
                     sorted((jid, kr.start, kr.end, kr.allocation, kr.group, kr.made_at)
                            for jid, kr in result.state.reservations.items())))

    res = Simulation(nodes, sims, parse_config(text),
                     SimOptions(check_table=True, on_cycle=on_cycle, per_event=per_event)).run()
    assert res.check.ok, res.check.violations
    return seen, {j: (r.start, r.end, r.kind, r.runs) for j, r in res.records.items()}, \
        sum(m.left for m in made)


def _same(monkeypatch, w) -> int:
    nodes, sims, text, per_event = w
    fast = replay(nodes, sims, text, per_event, True, monkeypatch)
    definition = replay(nodes, sims, text, per_event, False, monkeypatch)
    assert definition[2] == 0
    assert fast[1] == definition[1]
    for a, b in zip(fast[0], definition[0]):
        assert a == b, f"cycle at {a[0]}"
    assert len(fast[0]) == len(definition[0])
    return fast[2]


@SETTINGS
@given(workloads())
def test_reservations_left_in_place_decide_as_re_making_every_one(monkeypatch, w):
    _same(monkeypatch, w)


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
    left = _same(monkeypatch, (nodes, sims, text, True))
    assert left >= 5
