"""maui-sim --forecast: each job forecast at its submission, from the simulated state of
that moment.

Driven by the replay's on_cycle: after each cycle, the jobs the replay had not seen before
and that still wait are forecast together (one batch of K replays: engine.forecast), from
the live jobs, the cycle's state and the history of the jobs that ended before (learned
here with predict.learn, the function and shape PREDICTIONPOLICY's histories use, `window`
pairs a user, or runtimes.SAME_WINDOW when more: the "similar" draw looks that far back
for jobs of the same request; the ratios still read the last `window`). A job the cycle started at once needs no forecast. The replay must run a
cycle at every arrival (SimOptions.leave_idle off); with a poll interval, a job is
forecast at the first cycle that sees it. Unless `calibration` is None, each forecast is
moved by how the forecasts of the jobs that started before it turned out (calibrate.py);
`raw` keeps the replays' own. Cost per cycle: O(live jobs + forecast jobs still waiting),
plus the batch.
"""

from __future__ import annotations

import bisect
from typing import Callable

from ..cfg import SchedulerConfig
from ..model import Job
from ..predict.predictors import History, learn
from ..sim.engine import Simulation
from .accuracy import Accuracy, accuracy
from .calibrate import Calibration
from .engine import Forecast, ForecastOptions, Moment, forecast
from .runtimes import SAME_WINDOW

PlanMaker = Callable[[Moment, object], Callable[[Job], int | None]]
"""(moment, the cycle's result) -> job -> the plan's point estimate of its start."""


class SimForecaster:
    """Forecasts made during one replay: job id -> (when, Forecast)."""

    def __init__(self, cfg: SchedulerConfig, options: ForecastOptions | None = None,
                 plan_maker: PlanMaker | None = None,
                 then: Callable[[int, object], None] | None = None,
                 calibration: Calibration | None = None):
        self.cfg = cfg
        self.calibration = calibration
        self.opt = (options or ForecastOptions()).bounded()
        self.plan_maker, self.then = plan_maker, then
        self.depth = max(self.opt.window, SAME_WINDOW)
        """Pairs a user the history keeps: the ratios' window, and same_request's."""
        self.sim: Simulation | None = None
        self.history: History = {}
        self.running: set[str] = set()
        self.seen: set[str] = set()
        self.forecasts: dict[str, tuple[int, Forecast]] = {}
        self.raw: dict[str, tuple[int, Forecast]] = {}
        self.waiting: set[str] = set()
        """Forecast jobs not yet started (calibration: each is added once it starts)."""
        self.batches = 0

    def attach(self, sim: Simulation) -> SimForecaster:
        """Forecast during `sim`'s run (its options' on_cycle must be self.on_cycle)."""
        self.sim = sim
        return self

    def on_cycle(self, t: int, result) -> None:
        if self.sim is not None and self.sim.rm is not None:
            live = self.sim.rm.live()
            self._learn(live)
            if self.calibration is not None and self.waiting:
                self._calibrate(t)
            new = []
            for job in live:
                if job.id not in self.seen:
                    self.seen.add(job.id)
                    if not job.state.active:
                        new.append(job.id)
            if new:
                self._batch(Moment(t, self.sim.nodes, live), result, new)
        if self.then is not None:
            self.then(t, result)

    def _learn(self, live: tuple[Job, ...]) -> None:
        """Learn the runtimes of the jobs that ended since the last cycle, in (end, id)
        order, and note the ones running now."""
        assert self.sim is not None and self.sim.rm is not None
        records = self.sim.rm.records
        ids = {j.id for j in live}
        gone = sorted((records[j].end or 0, j) for j in self.running if j not in ids)
        for _end, jid in gone:
            rec = records[jid]
            self.running.discard(jid)
            if rec.start is not None and rec.end is not None:
                learn(self.history, rec.job.user, rec.end - rec.start, rec.job.wallclock, self.depth)
        for j in live:
            if j.state.active:
                self.running.add(j.id)

    def _calibrate(self, t: int) -> None:
        """Add to the calibration the forecast jobs that have started by t, in (start,
        id) order."""
        assert self.sim is not None and self.sim.rm is not None and self.calibration is not None
        records = self.sim.rm.records
        started = sorted((s, jid) for jid in self.waiting
                         if (s := records[jid].start) is not None and s <= t)
        for s, jid in started:
            self.waiting.discard(jid)
            at, f = self.raw[jid]
            self.calibration.add(at, f, s)

    def _recent(self, now: int) -> list[Job]:
        """The jobs submitted in the last opt.arrivals seconds up to now (the replay's own
        list, in submission order; only what a scheduler knows at submission is read)."""
        if not self.opt.arrivals or self.sim is None:
            return []
        jobs = self.sim.jobs
        lo = bisect.bisect_left(jobs, now - self.opt.arrivals, key=lambda sj: sj.job.submit_time)
        hi = bisect.bisect_right(jobs, now, key=lambda sj: sj.job.submit_time)
        return [sj.job for sj in jobs[lo:hi]]

    def _batch(self, moment: Moment, result, targets: list[str]) -> None:
        plan = self.plan_maker(moment, result) if self.plan_maker is not None else None
        got = forecast(moment, self.cfg, result.state, self.history, self.opt, targets, plan,
                       self._recent(moment.now))
        self.batches += 1
        cal, now = self.calibration, moment.now
        for jid, f in got.items():
            self.raw[jid] = (now, f)
            self.forecasts[jid] = (now, f if cal is None else cal.adjust(now, f))
            if cal is not None:
                self.waiting.add(jid)

    def accuracy(self, raw: bool = False) -> Accuracy:
        """The figures over the jobs forecast that started after their forecast (`raw`:
        of the replays' own forecasts, before calibration)."""
        assert self.sim is not None and self.sim.rm is not None
        records = self.sim.rm.records
        made = self.raw if raw else self.forecasts
        return accuracy(made.values(), {jid: records[jid].start for jid in made if jid in records})
