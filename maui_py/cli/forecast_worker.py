"""mauid's forecast worker: `python -m maui_py.cli.forecast_worker --config CFG --store DB`
(started by maui_py/daemon/forecasting.py with an argument list, never a shell).

Reads one moment as JSON on stdin (at most MAX_INPUT bytes): the cycle's iteration and now,
its nodes and jobs (the jobs it started running), the state's rows (store/state_rows.py),
the users' runtime history, the replays asked, how to draw, the budget in seconds and the
jobs to forecast (default every queued one), and with FORECASTARRIVALS the jobs submitted
lately (the stream the replays draw arrivals from). Writes the forecasts as JSON on stdout: each
target's p10 / p50 / p90 (forecast/budgeted.py),
with showstart's point estimate at that cycle (the same `collect` the command runs, on the
store's last cycle, when it is still that cycle; else none). With FORECASTCALIBRATION N, each
range is moved by how the first forecasts of the last N tracked jobs that started by now
turned out (forecast/calibrate.py, on the replays' own ranges the store keeps), and the
replays' own range goes along as `raw`. With FORECASTWORKERS N > 1 the replays run N at a
time in processes forked from this one (forecast/shortcuts.py: the same forecasts). The
budget is wall time from this worker's start (reading the moment counts). A separate process so that a forecast never delays
a cycle; it only reads the store.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, BinaryIO, Callable, TextIO

MAX_INPUT = 1 << 30
"""Bytes of a moment read at most (a 10k-node, 50k-job moment is far below)."""


def plan_of(store: str, cfg, state, iteration: int) -> Callable | None:
    """job -> showstart's start on the store's last cycle, if it is `iteration`; else None."""
    from ..store import StoreError, StoreReader
    from . import showstart
    from .common import CommandError
    from .view import View
    try:
        with StoreReader.open(store) as reader:
            last = reader.last_cycle()
    except StoreError:
        return None
    if last is None or last.info.iteration != iteration:
        return None
    view = View(last, cfg, state)

    def plan(job) -> int | None:
        try:
            return int(showstart.collect(view, job.id)["start"])
        except CommandError:
            return None
    return plan


def calibration_of(store: str, window: int, now: int):
    """forecast/calibrate.Calibration over the last `window` tracked jobs that started by
    `now` (in start order), None when `window` is 0 or the store cannot be read. O(tracked)."""
    from ..forecast.calibrate import MIN_JOBS, Calibration
    from ..forecast.engine import Forecast
    from ..store import StoreError, StoreReader
    from ..store.forecasts import tracked
    if not window:
        return None
    try:
        with StoreReader.open(store) as reader:
            rows = [t for t in tracked(reader, 0) if t.start is not None and t.start <= now]
    except StoreError:
        return None
    cal = Calibration(window, min(window, MIN_JOBS))
    for t in sorted(rows, key=lambda t: (t.start, t.job_id))[-window:]:
        p10, p50, p90 = t.replays()
        cal.add(t.first_at, Forecast(t.job_id, p10, p50, p90, 1), t.start)
    return cal


def work(moment: dict[str, Any], config: str, store: str, clock: Callable[[], float] = time.monotonic) -> dict:
    """The forecasts of one moment (the payload's dict) as plain data."""
    from ..cfg import load_config
    from ..forecast.budgeted import forecast_within
    from ..forecast.engine import ForecastOptions, Moment
    from ..forecast.shortcuts import Shortcuts
    from ..model import Job, Node
    from ..store.codec import decode
    from ..store.state_rows import build_state
    t0 = clock()
    deadline = t0 + float(moment["budget"])
    cfg = load_config(config)
    st = moment["state"]
    state = build_state(st["jobs"], st["reservations"], st["kv"])
    m = Moment(int(moment["now"]), tuple(decode(Node, n) for n in moment["nodes"]),
               tuple(decode(Job, j) for j in moment["jobs"]))
    history = {str(u): tuple((int(r), int(q)) for r, q in pairs) for u, pairs in moment["history"].items()}
    plan = plan_of(store, cfg, state, int(moment["iteration"]))
    draw = str(moment.get("draw") or ForecastOptions().draw)      # the simulator's default when none is asked
    opt = ForecastOptions(samples=int(moment["samples"]), draw=draw, seed=int(moment.get("seed", 0)),
                          arrivals=int(moment.get("arrivals", 0)))
    recent = tuple(decode(Job, j) for j in moment.get("recent", ()))
    targets = moment.get("targets")
    fast = Shortcuts(workers=int(cfg.get("FORECASTWORKERS") or 1))
    got = forecast_within(m, cfg, state, history, opt, deadline, clock=clock, plan=plan,
                          targets=None if targets is None else [str(t) for t in targets], recent=recent,
                          fast=fast)
    cal = calibration_of(store, int(cfg.get("FORECASTCALIBRATION") or 0), m.now)
    rows = []
    for f in got.forecasts.values():
        g = f if cal is None else cal.adjust(m.now, f)
        rows.append([f.job_id, g.p10, g.p50, g.p90, f.samples, f.late, f.plan]
                    + ([[f.p10, f.p50, f.p90]] if g != f else []))
    return {"computed_at": m.now, "asked": opt.bounded().samples, "done": got.done, "cut": got.cut,
            "seconds": round(clock() - t0, 3), "forecasts": rows}


def main(argv: list[str] | None = None, stdin: BinaryIO | None = None, stdout: TextIO | None = None) -> int:
    p = argparse.ArgumentParser(prog="maui-py-forecast-worker", description=__doc__.split("\n\n")[0])
    p.add_argument("--config", required=True)
    p.add_argument("--store", required=True)
    args = p.parse_args(argv)
    raw = (stdin or sys.stdin.buffer).read(MAX_INPUT + 1)
    if len(raw) > MAX_INPUT:
        print(f"forecast worker: the moment is over {MAX_INPUT} bytes", file=sys.stderr)
        return 2
    out = work(json.loads(raw), args.config, args.store)
    (stdout or sys.stdout).write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
