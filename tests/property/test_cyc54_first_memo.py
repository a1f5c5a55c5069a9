"""first_select leaves the plain jobs out of the compiled-request cache
(core/firstselect.SKIP_PLAIN_MEMO) against entering each as Cycle.select does (the switch
off, the definition): two states go through the same random cycles of test_first_select's
scenarios (credentials, QOS, request shapes, impossible ones, holds, dependencies,
defers, system priorities, queue times, limits), each cycle with a new configuration (the
first-cycle path every time) or the same one (the selection cache's path, where a job left
out of the memo and deferred or held since goes through Cycle.select with no entry). The
selection caches (order, priorities to the bit), decisions, order, defers, batch holds,
bypass counts, queue times and pending starts are the same, the planner passes its checks,
and the cache with the switch on holds a subset of the other's entries, the same ones,
the rest being plain jobs' (a placement, no system-limit violation)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core import firstselect
from maui_py.core.records import DeferRecord
from maui_py.core.state import SchedulerState
from maui_py.model import ClusterSnapshot, Job, JobState, Start
from maui_py.planning.api import NoPlacement

from .on_off import cycle_with
from .queue_steps import edit_queue, queue_of
from .test_first_select import SETTINGS, _job, _selection, scenarios

STATE_MAPS = ("deferred", "batch_holds", "bypass", "queue_time", "pending")


def _memo_checked(on: SchedulerState, off: SchedulerState, step: str) -> None:
    """on's compiled entries are off's; every entry off has and on lacks is a plain job's."""
    have, want = on.caches.compiled, off.caches.compiled
    for jid, e in have.items():
        w = want.get(jid)
        assert w is not None and (e[0], e[2], e[4]) == (w[0], w[2], w[4]), f"{step}: {jid}"
    for jid in want.keys() - have.keys():
        _job_, _table, cr, _cfg, why = want[jid]
        assert not why and not isinstance(cr, NoPlacement), f"{step}: {jid} left out"


def _step(jobs: dict, states: tuple, k: int, kind: str, pick: int, now: int) -> None:
    """Apply test_first_select's step `kind` to the jobs and to both states."""
    _queued, _running, one = queue_of(jobs, pick)
    if kind in ("arrive", "huge"):
        for b in range(2 + pick % 5):
            jobs[f"j{k}.{b}"] = _job(f"j{k}.{b}", pick >> b, now, kind == "huge" and b == 0)
    elif edit_queue(jobs, kind, pick):
        pass
    elif kind == "defer" and one:
        for s in states:
            s.deferred[one] = DeferRecord(1, now + 60 * (pick % 3), "by the test")
    elif kind == "qtime" and one:
        for s in states:
            s.queue_time[one] = now - pick % 900
            s.bypass[one] = 1 + pick % 3
    elif kind == "setspri" and one:
        for s in states:
            s.system_priority[one] = 1 + pick % 50


@SETTINGS
@given(scenarios(), st.booleans())
def test_leaving_plain_jobs_out_of_the_memo_decides_the_same(sc, fresh_cfg):
    nodes, text, steps = sc
    jobs: dict[str, Job] = {}
    on, off = SchedulerState(), SchedulerState()
    now = 1000
    cfg = parse_config(text)
    for k, (kind, pick) in enumerate(steps):
        now += 30
        _step(jobs, (on, off), k, kind, pick, now)
        snap = ClusterSnapshot(now, nodes, tuple(jobs.values()))
        if fresh_cfg:
            cfg = parse_config(text)
        got = cycle_with(firstselect, "SKIP_PLAIN_MEMO", True, snap, cfg, on)
        want = cycle_with(firstselect, "SKIP_PLAIN_MEMO", False, snap, cfg, off)
        step = f"step {k} ({kind})"
        assert _selection(got.state) == _selection(want.state), step
        assert got.decisions == want.decisions, step
        assert got.order == want.order, step
        for name in STATE_MAPS:
            assert getattr(got.state, name) == getattr(want.state, name), f"{step}: {name}"
        _memo_checked(got.state, want.state, step)
        on, off = got.state, want.state
        for d in got.decisions:
            if isinstance(d, Start):
                jobs[d.job_id] = replace(jobs[d.job_id], state=JobState.RUNNING, start_time=now,
                                         allocation=d.allocation)
