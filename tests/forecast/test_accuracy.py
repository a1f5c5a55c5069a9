"""The accuracy figures as issue 36 defines them, on hand-made forecasts: over the jobs
that started after their forecast, the share of starts within [p10, p90] and the median
absolute errors of p50 and of the plan."""

from maui_py.forecast.accuracy import accuracy
from maui_py.forecast.engine import Forecast


def test_coverage_and_median_errors_by_definition():
    at = 1000
    forecasts = [
        (at, Forecast("a", 1100, 1200, 1300, 20, plan=1000)),   # start 1250: in, |p50| 50, plan 250
        (at, Forecast("b", 1100, 1200, 1300, 20, plan=1500)),   # start 1400: out, 200, 100
        (at, Forecast("c", 2000, 2500, 3000, 20, plan=2000)),   # start 3000: in (edge), 500, 1000
        (at, Forecast("d", 1100, 1500, 1900, 20, plan=None)),   # start 1100: in (edge), 400, no plan
        (at, Forecast("e", 1000, 1000, 1000, 20, plan=1000)),   # started at once: left out
        (at, Forecast("f", 1100, 1200, 1300, 20, plan=1200)),   # never started: left out
    ]
    starts = {"a": 1250, "b": 1400, "c": 3000, "d": 1100, "e": 1000, "f": None}
    got = accuracy(forecasts, starts)
    assert got.jobs == 4
    assert got.coverage_80 == 3 / 4
    assert got.mae_p50 == 200          # of 50, 200, 400, 500: the lower middle
    assert got.mae_plan == 250         # of 100, 250, 1000 (d has no plan)


def test_no_job_that_waited_gives_no_figures():
    got = accuracy([(5, Forecast("a", 5, 5, 5, 1, plan=5))], {"a": 5})
    assert (got.jobs, got.coverage_80, got.mae_p50, got.mae_plan) == (0, None, None, None)
