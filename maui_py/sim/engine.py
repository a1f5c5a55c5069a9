"""The replay loop: a virtual clock, the simulated resource manager, and run_cycle.

At each event time the loop applies every job end, then every arrival, then runs one
scheduling cycle (the same run_cycle the daemon runs) and hands its decisions to the
simulated resource manager. Events at one time are ordered (time, kind, sequence): ends
before arrivals before wake-ups, then by submission order, so a replay is reproducible.
With a poll interval (RMPOLLINTERVAL style) cycles run only on the interval's ticks.
Cost: O(E log E) for E events plus one cycle per distinct event time, except where jobs only
arrived or only ended and the cycle's cache shows it would decide nothing
(SimOptions.leave_idle): the next cycle takes those changes with its own.

With runtime prediction (PREDICTIONPOLICY) a running job's planned end can come before its
real end. No cycle runs there, as in the simulator behind the published EASY++ figures: the
next event's cycle finds the plan run out and corrects it (policy/prediction.py), to the end
the corrections in between would have reached.

A reservation's start is a wake-up only on the node table. Under the count planner
(planning/counts.py: only job reservations) a reservation starts where running jobs or
earlier reservations end, as planned; a job ends at its limit at the latest, and that end is
an event of its own, so a wake-up there would find nothing new.
"""

from __future__ import annotations

import heapq
import time as _time
from dataclasses import dataclass
from typing import Callable, Sequence

from ..core import gcpause
from ..core.changes import arrivals_wait, ends_wait
from ..cfg import SchedulerConfig
from ..core.cycle import run_cycle
from ..core.state import SchedulerState
from ..planning.api import Ability, has
from ..predict.correctors import CorrectionPolicy, corrected_span, corrections_needed
from ..model import Defer, Node, Reserve, Start
from .rm import ScheduleCheck, SimRecord, SimulatedRM
from .swf import SimJob

END, SUBMIT, WAKE = 0, 1, 2
_INF = float("inf")


@dataclass
class SimResult:
    nodes: tuple[Node, ...]
    records: dict[str, SimRecord]
    check: ScheduleCheck
    cycles: int
    wall_seconds: float
    config_name: str = ""
    state: SchedulerState | None = None
    holds: int = 0
    stalled: dict[str, str] | None = None
    """Jobs still queued when the replay gave up on them (see SimOptions.stall_limit),
    with the reason the last cycle gave."""

    @property
    def unfinished(self) -> list[SimRecord]:
        return [r for r in self.records.values() if r.end is None]


@dataclass
class SimOptions:
    poll_interval: int = 0
    explain: bool = False
    check_table: bool = False
    progress: Callable[[int, int, int], None] | None = None
    on_cycle: Callable[[int, object], None] | None = None
    cycle_reserves: bool = True
    """Whether the cycle results on_cycle is given list a Reserve decision per priority
    reservation (the replay itself reads them only on the node table, and listing them
    walks every reservation each cycle): a progress display turns it off."""
    leave_idle: bool = True
    """Leave out the cycle at a time where jobs only arrived, or only ended, and
    core.changes.arrivals_wait or ends_wait shows it would start nothing and change
    nothing the next cycle would not make the same (no new job fits now, and any
    reservation it would make the next cycle makes in the same place; or fewer processors
    free than any queued job asks): the next cycle takes those changes with its own and
    decides the same. Not with an on_cycle that lists reservations (it sees every cycle),
    per-event replays or a poll interval."""
    stop_time: int | None = None
    per_event: bool = False
    """A cycle after each submission and each job end (submissions first at one time, a job
    planned to end then counted free before them), as event-driven simulators such as pyss
    do; by default one cycle per time sees every change, as Maui's iteration does."""
    state: SchedulerState | None = None
    """The state to start from (e.g. users' runtime history for predictions); a fresh one
    when None. The replay updates it in place."""
    stall_limit: int = 30 * 86400
    """End the replay once every job has arrived, none runs and none has started for this
    long (simulated seconds): what still waits then never runs (a reservation it may not
    use recurs every day, say), and a replay must end."""


