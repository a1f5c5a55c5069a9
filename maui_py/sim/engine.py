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
from contextlib import nullcontext
from dataclasses import dataclass
from operator import attrgetter
from typing import Callable, Sequence

from ..core import gcpause
from ..core.changes import arrivals_wait, ends_wait
from ..core.compat import compat_rules
from ..cfg import SchedulerConfig
from ..cfg.choices import ReservationPolicy
from ..core.cycle import run_cycle
from ..core.state import SchedulerState
from ..planning import owners
from ..planning.api import Ability, has
from ..predict.correctors import CorrectionPolicy, corrected_span, corrections_needed
from ..model import Defer, Job, Node, Reserve, Start
from .rm import ScheduleCheck, SimRecord, SimulatedRM
from .swf import SimJob

END, SUBMIT, WAKE = 0, 1, 2
_START = attrgetter("start")

WAKE_FROM_STATE = True
"""On the node table, when no on_cycle reads the cycles' Reserve decisions (cycle_reserves
off), run each cycle without them and wake at the kept reservations' starts read from the
state (Simulation._wake_at_kept): the same wake times, without a Reserve built and looked
at per reservation each cycle (issue 33). False: list them and wake at each, the
definition tests/property/test_sim_wakes.py compares against."""
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
    present: Sequence[tuple[Job, int]] = ()
    """Jobs already in the system when the replay starts, each with its runtime (a forecast
    replaying forward from a moment of another replay): a running one (active, with its
    start and allocation) holds its nodes until start + runtime, a queued one waits. The
    first cycle is at present_at."""
    present_at: int | None = None
    wake_at: Sequence[int] = ()
    """More times a cycle runs at (after present_at): a replay from a moment wakes where
    a defer its state carries ends, as mauid's next poll would, since no decision of
    the replay's own made that defer (advice/replay.py)."""
    collect_between: bool = False
    """Run Python's cyclic collector between cycles, as mauid does in its idle time before
    the next poll; False: paused through the whole replay (core/gcpause.py). A replay has
    no idle time and makes next to no cyclic garbage, and between cycles the collector
    walks the whole scheduler state again and again; the schedule is the same either way
    (tests/sim/test_collector.py)."""


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
        self.rm: SimulatedRM | None = None
        """The simulated resource manager of the run under way (set by run)."""

    def run(self) -> SimResult:
        t0 = _time.perf_counter()
        loop = _Replay(self)
        self.rm = loop.rm               # on_cycle callbacks may read the live jobs
        with nullcontext() if self.opt.collect_between else gcpause.paused():
            stalled = loop.replay()
        if self.opt.progress is not None:
            self.opt.progress(loop.nxt, loop.total, self.now)
        rm = loop.rm
        return SimResult(self.nodes, rm.records, rm.check, loop.cycles,
                         _time.perf_counter() - t0, self.config_name, loop.state,
                         rm.holds_seen, stalled)


def planned_by(state: SchedulerState, rec: SimRecord, t: int, correction: CorrectionPolicy) -> bool:
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


