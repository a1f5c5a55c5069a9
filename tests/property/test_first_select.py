"""core/firstselect.py (Cycle.select per shape, when no earlier order is reused) changes
nothing: two states go through the same random sequence of cycles, one classifying and
ranking the queue per shape (first_select), the other through Cycle.select job by job
(first_select switched off); each cycle is given a new configuration object, so no
selection cache is reused and every cycle takes the first-cycle path. They must give the
same order with the same priorities (to the bit), the same compiled requests (plain jobs'
may be left out: firstselect.SKIP_PLAIN_MEMO), the same (fixed, static) selection cache,
the same decisions and the same defers, batch holds, bypass counts and queue times.
Steps defer jobs of plain shapes and give jobs queue times and bypass counts of their
own, as a restart's state has them.

The queues mix credentials, QOS, classes, request shapes (memory, features, node counts,
impossible ones), holds, unmet dependencies, system priorities, class and system limits;
the priority settings cover one static part, many (QOS, user and class priorities, a
weighted RES), a zero queue-time weight, and settings the shortcut does not apply to
(XFACTOR, queue times restarting), where both take Cycle.select.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core import firstselect
from maui_py.core.cycle import run_cycle
from maui_py.core.records import DeferRecord
from maui_py.core.state import SchedulerState
from maui_py.model import (ClusterSnapshot, Job, JobRequest, JobState, Node, Resources,
                           Start)
from maui_py.planning.api import NoPlacement

from .queue_steps import edit_queue, queue_of

PRIORITIES = ["", "QOSCFG[hi] PRIORITY=100\nQOSWEIGHT 1\n",
              "USERCFG[u1] PRIORITY=7\nUSERWEIGHT 3\nCLASSCFG[b] PRIORITY=5\nCLASSWEIGHT 2\n",
              "PROCWEIGHT 2\nMEMWEIGHT 1\nRESWEIGHT 1\n", "QUEUETIMEWEIGHT 0\n",
              "SERVICEWEIGHT 3\nQUEUETIMEWEIGHT 2\n", "XFACTORWEIGHT 10\n",
              "JOBPRIOACCRUALPOLICY FULLPOLICY\n"]
LIMITS = ["", "CLASSCFG[b] MAX.WCLIMIT=00:04:00\n", "SYSTEMMAXPROCPERJOB 5\n",
          "SYSTEMMAXJOBWALLTIME 00:05:00\n"]


@st.composite
def scenarios(draw):
    nodes = tuple(Node(f"n{i}", Resources(procs=draw(st.sampled_from([2, 4, 8])),
                                          mem=draw(st.sampled_from([1000, 4000]))),
                       features=frozenset(draw(st.sampled_from([(), ("fast",)]))))
                  for i in range(draw(st.integers(2, 6))))
    text = (f"RESERVATIONDEPTH {draw(st.sampled_from([1, 3]))}\n"
            f"BACKFILLPOLICY {draw(st.sampled_from(['FIRSTFIT', 'BESTFIT']))}\n"
            "DEFERTIME 60\nDEFERCOUNT 2\n" + draw(st.sampled_from(PRIORITIES))
            + draw(st.sampled_from(LIMITS)))
    steps = [(draw(st.sampled_from(["arrive", "arrive", "huge", "end", "hold", "release",
                                    "depend", "setspri", "defer", "qtime", "tick"])),
              draw(st.integers(0, 10_000))) for _ in range(draw(st.integers(3, 12)))]
    return nodes, text, steps


def _job(name: str, pick: int, now: int, huge: bool) -> Job:
    tasks = 99 if huge else 1 + pick % 4
    req = JobRequest(tasks=tasks, per_task=Resources(1, 250 * (pick % 3)),
                     nodes=1 if pick % 7 == 0 and tasks <= 2 else 0,
                     features=frozenset({"fast"}) if pick % 5 == 0 else frozenset())
    return Job(name, f"u{pick % 3}", req, 60 + 60 * (pick % 6), now - pick % 400,
               qos="hi" if pick % 4 == 0 else "", class_="b" if pick % 3 == 0 else "")


def _selection(state: SchedulerState):
    sel = state.caches.selection
    if sel is None:
        return None
    return ([(j.id, cr, p.hex()) for j, cr, p in sel.order], sel.fixed,
            None if sel.static is None else sel.static.hex())


SETTINGS = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(scenarios())
def test_selecting_per_shape_ranks_and_classifies_as_job_by_job(sc):
    nodes, text, steps = sc
    jobs: dict[str, Job] = {}
    state, bare = SchedulerState(), SchedulerState()
    now = 1000
    real = firstselect.first_select
    for k, (kind, pick) in enumerate(steps):
        now += 30
        _queued, _running, one = queue_of(jobs, pick)
        if kind in ("arrive", "huge"):
            for b in range(2 + pick % 5):
                jobs[f"j{k}.{b}"] = _job(f"j{k}.{b}", pick >> b, now, kind == "huge" and b == 0)
        elif edit_queue(jobs, kind, pick):         # end, hold, release, depend, copy, change
            pass
        elif kind == "defer" and one:       # a job of a plain shape, deferred for a while
            for s in (state, bare):
                s.deferred[one] = DeferRecord(1, now + 60 * (pick % 3), "by the test")
        elif kind == "qtime" and one:       # a queue time and a bypass count of its own
            for s in (state, bare):
                s.queue_time[one] = now - pick % 900
                s.bypass[one] = 1 + pick % 3
        elif kind == "setspri" and one:
            state.system_priority[one] = bare.system_priority[one] = 1 + pick % 50
        snap = ClusterSnapshot(now, nodes, tuple(jobs.values()))
        got = run_cycle(snap, parse_config(text), state, explain=False)
        firstselect.first_select = lambda c, q: None      # Cycle.select, job by job
        try:
            want = run_cycle(snap, parse_config(text), bare, explain=False)
        finally:
            firstselect.first_select = real
        assert _selection(got.state) == _selection(want.state), f"step {k} ({kind})"
        assert got.decisions == want.decisions, f"step {k} ({kind})"
        assert got.order == want.order, f"step {k} ({kind})"
        for name in ("deferred", "batch_holds", "bypass", "queue_time", "pending"):
            assert getattr(got.state, name) == getattr(want.state, name), f"step {k}: {name}"
        compiled = {j: (e[0], e[2], e[4]) for j, e in got.state.caches.compiled.items()}
        assert compiled == {j: (e[0], e[2], e[4]) for j, e in want.state.caches.compiled.items()
                            if j in compiled or e[4] or isinstance(e[2], NoPlacement)
                            }, f"step {k}"      # plain jobs may be left out: SKIP_PLAIN_MEMO
        state, bare = got.state, want.state
        for d in got.decisions:
            if isinstance(d, Start):
                jobs[d.job_id] = replace(jobs[d.job_id], state=JobState.RUNNING, start_time=now,
                                         allocation=d.allocation)

