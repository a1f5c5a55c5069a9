"""maui-py's start-forecast parameters (issue 36): rows of the table.

mauid forecasts the queued jobs' starts in a worker process (maui_py/daemon/forecasting.py
runs it, maui_py/cli/forecast_worker.py is the worker, maui_py/forecast the engine); the
commands read the stored forecasts (showstart, checkjob, showq --forecast) and their tracked
accuracy (showstart --accuracy, diagnose). Off by default: see FORECASTPOLICY's row.
"""

from __future__ import annotations

from .choices import ForecastPolicy
from .rows import OWN, TIME, group
from .values import Choice, Integer


ROWS: list = group(
    "Start forecasts",
    OWN("FORECASTPOLICY", Choice.of(ForecastPolicy), ForecastPolicy.NONE,
        "NONE: no forecasts (the default: a maui.cfg brought from Maui behaves as under Maui, and a "
        "forecast costs one CPU for up to FORECASTBUDGET every FORECASTINTERVAL, which a site chooses to "
        "spend); SIMILAR, RECENT, JOB, USER, ALL: mauid forecasts every queued job's start as p10/p50/p90 of "
        "FORECASTSAMPLES replays of the current state, in a separate process, runtimes drawn from each "
        "user's recent runtime/request ratios: SIMILAR (maui-sim --forecast's default): each job on its "
        "own, half the time among the runtimes of its user's last 4 jobs of the same request (of the "
        "last 256; else the user's last 4 ratios), else among the user's last 32 ratios; RECENT: the "
        "same, always the user's last 4 ratios in the first half (docs/simulator.md); JOB: each job on its own among all "
        "of them, USER: one ratio per user, ALL: one quantile for all jobs in a replay (all run long or "
        "short together: the widest range)"),
    OWN("FORECASTINTERVAL", TIME, 300, "forecasts are made at most this often (after a cycle, when the "
        "last forecast has finished)"),
    OWN("FORECASTBUDGET", TIME, 60, "how long one forecast may run: the worker stops after the replay under "
        "way and stores the samples done (the commands say so); killed at twice this plus 10 seconds"),
    OWN("FORECASTSAMPLES", Integer(1, 1000), 20, "replays per forecast (K): the range is the 10th and 90th "
        "percentile of the K starts of each job"),
    OWN("FORECASTWORKERS", Integer(1, 64), 1, "replays the worker runs at once, each in a process of its own "
        "(forked from the worker: the same forecasts as one at a time, the replays done within FORECASTBUDGET "
        "about this many times as many where cores are free); each takes a core while the worker runs, so "
        "leave one to mauid: at most the head node's cores minus one; 1: one at a time in the worker"),
    OWN("FORECASTARRIVALS", TIME, 0, "non-zero: the replays also draw arrivals from the jobs submitted in the "
        "last this long (gaps and jobs drawn at random: a later job with a higher priority, or a backfilled "
        "one, can delay a queued job); each replay then runs longer; 0: no arrivals"),
    OWN("FORECASTCALIBRATION", Integer(0, 100000), 128, "the range shown is moved by how the forecasts of "
        "the last this many tracked jobs that started turned out (split-conformal, each side on a log "
        "scale of the wait: maui_py/forecast/calibrate.py; the replays' p50 is kept inside it); fewer than "
        "32 started: the replays' own range; 0: always the replays' own range"),
)
