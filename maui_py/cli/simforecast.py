"""maui-sim --forecast's plan estimate: what `showstart JOB` would answer at that moment of
the replay. The moment and its cycle are made into the commands' view (cli/view.py) as the
store would keep them (store.Store._view_rows: the kept priority reservations, the
standing, administrative and resource manager's ones), and showstart.collect answers, the
same function the command runs: a job's reservation start, else its earliest start in the
table rebuilt from the running jobs (every one to its limit) and the reservations.
"""

from __future__ import annotations

import argparse
from typing import Callable

from ..cfg import SchedulerConfig
from ..forecast import calibrate
from ..forecast.engine import DRAWS, MAX_HORIZON, MAX_SAMPLES, ForecastOptions, Moment
from ..forecast.runtimes import MAX_WINDOW, WINDOW
from ..forecast.simulated import SimForecaster
from ..sim.forecast_report import ForecastData
from ..model import ClusterSnapshot, Job, ReservationKind
from ..store.reader import ADMIN, PRIORITY, RM, STANDING, CycleInfo, LastCycle, reservation_of
from . import showstart
from .common import CommandError, parse_duration
from .view import View


def view_of(moment: Moment, result, cfg: SchedulerConfig) -> View:
    """The commands' view of the moment, after the cycle `result` ran at it. O(jobs +
    reservations)."""
    users = {j.id: j.user for j in moment.jobs}
    res: dict[str, list] = {PRIORITY: [], RM: [], ADMIN: [], STANDING: []}
    for jid, kr in result.state.reservations.items():
        res[PRIORITY].append(reservation_of(kr, users.get(jid, "")))
    for r in result.held:
        if r.kind is not ReservationKind.JOB:
            res[STANDING if r.kind is ReservationKind.STANDING else RM].append(r)
    snap = ClusterSnapshot(moment.now, moment.nodes, moment.jobs, tuple(res[RM]))
    last = LastCycle(CycleInfo(result.iteration, moment.now, 0.0), snap, dict(result.reports),
                     dict(result.priorities), list(result.order), res)
    return View(last, cfg, result.state)


def plan_maker(cfg: SchedulerConfig) -> Callable[[Moment, object], Callable[[Job], int | None]]:
    """For SimForecaster: (moment, cycle result) -> job -> showstart's start, None when
    showstart would answer that it cannot tell."""
    def make(moment: Moment, result) -> Callable[[Job], int | None]:
        view = view_of(moment, result, cfg)

        def plan(job: Job) -> int | None:
            try:
                return int(showstart.collect(view, job.id)["start"])
            except CommandError:
                return None
        return plan
    return make


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--forecast", action="store_true",
                   help="forecast each job's start at its submission (p10/p50/p90 of K replays "
                        "from that moment, runtimes drawn from the user's recent jobs) beside "
                        "showstart's estimate, and report how good both were (first config)")
    p.add_argument("--forecast-samples", type=_samples, default=ForecastOptions().samples, metavar="K",
                   help=f"replays per forecast (default %(default)s, at most {MAX_SAMPLES})")
    p.add_argument("--forecast-window", type=_jobs_window, default=WINDOW, metavar="N",
                   help=f"a user's last N completed jobs the runtime draws read (default "
                        f"%(default)s, at most {MAX_WINDOW})")
    p.add_argument("--forecast-draw", choices=DRAWS, default=ForecastOptions().draw,
                   help="runtimes in a replay: drawn for each job apart, half the time among "
                        "its user's last 4 jobs that asked the same wallclock limit, else its "
                        "user's last 4 (similar), half the time among its user's last 4 "
                        "runtime/request ratios (recent), for each job apart among all (job), "
                        "one ratio per user for all the user's jobs (user), or one quantile for "
                        "all jobs, each of its own user's ratios (all; default %(default)s)")
    p.add_argument("--forecast-arrivals", type=_window, default=0, metavar="DURATION",
                   help="also draw arrivals in the replays from the stream of the last DURATION "
                        "([[[DD:]HH:]MM:]SS; default none; each replay then runs longer: "
                        "about 12 x the CPU with 1 day on KTH)")
    p.add_argument("--forecast-calibration", type=_calibration, default=calibrate.WINDOW, metavar="N",
                   help="move each forecast by how those of the last N jobs that started "
                        "turned out (split-conformal; default %(default)s; 0: the replays' "
                        f"own range; at most {calibrate.MAX_WINDOW})")


def _samples(text: str) -> int:
    try:
        k = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= k <= MAX_SAMPLES:
        raise argparse.ArgumentTypeError(f"{k} is out of range (1 to {MAX_SAMPLES})")
    return k


def _jobs_window(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= n <= MAX_WINDOW:
        raise argparse.ArgumentTypeError(f"{n} is out of range (1 to {MAX_WINDOW})")
    return n


def _calibration(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= n <= calibrate.MAX_WINDOW:
        raise argparse.ArgumentTypeError(f"{n} is out of range (0 to {calibrate.MAX_WINDOW})")
    return n


def _window(text: str) -> int:
    try:
        seconds = parse_duration(text)
    except CommandError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    if seconds > MAX_HORIZON:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range (at most 366 days)")
    return seconds


def forecaster(args: argparse.Namespace, cfg: SchedulerConfig,
               then: Callable[[int, object], None] | None) -> SimForecaster:
    """The forecaster of one replay (its on_cycle calls `then` after its own work)."""
    opt = ForecastOptions(samples=args.forecast_samples, seed=args.seed, poll_interval=args.poll,
                          per_event=args.per_event, arrivals=args.forecast_arrivals,
                          window=args.forecast_window, draw=args.forecast_draw)
    n = args.forecast_calibration
    cal = calibrate.Calibration(n, min(n, calibrate.MIN_JOBS)) if n else None
    return SimForecaster(cfg, opt, plan_maker(cfg), then, cal)


def report_data(fc: SimForecaster) -> ForecastData:
    """What the report shows of a replay's forecasts (sim/forecast_report.py)."""
    acc = fc.accuracy()
    summary = {"forecast_jobs": acc.jobs, "forecast_coverage_80": acc.coverage_80,
               "forecast_mae_p50": acc.mae_p50, "plan_mae": acc.mae_plan}
    if fc.calibration is not None:
        raw = fc.accuracy(raw=True)
        summary["forecast_raw_coverage_80"] = raw.coverage_80
        summary["forecast_raw_mae_p50"] = raw.mae_p50
    rows = {jid: (at, f.p10, f.p50, f.p90, f.plan) for jid, (at, f) in fc.forecasts.items()}
    records = fc.sim.rm.records if fc.sim is not None and fc.sim.rm is not None else {}
    starts = {jid: records[jid].start for jid in rows if jid in records}
    return ForecastData(summary, rows, fc.opt.samples, fc.batches, starts)
