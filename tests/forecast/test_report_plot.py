"""The report's "Start forecasts" section (maui-sim --forecast): one point per job that waited
after its forecast in the p50's series (and per such job with a plan in the plan's), placed
from jobs.csv worked out here; a well-formed SVG; no section without forecasts."""

from __future__ import annotations

import csv
import math
import re
import xml.etree.ElementTree as ET

from maui_py.cli.main import maui_sim_main
from maui_py.sim import plots
from maui_py.sim.forecast_report import ForecastData, with_forecast


def _svg(page: str, title: str) -> ET.Element:
    k = page.index(f'aria-label="{title}"')
    start, end = page.rindex("<svg", 0, k), page.index("</svg>", k) + len("</svg>")
    return ET.fromstring(page[start:end])


def test_the_report_plots_each_waited_jobs_errors(tmp_path):
    assert maui_sim_main(["--synthetic", "120", "--machine-procs", "32", "--forecast",
                          "--forecast-samples", "4", "--out", str(tmp_path), "-q"]) == 0
    page = (tmp_path / "index.html").read_text()
    rows = [r for r in csv.DictReader(open(tmp_path / "jobs.csv"))
            if r["forecast_at"] and int(r["start"]) > int(r["forecast_at"])]
    svg = _svg(page, "Forecast error against real wait")
    ns = "{http://www.w3.org/2000/svg}"
    p50, plan = (g.findall(f"{ns}circle") for g in svg.findall(f"{ns}g"))
    assert len(p50) == len(rows) > 10
    assert len(plan) == sum(1 for r in rows if r["forecast_plan"])
    # x on a log axis of the wait: the longest wait is at the right end
    waits = [int(r["start"]) - int(r["forecast_at"]) for r in rows]
    right = plots.W - plots.RIGHT
    xs = [float(c.get("cx")) for c in p50]
    assert max(xs) == right and all(plots.LEFT <= x <= right for x in xs)
    assert sorted(xs) == sorted(round(plots.LEFT + math.log10(max(w, 1)) / math.log10(max(max(waits), 10))
                                      * (right - plots.LEFT), 1) for w in waits)
    inside = re.search(r"([\d.]+) % started within p10-p90", page)
    assert inside and float(inside.group(1)) == round(
        100 * sum(int(r["forecast_p10"]) <= int(r["start"]) <= int(r["forecast_p90"]) for r in rows) / len(rows), 1)


def test_no_section_without_forecasts_or_waits():
    page = "<main><section><h2>Breakdown</h2></section></main>"
    assert with_forecast(page, None) == page
    empty = ForecastData({"forecast_jobs": 0}, {"j": (100, 100, 100, 100, None)}, 4, 1, {"j": 100})
    assert with_forecast(page, empty) == page
    one = ForecastData({"forecast_jobs": 1, "forecast_coverage_80": 1.0},
                       {"j": (100, 150, 200, 300, 400)}, 4, 1, {"j": 250})
    out = with_forecast(page, one)
    assert out.index("Start forecasts") < out.index("Breakdown") and out.count("<circle") == 2
