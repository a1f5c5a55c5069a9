"""The forecast: K replays forward from a moment, through the same cycle as the simulator.

From a scheduler state and the jobs in the system at `now` (running ones with their start
and allocation, queued ones), each replay draws a runtime for every job (runtimes.py:
running jobs conditioned on what they have run; apart, or together by user or for all:
DRAWS), copies the state's plain data (not its caches: the first cycle rebuilds them, as
after a restart from the store) and runs sim.engine.Simulation from there
(SimOptions.present), with no arrivals unless asked (arrivals.py), until every target
job (by default every queued one) has started or the horizon has passed. Per target: the
p10 / p50 / p90 of its K starts (nearest rank, integer seconds; a replay in which it had not
started by the horizon counts as the horizon's end and is counted in `late`), beside the
plan's point estimate the caller's `plan` gives (what showstart answers). Cost: K replays,
each O(events until the targets start) cycles; K and the horizon are bounded.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields
from typing import Callable, Collection, Mapping, Sequence

from ..cfg import SchedulerConfig
from ..core.state import SchedulerState
from ..model import Job, Node
from ..predict.predictors import History
from ..sim.engine import SimOptions, Simulation
from ..sim.swf import SimJob
from .arrivals import draw_arrivals
from .runtimes import WINDOW, draw_recent, draw_similar, ratios, same_request, spans
from .shortcuts import ON, Shortcuts, deep_copy, quiet_replay

MAX_SAMPLES = 1000
MAX_HORIZON = 366 * 86400


@dataclass(frozen=True, slots=True)
class Moment:
    """The system at `now`: the nodes and every job in it (running: active, with start and
    allocation; queued)."""

    now: int
    nodes: tuple[Node, ...]
    jobs: tuple[Job, ...]


@dataclass(frozen=True, slots=True)
class Forecast:
    """One job's forecast start (epoch seconds): its range, how many replays made it, in how
    many it had not started by the horizon, and the plan's point estimate (None: unknown)."""

    job_id: str
    p10: int
    p50: int
    p90: int
    samples: int
    late: int = 0
    plan: int | None = None


@dataclass(frozen=True, slots=True)
class ForecastOptions:
    samples: int = 20
    """K, the replays (at most MAX_SAMPLES)."""
    window: int = WINDOW
    """The user's last completed jobs a runtime draw looks at."""
    horizon: int = 30 * 86400
    """How far past `now` a replay runs at most (seconds, at most MAX_HORIZON)."""
    seed: int = 0
    poll_interval: int = 0
    per_event: bool = False
    arrivals: int = 0
    """Seconds of recent arrivals the replays draw theirs from (arrivals.py); 0: none."""
    draw: str = "similar"
    """How runtimes are drawn together or apart (DRAWS): each job apart, leaning toward its
    user's last jobs of the same request, by default: with the range calibrated
    (calibrate.py) its p50 was the closest on KTH, CTC and SDSC (docs/simulator.md, "Start
    forecasts"); "recent" leans toward the user's last jobs whatever their request, "job"
    is the same without the lean; "all" gives the widest raw range."""

    def bounded(self) -> ForecastOptions:
        return ForecastOptions(max(1, min(int(self.samples), MAX_SAMPLES)), self.window,
                               max(1, min(int(self.horizon), MAX_HORIZON)), self.seed,
                               self.poll_interval, self.per_event,
                               max(0, min(int(self.arrivals), MAX_HORIZON)),
                               self.draw if self.draw in DRAWS else "similar")


