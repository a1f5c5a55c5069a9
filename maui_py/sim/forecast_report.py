"""The forecast section of maui-sim's report (--forecast): the accuracy block of
summary.txt, the keys summary.json gains and jobs.csv's forecast columns. Plain data in,
made by forecast/ (accuracy.py: coverage of the 80 % range and the median absolute errors,
over the jobs that did not start at their submission)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import Any

from . import plots
from .timefmt import human_duration

CSV_COLUMNS = ("forecast_at", "forecast_p10", "forecast_p50", "forecast_p90", "forecast_plan")
"""jobs.csv's forecast columns (epoch seconds, as submit and start; empty for a job that
started at its submission, which needs no forecast, and a plan that is unknown)."""


@dataclass
class ForecastData:
    """summary: forecast_jobs, forecast_coverage_80, forecast_mae_p50, plan_mae (None when
    no job counts), with calibration also forecast_raw_coverage_80 and forecast_raw_mae_p50
    (the replays' own range); rows: job id -> (forecast at, p10, p50, p90, plan or None)."""

    summary: dict[str, Any]
    rows: dict[str, tuple] = field(default_factory=dict)
    samples: int = 0
    batches: int = 0
    starts: dict[str, int | None] = field(default_factory=dict)
    """job id -> real start (None: never started), for the report's plot."""


def csv_cells(data: ForecastData, job_id: str) -> list:
    row = data.rows.get(job_id)
    return ["" if v is None else v for v in row] if row is not None else [""] * len(CSV_COLUMNS)


def forecast_text(data: ForecastData) -> str:
    """The summary's forecast block: durations as durations, the coverage as a share."""
    s = data.summary
    n = s.get("forecast_jobs") or 0
    head = (f"Forecasts ({data.samples} replays each, {data.batches} batches, "
            f"{len(data.rows)} jobs forecast at submission)")
    if not n:
        return head + "\n  no forecast job started after its submission"

    def dur(v: Any) -> str:
        return "-" if v is None else human_duration(v)
    return "\n".join([
        head,
        f"  jobs that waited:               {n}",
        f"  real start within p10-p90:      {100 * s['forecast_coverage_80']:.1f} %",
        f"  median abs. error of p50:       {dur(s['forecast_mae_p50'])}",
        f"  median abs. error of the plan:  {dur(s['plan_mae'])}",
    ] + ([f"  before calibration:             {100 * s['forecast_raw_coverage_80']:.1f} % "
          f"within p10-p90, p50 off by {dur(s['forecast_raw_mae_p50'])}"]
         if s.get("forecast_raw_coverage_80") is not None else []))


def error_points(data: ForecastData) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(real wait, p50 - real start) and (real wait, plan - real start) of each job that
    waited after its forecast (the jobs accuracy.py counts), in job-id order."""
    p50, plan = [], []
    for jid in sorted(data.rows):
        at, _p10, mid, _p90, est = data.rows[jid]
        s = data.starts.get(jid)
        if s is None or s <= at:
            continue
        p50.append((s - at, mid - s))
        if est is not None:
            plan.append((s - at, est - s))
    return p50, plan


def with_forecast(page: str, data: ForecastData | None) -> str:
    """The report page with a "Start forecasts" section before its breakdown (unchanged
    without forecasts): forecast error against real wait, the p50's and the plan's."""
    if data is None:
        return page
    p50, plan = error_points(data)
    if not p50:
        return page
    s = data.summary
    chart = plots.scatter_chart("Forecast error against real wait", "estimate - real start",
                                [("forecast p50", p50), ("plan (showstart)", plan)])
    note = (f"{s['forecast_jobs']} jobs waited after their forecast; "
            f"{100 * s['forecast_coverage_80']:.1f} % started within p10-p90. Above the line: "
            "the estimate was late; below: early.")
    section = (f'<section><h2>Start forecasts</h2><p class="note">{escape(note)}</p>'
               f'<div class="charts">{chart}</div></section>\n')
    mark = "<section><h2>Breakdown</h2>"
    k = page.find(mark)
    return page[:k] + section + page[k:] if k >= 0 else page
