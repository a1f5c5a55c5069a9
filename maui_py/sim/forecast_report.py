"""The forecast section of maui-sim's report (--forecast): the accuracy block of
summary.txt, the keys summary.json gains and jobs.csv's forecast columns. Plain data in,
made by forecast/ (accuracy.py: coverage of the 80 % range and the median absolute errors,
over the jobs that did not start at their submission)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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