class Simulation:
    """Replay `jobs` on `nodes` under `config`."""

    def __init__(self, nodes: Sequence[Node], jobs: Sequence[SimJob], config: SchedulerConfig,
                 options: SimOptions | None = None, config_name: str = ""):
        self.nodes = tuple(nodes)
        self.jobs = sorted(jobs, key=lambda s: (s.job.submit_time, s.job.id))
        self.config = config
        self.opt = options or SimOptions()
        self.config_name = config_name
        self.now = self.jobs[0].job.submit_time if self.jobs else 0

    def run(self) -> SimResult:
        t0 = _time.perf_counter()
        opt = self.opt
        rm = SimulatedRM(self.nodes, lambda: self.now)
        heap: list[tuple[int, int, int, str]] = []
        wakes: set[int] = set()
        seq = 0
        state = opt.state if opt.state is not None else SchedulerState()
        jobs = self.jobs
        nxt = 0
        total = len(jobs)
        cycles = 0
        interval = max(0, int(opt.poll_interval))
        next_tick = self.now if interval else None
        active = 0
        progress = self.now
        stalled = None
        correction = CorrectionPolicy(self.config.get("PREDICTIONCORRECTION") or "REQUEST")
        per_event = opt.per_event and not interval

        pause = gcpause.paused()
        listed = opt.on_cycle is not None and opt.cycle_reserves
        config, explain, check_table = self.config, opt.explain, opt.check_table
        snapshot, apply, records = rm.snapshot, rm.apply, rm.records
        push = heapq.heappush

        left_ended: list[str] = []          # what cycles left out saw (leave_idle)
        left_freed, left_least = 0, _INF

        def cycle(t: int) -> None:
            """One scheduling cycle at t; its starts become end events."""
            nonlocal state, cycles, active, progress, seq, left_freed, left_least
            if left_least != _INF or left_ended:
                left_ended.clear()
                left_freed, left_least = 0, _INF
            with pause:                     # collected between cycles, as mauid does
                result = run_cycle(snapshot(), config, state, explain=explain,
                                   reserves=listed or state is None
                                   or not has(state.caches.plan.table, Ability.COUNTS))
            state = result.state
            cycles += 1
            if check_table:
                state.caches.plan.table.check()
            acts = result.actions()
            failures = apply(acts)
            if failures:
                state.note_failures(failures)
            wake_at_reservations = not has(state.caches.plan.table, Ability.COUNTS)
            predictions = state.predictions
            for d in result.decisions if wake_at_reservations else acts:
                if isinstance(d, Start):
                    rec = records[d.job_id]
                    if rec.start == t:
                        active += 1
                        progress = t
                        run = min(rec.runtime, rec.job.wallclock)
                        rec.killed = rec.runtime > rec.job.wallclock
                        seq += 1
                        push(heap, (t + max(run, 0), END, seq, d.job_id))
                        if predictions:
                            p = predictions.get(d.job_id)
                            if p is not None:
                                rec.estimate = p.estimate
                                rec.corrections = corrections_needed(
                                    correction, p.estimate, rec.job.wallclock, run)
                elif isinstance(d, Defer) or (isinstance(d, Reserve) and wake_at_reservations):
                    at = d.until if isinstance(d, Defer) else d.start
                    if at > t and at not in wakes:
                        wakes.add(at)
                        seq += 1
                        heapq.heappush(heap, (at, WAKE, seq, ""))
            if opt.on_cycle is not None:
                opt.on_cycle(t, result)
            if opt.progress is not None and cycles % 2000 == 0:
                opt.progress(nxt, total, t)

        submits = [sj.job.submit_time for sj in jobs]
        stop_time, stall_limit = opt.stop_time, opt.stall_limit
        finish, submit, pop = rm.finish, rm.submit, heapq.heappop
        ends: list[tuple[str, bool]] = []
        leave = opt.leave_idle and not listed and not per_event and not interval
        while nxt < total or heap:
            t = submits[nxt] if nxt < total else heap[0][0]
            if heap and heap[0][0] < t:
                t = heap[0][0]
            if stop_time is not None and t > stop_time:
                break
            self.now = t
            if ends:
                ends = []
            quiet = leave
            ended = 0
            while heap and heap[0][0] == t:
                _t, kind, _s, jid = pop(heap)
                if kind == END:
                    if per_event:
                        late = not self._planned_by(state, rm.records[jid], t, correction)
                        ends.append((jid, late))
                        if late:
                            continue
                    if quiet:
                        left_ended.append(jid)
                        left_freed += records[jid].job.procs
                        ended += 1
                    finish(jid, t)
                    active -= 1
                    progress = t
                elif kind == WAKE:
                    wakes.discard(t)
                    quiet = False
            if per_event:
                # pyss's order: each submission, then each end (in start order), runs a
                # pass; a job planned to end now is free from the first of them on
                ran = False
                while nxt < total and submits[nxt] == t:
                    sj = jobs[nxt]
                    submit(sj.job, sj.runtime)
                    nxt += 1
                    cycle(t)
                    ran = True
                for jid, late in ends:
                    if late:
                        finish(jid, t)
                        active -= 1
                        progress = t
                    if late or not ran:
                        cycle(t)
                        ran = True
                if not ran:
                    cycle(t)
            else:
                first = nxt
                while nxt < total and submits[nxt] == t:
                    sj = jobs[nxt]
                    submit(sj.job, sj.runtime)
                    nxt += 1
                if quiet:
                    if ended:
                        if first == nxt and ends_wait(state, left_ended, left_freed,
                                                      left_least, t):
                            continue
                    elif not left_ended:
                        new = [sj.job for sj in jobs[first:nxt]]
                        if arrivals_wait(state, new, t):
                            for job in new:
                                if job.procs < left_least:
                                    left_least = job.procs
                            continue
                if interval:
                    if t < next_tick:
                        continue
                    next_tick = t + interval - ((t - next_tick) % interval)
                cycle(t)
            if interval and (nxt < total or rm.running() or rm.queued()):
                if next_tick not in wakes:
                    wakes.add(next_tick)
                    seq += 1
                    heapq.heappush(heap, (next_tick, WAKE, seq, ""))
            if not heap and nxt >= total:
                break
            if nxt >= total and not active and t - progress > stall_limit:
                final = run_cycle(rm.snapshot(), self.config, state, explain=True)
                stalled = {jid: r.reason for jid, r in sorted(final.reports.items())
                           if rm.records[jid].start is None}
                break
        if opt.progress is not None:
            opt.progress(nxt, total, self.now)
        return SimResult(self.nodes, rm.records, rm.check, cycles, _time.perf_counter() - t0,
                         self.config_name, state, rm.holds_seen, stalled)

    @staticmethod
    def _planned_by(state: SchedulerState, rec: SimRecord, t: int, correction: CorrectionPolicy) -> bool:
        """Was the job, ending at t, planned to end by t (its prediction, corrected as of the
        second before, or its limit)? Per-event replays free such a job before the
        submissions at t, as event-driven simulators (pyss) count it free then. O(1)."""
        held = state.caches.plan.running.get(rec.job.id)
        start = rec.start if rec.start is not None else t
        p = state.predictions.get(rec.job.id)
        if p is not None:
            span = corrected_span(correction, p.estimate, rec.job.wallclock, t - start - 1)
        else:
            span = held[1] if held is not None else rec.job.wallclock
        return start + span <= t
