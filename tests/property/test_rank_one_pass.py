"""first_select's priorities for jobs of several static parts worked out in one pass
(core/firstselect.RANK_IN_ONE_PASS: each job's static part plus PriorityEngine.fixed_terms'
SERV term, cyc6) against fixed_priorities per static part (the switch off, the
definition): two states go through the same random cycles of test_first_select's
scenarios (credentials, QOS and class priorities, RES weights, zero queue-time weight,
holds, limits), each cycle with a new configuration so that every one takes the
first-cycle path; the selection caches (order, compiled requests, priorities to the bit),
the decisions and the order are the same, and the planner passes its checks."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core import firstselect
from maui_py.core.cycle import run_cycle
from maui_py.core.state import SchedulerState
from maui_py.model import ClusterSnapshot, Job, JobState, Start

from .queue_steps import edit_queue, queue_of
from .test_first_select import SETTINGS, _job, _selection, scenarios


def _cycle(one_pass: bool, snap, text, state):
    old = firstselect.RANK_IN_ONE_PASS
    firstselect.RANK_IN_ONE_PASS = one_pass
    try:
        out = run_cycle(snap, parse_config(text), state, explain=False)
    finally:
        firstselect.RANK_IN_ONE_PASS = old
    table = out.state.caches.plan.table
    if table is not None:
        table._check()
    return out


MORE = ["", "QOSCFG[hi] PRIORITY=100\nQOSWEIGHT 1\nSERVICEWEIGHT 3\nQUEUETIMEWEIGHT 2\n",
        "USERCFG[u1] PRIORITY=-7\nUSERWEIGHT 3\nSERVICEWEIGHT 5\nQUEUETIMEWEIGHT 7\n"]
"""Settings added to a scenario's: several static parts with SERV and QUEUETIME weights
other than 1 (the terms' float operations then differ from other orders of them)."""


@SETTINGS
@given(scenarios(), st.sampled_from(MORE))
def test_ranking_in_one_pass_equals_ranking_per_static_part(sc, more):
    nodes, text, steps = sc
    text += more
    jobs: dict[str, Job] = {}
    on, off = SchedulerState(), SchedulerState()
    now = 1000
    for k, (kind, pick) in enumerate(steps):
        now += 30
        queue_of(jobs, pick)
        if kind in ("arrive", "huge"):
            for b in range(2 + pick % 5):
                jobs[f"j{k}.{b}"] = _job(f"j{k}.{b}", pick >> b, now, kind == "huge" and b == 0)
        else:
            edit_queue(jobs, kind, pick)
        snap = ClusterSnapshot(now, nodes, tuple(jobs.values()))
        got, want = _cycle(True, snap, text, on), _cycle(False, snap, text, off)
        assert _selection(got.state) == _selection(want.state), f"step {k} ({kind})"
        assert got.decisions == want.decisions, f"step {k} ({kind})"
        assert got.order == want.order, f"step {k} ({kind})"
        on, off = got.state, want.state
        for d in got.decisions:
            if isinstance(d, Start):
                jobs[d.job_id] = replace(jobs[d.job_id], state=JobState.RUNNING, start_time=now,
                                         allocation=d.allocation)
