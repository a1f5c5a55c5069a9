"""What the on-against-off property tests of the cycle's switches share: one cycle with a
module's switch set (restored after) and its structures checked, and a scenario replayed
through both sides, their decisions, order and named maps compared at every step."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace
from typing import Callable, Iterable

from maui_py.cfg import parse_config
from maui_py.core.cycle import run_cycle
from maui_py.core.state import SchedulerState
from maui_py.model import ClusterSnapshot, Job, JobRequest, JobState, Resources, Start

from .queue_steps import edit_queue


@contextmanager
def spying(module, name: str):
    """module.<name> replaced, while the block runs, by a wrapper that records what each call
    returned (the list yielded): whether a shortcut's path ran at all."""
    real, calls = getattr(module, name), []

    def spy(*args):
        out = real(*args)
        calls.append(out)
        return out
    setattr(module, name, spy)
    try:
        yield calls
    finally:
        setattr(module, name, real)


def cycle_with(module, switch: str, value: bool, snap, cfg, state):
    """One cycle with module.<switch> = value; its planner (`_check()`) and fair-share
    tails (`check()`) checked after it."""
    old = getattr(module, switch)
    setattr(module, switch, value)
    try:
        out = run_cycle(snap, cfg, state, explain=False)
    finally:
        setattr(module, switch, old)
    table = out.state.caches.plan.table
    if table is not None:
        table._check()
    if out.state.caches.fs_tails is not None:
        out.state.caches.fs_tails.check()
    return out


def limited_arrivals(k: int, pick: int, now: int) -> dict[str, Job]:
    """One to three jobs of users u0-u2, groups g0/g1, some of QOS long: the arrivals of
    the limit tests (MAXJOB, MAXPROC, QOS overrides bind on them)."""
    out = {}
    for b in range(1 + pick % 3):
        jid = f"j{k}_{b}"
        out[jid] = Job(jid, f"u{(pick >> b) % 3}",
                       JobRequest(tasks=1 + (pick >> b) % 3, per_task=Resources(1, 100)),
                       60 + pick % 900, now, group="g1" if pick % 3 == 0 else "g0",
                       qos="long" if pick % 4 == 0 else "")
    return out


def replay_on_off(module, switch: str, scenario, arrivals: Callable[[int, int, int], dict[str, Job]],
                  gap: int = 30, maps: Iterable[str] = (), priorities: bool = False) -> None:
    """Replay (nodes, config text, steps) with the switch on and off side by side: every
    step's decisions, order (and priorities, and the state's `maps`) equal; starts run."""
    nodes, text, steps = scenario
    cfg = parse_config(text)
    jobs: dict[str, Job] = {}
    on, off = SchedulerState(), SchedulerState()
    now = 1000
    for k, (kind, pick) in enumerate(steps):
        now += gap
        if kind == "arrive":
            jobs.update(arrivals(k, pick, now))
        else:
            edit_queue(jobs, kind, pick)
        snap = ClusterSnapshot(now, nodes, tuple(jobs.values()))
        got = cycle_with(module, switch, True, snap, cfg, on)
        want = cycle_with(module, switch, False, snap, cfg, off)
        assert got.decisions == want.decisions, f"step {k} ({kind})"
        assert got.order == want.order, f"step {k} ({kind})"
        if priorities:
            assert got.priorities == want.priorities, f"step {k} ({kind})"
        for name in maps:
            assert getattr(got.state, name) == getattr(want.state, name), f"step {k}: {name}"
        on, off = got.state, want.state
        for d in got.decisions:
            if isinstance(d, Start):
                jobs[d.job_id] = replace(jobs[d.job_id], state=JobState.RUNNING, start_time=now,
                                         allocation=d.allocation)


def assert_same_cycles(fast, definition) -> None:
    """Two replays (cycles, starts, ...) decide alike: the starts equal, then each cycle in
    turn (the first that differs named by its time), then as many cycles on both sides."""
    assert fast[1] == definition[1]
    for a, b in zip(fast[0], definition[0]):
        assert a == b, f"cycle at {a[0]}"
    assert len(fast[0]) == len(definition[0])