class _Turn:
    """Kept HIGHEST reservations going round under Maui's own re-make (core/compat
    .MAUI33_HIGHEST, planning/maui33.py rules 4, 5): Maui re-makes them once an iteration,
    one a second in maui-sim, and a re-make can put one behind the others, so they can go
    on moving with nothing new. After a cycle at an event that leaves kept reservations
    (a new one can make the next walk move, with nothing moved in this one: Maui's round
    on kth-cons-highest began at 678507, the second after job 151 arrived) and while the
    last cycle moved one, the next cycle is the next second (a job starts the second its
    turn comes, as in Maui). Once their starts repeat with period p, the seconds before
    the next event t are left out: the kept reservations are put where the round had them
    (t - 1 - last) mod p seconds after `last`, where Maui's stand the second before t
    (at_before; their holds are dropped and the next cycle's walk holds them again there,
    as a table built afresh holds what is kept: policy/highest._hold_kept). A cycle at an
    event starts a new round; a round not found within 8 + 4R cycles (a guard) ends the
    seconds' cycles. O(R) a cycle for R kept reservations, O(R p) memory a round."""

    def __init__(self):
        self.last: int | None = None
        self.moving = False
        self.kept: dict[str, tuple] = {}
        self.seen: dict[frozenset, int] = {}
        self.history: dict[int, dict[str, tuple]] = {}
        self.period = self.anchor = 0

    def next_cycle(self, t: int) -> int:
        """When the next cycle runs, the next event being at t."""
        if not self.moving or self.last is None or self.last + 1 >= t:
            return t
        if not self.period:
            return self.last + 1
        return t

    def at_before(self, t: int) -> dict[str, tuple] | None:
        """Where the round has the kept reservations the second before the next event t,
        once its period is known and that second is not the last cycle's; else None."""
        if not self.moving or not self.period or self.last is None or self.last + 1 >= t:
            return None
        return self.history[self.anchor + (t - 1 - self.anchor) % self.period]

    def after(self, t: int, reservations: dict, turning: bool) -> None:
        """Note a cycle at t and the kept reservations it left (start and nodes: a round
        is found when both repeat); `turning`: a cycle that next_cycle brought, with
        nothing new since the last."""
        kept = {j: (kr.start, kr.allocation) for j, kr in reservations.items()}
        old = self.kept
        self.moving = kept != old if turning else bool(kept)     # an event: probe
        sig = frozenset(kept.items())
        if not (turning and self.moving):
            self.seen.clear()
            self.history.clear()
            self.period = 0
        elif not self.period and sig in self.seen:
            self.anchor = self.seen[sig]
            self.period = t - self.anchor
        elif not self.period and len(self.seen) > 8 + 4 * len(kept):
            self.moving = False             # a guard, not a rule: no round in sight
        self.seen[sig] = t
        self.history[t] = kept
        self.kept, self.last = kept, t

    def jumped(self, t: int, kept: dict[str, tuple]) -> None:
        """The kept reservations were put where the round has them at t (at_before)."""
        self.kept, self.last, self.moving = kept, t, True