def quantile(values: Sequence[int], p: float) -> int:
    """The nearest-rank p-quantile (0 < p <= 1) of non-empty `values`. O(n log n)."""
    s = sorted(values)
    k = max(1, -(-int(round(p * 1000)) * len(s) // 1000))     # ceil(p n), exact for p in 0.001s
    return s[min(k, len(s)) - 1]


class _SavedPolicy:
    """A queue policy's dump(), which the replay's first cycle restores (core.cycle._engine)."""

    def __init__(self, data: dict):
        self.data = data

    def dump(self) -> dict:
        return self.data


def plain_copy(state: SchedulerState, fast: bool = True) -> SchedulerState:
    """The state's plain data, copied deeply, with empty caches and the queue policy as its
    dump: what a replay may change without touching `state`. `fast`: by shortcuts.deep_copy
    (Shortcuts.copy: the same copy, cheaper). O(size of the state)."""
    data = {f.name: getattr(state, f.name) for f in fields(state) if f.name not in ("caches", "queue_policy")}
    out = SchedulerState(**deep_copy(data, fast))
    if state.queue_policy is not None:
        out.queue_policy = _SavedPolicy(deep_copy(state.queue_policy.dump(), fast))
    return out


Choice = tuple[Job, tuple[int, ...], tuple[int, ...], int, tuple[int, ...]]
"""A job, the runtimes it may draw (runtimes.spans), its user's ratios as runtimes of its
request (in ratio order, unfiltered; () with no history), what it has run, and the runtimes
of its user's jobs that asked the same request (runtimes.same_request, oldest first)."""


def choices(moment: Moment, history: History | Mapping, window: int, memo: bool = True) -> list[Choice]:
    """Every job of the moment, in job id order, with what it may draw. `memo`
    (shortcuts.Shortcuts.menu): a job's runtimes are worked out once per (user, request)
    and its spans once per (user, request, run so far), and shared: equal to those made job
    by job (both are pure functions of these). O(jobs x window); with `memo`, O(jobs +
    distinct keys x window)."""
    out = []
    by_user: dict[str, tuple[float, ...]] = {}
    runs: dict[tuple[str, int], tuple[tuple[int, ...], tuple[int, ...]]] = {}
    spanned: dict[tuple[str, int, int], tuple[int, ...]] = {}
    for job in sorted(moment.jobs, key=lambda j: j.id):
        elapsed = moment.now - job.start_time if job.state.active and job.start_time is not None else 0
        if job.user not in by_user:
            by_user[job.user] = ratios(history, job.user, window)
        own = by_user[job.user]
        wc = job.wallclock
        mine = runs.get((job.user, wc)) if memo else None
        if mine is None:
            mine = (tuple(min(wc, max(1, round(x * wc))) for x in own),
                    same_request(history, job.user, wc))
            if memo:
                runs[(job.user, wc)] = mine
        c = spanned.get((job.user, wc, elapsed)) if memo else None
        if c is None:
            c = spans(own, wc, elapsed)
            if memo:
                spanned[(job.user, wc, elapsed)] = c
        out.append((job, c, mine[0], elapsed, mine[1]))
    return out


DRAWS = ("similar", "recent", "job", "user", "all")
"""How a replay's runtimes are drawn: each job on its own, leaning toward its user's last
jobs of the same request (runtimes.draw_similar); each job on its own, leaning toward its
user's last jobs (runtimes.draw_recent); each job on its own, uniformly; one ratio per user for all the
user's jobs (a user's queued jobs are often alike: an error in one is an error in all); or
one quantile per replay for every job, each taking that quantile of its own choices (all
run long or all run short together: the widest range)."""


def draws(jobs: Sequence[Choice], rng: random.Random, how: str = "job") -> list[tuple[Job, int]]:
    """One runtime for each job, drawn uniformly among its choices as `how` (DRAWS) says;
    a running job that has run past its user's drawn ratio draws among its own choices.
    O(jobs x window) for "all", else O(jobs)."""
    out, picked = [], {}
    u = rng.random() if how == "all" else 0.0
    for job, c, own, elapsed, same in jobs:
        if how == "all":
            ranked = sorted(c)
            out.append((job, ranked[min(len(ranked) - 1, int(u * len(ranked)))]))
            continue
        if how == "similar":
            out.append((job, draw_similar(rng, c, own, same, elapsed)))
            continue
        if how == "recent":
            out.append((job, draw_recent(rng, c, own, elapsed)))
            continue
        if how == "user" and own:
            i = picked.get(job.user)
            if i is None:
                i = picked[job.user] = rng.randrange(len(own))
            if own[i] > elapsed:
                out.append((job, own[i]))
                continue
        out.append((job, c[rng.randrange(len(c))] if len(c) > 1 else c[0]))
    return out


class _AllStarted(Exception):
    """Raised from a replay's on_cycle once every target has started: the replay is done."""


def replay_once(moment: Moment, cfg: SchedulerConfig, state: SchedulerState,
                present: Sequence[tuple[Job, int]], targets: Collection[str],
                opt: ForecastOptions, arrivals: Sequence[SimJob] = ()) -> dict[str, int | None]:
    """One replay from the moment with the given runtimes (and arrivals): each target's
    start, None when it had not started by the horizon."""
    waiting = set(targets)
    starts: dict[str, int | None] = dict.fromkeys(targets)
    sim: Simulation

    def on_cycle(t: int, result) -> None:
        # a target starts only by a cycle's Start: O(starts) a cycle, not O(targets)
        records = sim.rm.records if sim.rm is not None else {}
        for d in result.starts():
            if d.job_id in waiting:
                rec = records.get(d.job_id)
                if rec is not None and rec.start is not None:
                    starts[d.job_id] = rec.start
                    waiting.discard(d.job_id)
        if not waiting:
            raise _AllStarted

    sim = Simulation(moment.nodes, arrivals, cfg, SimOptions(
        poll_interval=opt.poll_interval, per_event=opt.per_event, cycle_reserves=False,
        on_cycle=on_cycle, state=state, stop_time=moment.now + opt.horizon,
        present=present, present_at=moment.now))
    if waiting:
        try:
            sim.run()
        except _AllStarted:
            pass
        finally:
            _let_go(sim)
    return starts


def _let_go(sim: Simulation) -> None:
    """Break the references that make a finished replay's world a garbage cycle (on_cycle's
    closure holds the simulation, whose options hold on_cycle; the resource manager's clock
    holds the simulation, which holds the manager), so that reference counting frees it as
    it goes out of scope and the collector has nothing of it to walk (shortcuts.quiet_replay
    collects after each replay). Changes nothing a replay returns. O(1)."""
    sim.opt.on_cycle = None
    sim.rm = None


def forecast(moment: Moment, cfg: SchedulerConfig, state: SchedulerState,
             history: History | Mapping, options: ForecastOptions | None = None,
             targets: Collection[str] | None = None,
             plan: Callable[[Job], int | None] | None = None,
             recent: Sequence[Job] = (), menu: Sequence[Choice] | None = None,
             fast: Shortcuts = ON) -> dict[str, Forecast]:
    """The forecast of every target job (default: every queued job of the moment), from K
    replays (options.samples), with arrivals drawn from `recent` (the jobs submitted in the
    last options.arrivals seconds) when options.arrivals. `menu`: choices(moment, history,
    options.window) when the caller made it already (one per moment, not per call). `fast`:
    the shortcuts taken (shortcuts.py; the same forecasts with any). `state` is not
    changed. O(K x one replay)."""
    opt = (options or ForecastOptions()).bounded()
    fast = fast.bounded()
    queued = {j.id: j for j in moment.jobs if not j.state.active and not j.state.finished}
    wanted = sorted(queued if targets is None else (t for t in targets if t in queued))
    if not wanted:
        return {}
    base: SchedulerState | None = plain_copy(state, fast.copy)
    end = moment.now + opt.horizon
    seen: dict[str, list[int]] = {jid: [] for jid in wanted}
    late = dict.fromkeys(wanted, 0)
    if menu is None:
        menu = choices(moment, history, opt.window, fast.menu)
    for k in range(opt.samples):
        rng = random.Random(f"{opt.seed}:{moment.now}:{k}")
        present = draws(menu, rng, opt.draw)
        coming = draw_arrivals(rng, recent, moment.now, end, history, opt.window) if opt.arrivals else []
        with quiet_replay(fast.quiet):            # the replay's state is dropped inside it
            last = k + 1 == opt.samples
            run = base if last else deep_copy(base, fast.copy)
            if last:
                base = None
            starts = replay_once(moment, cfg, run, present, wanted, opt, coming)
            del run
        for jid, s in starts.items():
            if s is None:
                late[jid] += 1
            seen[jid].append(end if s is None else s)
    out = {}
    for jid in wanted:
        v = seen[jid]
        out[jid] = Forecast(jid, quantile(v, 0.1), quantile(v, 0.5), quantile(v, 0.9), len(v), late[jid],
                            plan(queued[jid]) if plan is not None else None)
    return out
