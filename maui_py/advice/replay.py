"""The one exact question the advice asks: when does a job start in a replay from a moment?

A Situation is a moment (now, the nodes, every job in the system: running ones with their
start and allocation, queued ones) with the configuration and the scheduler state the cycle
at `now` left. `start_of` re-submits one job, changed (walltime, size, QOS, class), in place
of the moment's job of that id (same id and submit time: as `scontrol update` or `qalter`
changes a queued job), and replays forward from `now` through the simulator, whose cycle is
the scheduler's own (sim/engine.Simulation over core.cycle.run_cycle), from a copy of the
state's plain data (forecast.engine.plain_copy: its caches are rebuilt by the first cycle,
as after a restart from the store). Every job runs to its limit and nothing arrives: the
premise of a plan, and of every promise the advice makes (a running job already past its
limit ends a second after now). The replay stops once the job
has started or at `until`, whichever comes first, so a start-now question costs one cycle.

Cost of one question: a copy of the state, O(state), plus the cycles of the replay up to
min(start, until), at most MAX_CYCLES: one full cycle with cold caches for a start-now
question.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace

from ..cfg import SchedulerConfig
from ..core.state import SchedulerState
from ..forecast.engine import Moment, plain_copy
from ..model import Job
from ..sim.engine import SimOptions, Simulation


class _Started(Exception):
    """Raised from the replay's on_cycle once the job has started: the question is answered."""


@dataclass
class Situation:
    """A moment, its configuration and the state its cycle left (never changed here);
    `questions` counts the replays asked and `cycles` the cycles they ran."""

    moment: Moment
    cfg: SchedulerConfig
    state: SchedulerState
    questions: int = 0
    cycles: int = 0
    _base: SchedulerState | None = field(default=None, repr=False)

    @property
    def now(self) -> int:
        return self.moment.now

    def job(self, job_id: str) -> Job | None:
        for j in self.moment.jobs:
            if j.id == job_id:
                return j
        return None

    def defers_end(self) -> tuple[int, ...]:
        """When the defers the state carries end (after now): the replay runs a cycle
        there, as mauid's next poll would."""
        return tuple(sorted({r.until for r in self.state.deferred.values() if r.until > self.now}))

    def base(self) -> SchedulerState:
        if self._base is None:
            self._base = plain_copy(self.state)
        return self._base


MAX_CYCLES = 2000
"""Cycles one replay may run: a question still open after them is undecided (Answer.cut),
and the advice makes no claim that rests on it (a job that never starts would otherwise
replay every end up to the horizon)."""


class Undecided(Exception):
    """A question whose replay ran out of cycles (MAX_CYCLES) before it was answered."""


@dataclass
class Answer:
    """A replay's answer: the job's start (None: not by `until`), whether the replay was
    cut at MAX_CYCLES before `until` (then None means unknown), and, when asked for, the
    first cycle's result (its report on the job, the state and planner it left)."""

    start: int | None
    first: object = None
    cut: bool = False

    def by(self) -> bool:
        """Whether the job started by `until`; Undecided when the replay was cut."""
        if self.start is None and self.cut:
            raise Undecided
        return self.start is not None


def _to_limit(job: Job, now: int) -> tuple[Job, int]:
    """A job of the moment and its runtime in the replay: its limit; a running job already
    past its limit (not killed yet) is taken to end a second after now, so that no event of
    the replay falls before the moment."""
    if job.state.active and job.start_time is not None and job.start_time + job.wallclock <= now:
        job = replace(job, wallclock=now + 1 - job.start_time)
    return job, job.wallclock


def start_of(sit: Situation, job: Job, until: int, keep_first: bool = False) -> Answer:
    """The start of `job` (the moment's job of its id replaced by it) in a replay from the
    moment, every job running to its limit, nothing arriving, stopped at `until` (>= now).
    `keep_first`: keep the first cycle's result, run with its reports (explain)."""
    present = [(job, job.wallclock) if j.id == job.id else _to_limit(j, sit.now) for j in sit.moment.jobs]
    if all(j.id != job.id for j in sit.moment.jobs):
        present.append((job, job.wallclock))
    got = Answer(None)
    sim: Simulation

    ran = [0]

    def on_cycle(_t: int, result) -> None:
        sit.cycles += 1
        ran[0] += 1
        if keep_first and got.first is None:
            got.first = result
        rec = sim.rm.records.get(job.id) if sim.rm is not None else None
        if rec is not None and rec.start is not None:
            got.start = rec.start
            raise _Started
        if ran[0] >= MAX_CYCLES:
            got.cut = True
            raise _Started

    sit.questions += 1
    sim = Simulation(sit.moment.nodes, (), sit.cfg, SimOptions(
        explain=keep_first, cycle_reserves=False, on_cycle=on_cycle,
        state=copy.deepcopy(sit.base()), stop_time=max(until, sit.now),
        present=present, present_at=sit.now, wake_at=sit.defers_end()))
    try:
        sim.run()
    except _Started:
        pass
    return got