class _Replay:
    """One replay's loop state and its steps: take the events at a time, add the arrivals,
    maybe leave the cycle out (leave_idle), run it, and turn its starts into end events and
    its deferrals (and, on the node table, reservations) into wake-ups. Simulation.run makes
    one per run; the steps are methods so that each is read, and tested, on its own."""

    def __init__(self, sim: Simulation):
        opt = self.opt = sim.opt
        self.sim, self.config, self.jobs = sim, sim.config, sim.jobs
        self.rm = SimulatedRM(sim.nodes, lambda: sim.now)
        self.records = self.rm.records
        self.heap: list[tuple[int, int, int, str]] = []
        self.wakes: set[int] = set()
        self.seq = 0
        self.state = opt.state if opt.state is not None else SchedulerState()
        self.submits = [sj.job.submit_time for sj in sim.jobs]
        self.nxt, self.total, self.cycles = 0, len(sim.jobs), 0
        self.interval = max(0, int(opt.poll_interval))
        self.next_tick = sim.now if self.interval else None
        self.active, self.progress = 0, sim.now
        self.correction = CorrectionPolicy(sim.config.get("PREDICTIONCORRECTION") or "REQUEST")
        self.per_event = opt.per_event and not self.interval
        self.pause = gcpause.paused()
        self.listed = opt.on_cycle is not None and opt.cycle_reserves
        self.leave = opt.leave_idle and not self.listed and not self.per_event and not self.interval
        self.ends: list[tuple[str, bool]] = []
        self.left_ended: list[str] = []     # what cycles left out saw (leave_idle)
        self.left_freed, self.left_least = 0, _INF
        self.turn = _Turn() if (compat_rules(sim.config).turns and not self.interval
                                and not self.per_event and sim.config.get("RESERVATIONPOLICY")
                                is ReservationPolicy.HIGHEST) else None
        for job, runtime in opt.present:
            self.rm.resume(job, runtime)
            if job.state.active and job.start_time is not None:
                self.started(self.records[job.id], job.id, job.start_time)
        if opt.present_at is not None:
            self.progress = opt.present_at
            self.wake(opt.present_at)
        for at in opt.wake_at:
            self.wake(at)

    def replay(self) -> dict[str, str] | None:
        """Every event time in order until the jobs and events run out (or stop_time);
        the stalled jobs' reasons if the replay gave up on them (SimOptions.stall_limit)."""
        stop_time, heap = self.opt.stop_time, self.heap
        while self.nxt < self.total or heap:
            t = self.submits[self.nxt] if self.nxt < self.total else heap[0][0]
            if heap and heap[0][0] < t:
                t = heap[0][0]
            if stop_time is not None and t > stop_time:
                break
            self.sim.now = t
            if self.turning(t):
                continue
            quiet, ended = self.take_events(t)
            if self.per_event:
                self.per_event_cycles(t)
            elif not self.arrive_and_cycle(t, quiet, ended):
                continue
            if self.interval and (self.nxt < self.total or self.rm.running() or self.rm.queued()):
                self.wake(self.next_tick)
            if not heap and self.nxt >= self.total:
                break
            if self.nxt >= self.total and not self.active and t - self.progress > self.opt.stall_limit:
                final = run_cycle(self.rm.snapshot(), self.config, self.state, explain=True)
                return {jid: r.reason for jid, r in sorted(final.reports.items())
                        if self.records[jid].start is None}
        return None

    def turning(self, t: int) -> bool:
        """Under MAUICOMPAT 3.3 with HIGHEST, the cycle of a second before the next event
        t while the kept reservations go round (_Turn); whether it ran."""
        if self.turn is None:
            return False
        s = self.turn.next_cycle(t)
        if s >= t:
            kept = self.turn.at_before(t)
            if kept is not None:
                self.put_kept(kept)
                self.turn.jumped(t - 1, kept)
            return False
        self.sim.now = s
        self.cycle(s, turning=True)
        return True

    def put_kept(self, kept: dict[str, tuple]) -> None:
        """Move the kept reservations to `kept` (job -> start, allocation), as the
        seconds' cycles left out would have: each one moved loses its hold, which the
        next cycle's walk makes again where it is kept (policy/highest._hold_kept)."""
        st = self.state
        table = st.caches.plan.table
        for jid, (start, allocation) in kept.items():
            kr = st.reservations.get(jid)
            if kr is None or (kr.start == start and kr.allocation == allocation):
                continue
            table.release(owners.priority(jid))
            kr.end += start - kr.start
            kr.start, kr.allocation = start, allocation

    def take_events(self, t: int) -> tuple[bool, int]:
        """Pop every event at t: ends free their jobs (per-event replays keep a job that
        ends late for per_event_cycles), wake-ups make the cycle at t run. Whether the
        cycle may still be left out, and how many jobs ended while it may."""
        if self.ends:
            self.ends = []
        quiet, ended, heap = self.leave, 0, self.heap
        while heap and heap[0][0] == t:
            _t, kind, _s, jid = heapq.heappop(heap)
            if kind == END:
                if self.per_event:
                    late = not planned_by(self.state, self.records[jid], t, self.correction)
                    self.ends.append((jid, late))
                    if late:
                        continue
                held = self.finish(jid, t)
                if quiet:       # what it held: all of a node held whole (exclusive)
                    self.left_ended.append(jid)
                    self.left_freed += held
                    ended += 1
            elif kind == WAKE:
                self.wakes.discard(t)
                quiet = False
        return quiet, ended

    def finish(self, jid: str, t: int) -> int:
        """End a job; the processors it held."""
        self.active -= 1
        self.progress = t
        return self.rm.finish(jid, t)

    def submit_next(self) -> None:
        sj = self.jobs[self.nxt]
        self.rm.submit(sj.job, sj.runtime)
        self.nxt += 1

    def per_event_cycles(self, t: int) -> None:
        """pyss's order: each submission, then each end (in start order), runs a pass; a
        job planned to end now is free from the first of them on."""
        ran = False
        while self.nxt < self.total and self.submits[self.nxt] == t:
            self.submit_next()
            self.cycle(t)
            ran = True
        for jid, late in self.ends:
            if late:
                self.finish(jid, t)
            if late or not ran:
                self.cycle(t)
                ran = True
        if not ran:
            self.cycle(t)

    def arrive_and_cycle(self, t: int, quiet: bool, ended: int) -> bool:
        """Submit the arrivals at t and run the cycle, unless it is left out (leave_idle)
        or falls between poll ticks; whether it ran."""
        first = self.nxt
        while self.nxt < self.total and self.submits[self.nxt] == t:
            self.submit_next()
        if quiet and (self.turn is None or not self.turn.moving) and self.left_out(t, first, ended):
            return False
        if self.interval:
            if t < self.next_tick:
                return False
            self.next_tick = t + self.interval - ((t - self.next_tick) % self.interval)
        self.cycle(t)
        return True

    def left_out(self, t: int, first: int, ended: int) -> bool:
        """Would the cycle at t decide nothing the next one would not (only ends, or only
        arrivals since the last cycle: core.changes.ends_wait, arrivals_wait)? If so it is
        left out, and what it saw is kept for the next such question."""
        if ended:
            return first == self.nxt and ends_wait(self.state, self.left_ended, self.left_freed,
                                                   self.left_least, t)
        if self.left_ended:
            return False
        new = [sj.job for sj in self.jobs[first:self.nxt]]
        if not arrivals_wait(self.state, new, t):
            return False
        for job in new:
            if job.procs < self.left_least:
                self.left_least = job.procs
        return True

    def cycle(self, t: int, turning: bool = False) -> None:
        """One scheduling cycle at t; its starts become end events. `turning`: brought by
        the kept reservations going round (_Turn), nothing new since the last."""
        if self.left_least != _INF or self.left_ended:
            self.left_ended.clear()
            self.left_freed, self.left_least = 0, _INF
        state, opt = self.state, self.opt
        counts = state is not None and has(state.caches.plan.table, Ability.COUNTS)
        kept = WAKE_FROM_STATE and not self.listed and state is not None and not counts
        with self.pause:                    # collected between cycles, as mauid does
            result = run_cycle(self.rm.snapshot(), self.config, state, explain=opt.explain,
                               reserves=not kept and (self.listed or not counts))
        self.state = state = result.state
        self.cycles += 1
        if opt.check_table:
            state.caches.plan.table.check()
        acts = result.actions()
        failures = self.rm.apply(acts)
        if failures:
            state.note_failures(failures)
        self.follow(result.decisions, acts, t, kept)
        if self.turn is not None:
            self.turn.after(t, state.reservations, turning)
        if opt.on_cycle is not None:
            opt.on_cycle(t, result)
        if opt.progress is not None and self.cycles % 2000 == 0:
            opt.progress(self.nxt, self.total, t)

    def follow(self, decisions: Sequence[object], acts: Sequence[object], t: int,
               kept: bool = False) -> None:
        """A cycle's starts at t become end events; its deferrals, and on the node table its
        reservations, wake-ups (the count planner's reservations start at ends, see above).
        `kept`: the cycle listed no Reserve decisions and the wakes at its reservations are
        read from the state (WAKE_FROM_STATE)."""
        wake_at_reservations = not has(self.state.caches.plan.table, Ability.COUNTS)
        records = self.records
        for d in decisions if wake_at_reservations else acts:
            if isinstance(d, Start):
                rec = records[d.job_id]
                if rec.start == t:
                    self.started(rec, d.job_id, t)
            elif isinstance(d, Defer) or (isinstance(d, Reserve) and wake_at_reservations):
                at = d.until if isinstance(d, Defer) else d.start
                if at > t:
                    self.wake(at)
        if wake_at_reservations and kept:
            self._wake_at_kept(t)

    def _wake_at_kept(self, t: int) -> None:
        """A wake at each kept reservation's start after t not already one: the times the
        cycle's Reserve tail would name (one per reservation held, its start), found in C
        from the state instead of a decision built per reservation each cycle. The Reserve
        tail ends the decisions, so these wakes come after the cycle's starts and defers as
        they did; wakes pending are at distinct times, so the order among them moves no
        event (the heap orders by time, kind, then sequence). O(R) in C, plus O(new)."""
        new = set(map(_START, self.state.reservations.values()))
        new.difference_update(self.wakes)
        for at in sorted(new):
            if at > t:
                self.wake(at)

    def started(self, rec: SimRecord, jid: str, t: int) -> None:
        """A job started at t: its end (at its limit if it runs longer) is an event, and
        its prediction, if any, is kept on its record."""
        self.active += 1
        self.progress = t
        run = min(rec.runtime, rec.job.wallclock)
        rec.killed = rec.runtime > rec.job.wallclock
        self.seq += 1
        heapq.heappush(self.heap, (t + max(run, 0), END, self.seq, jid))
        predictions = self.state.predictions
        if predictions:
            p = predictions.get(jid)
            if p is not None:
                rec.estimate = p.estimate
                rec.corrections = corrections_needed(self.correction, p.estimate,
                                                     rec.job.wallclock, run)

    def wake(self, at: int) -> None:
        if at not in self.wakes:
            self.wakes.add(at)
            self.seq += 1
            heapq.heappush(self.heap, (at, WAKE, self.seq, ""))
