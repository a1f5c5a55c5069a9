"""Arrivals drawn from the recent stream (--forecast-arrivals): within (now, until], gaps
and jobs from the recent ones, fresh ids, bounded; none from fewer than two recent jobs;
a forecast with them still orders its range."""

import random

from maui_py.forecast.arrivals import MAX_ARRIVALS, draw_arrivals
from maui_py.forecast.engine import ForecastOptions, forecast
from maui_py.model import Job, JobRequest

from .moments import take


def _recent():
    return [Job(str(k), f"u{k % 2}", JobRequest(k % 3 + 1), 600 * (k + 1), 1000 + 100 * k) for k in range(5)]


def test_arrivals_come_after_now_from_the_recent_jobs():
    recent = _recent()
    got = draw_arrivals(random.Random(1), recent, 2000, 6000, {"u0": ((300, 600),)}, 32)
    assert got and len({sj.job.id for sj in got}) == len(got)
    assert all(2000 < sj.job.submit_time <= 6000 for sj in got)
    times = [sj.job.submit_time for sj in got]
    assert times == sorted(times) and all(b - a in (0, 100) for a, b in zip(times, times[1:]))
    by_id = {j.id: j for j in recent}
    for sj in got:
        src = by_id[sj.job.id.split("~")[0]]
        assert (sj.job.user, sj.job.procs, sj.job.wallclock) == (src.user, src.procs, src.wallclock)
        assert 1 <= sj.runtime <= src.wallclock and not sj.job.state.active


def test_arrivals_are_bounded_and_need_a_stream():
    recent = [Job(str(k), "u", JobRequest(1), 60, 1000) for k in range(3)]      # gaps of 0
    assert len(draw_arrivals(random.Random(2), recent, 1000, 10**9, {}, 32, limit=10**6)) == MAX_ARRIVALS
    assert draw_arrivals(random.Random(2), recent[:1], 1000, 5000, {}, 32) == []


def test_a_forecast_with_arrivals_orders_its_range():
    tk = take(5, 16, 8, 5)
    assert tk is not None
    recent = [j for j in tk.moment.jobs]
    recent.sort(key=lambda j: (j.submit_time, j.id))
    hist = {f"u{k}": ((100, 1000), (900, 1000)) for k in range(3)}
    got = forecast(tk.moment, tk.cfg, tk.result.state, hist, ForecastOptions(samples=6, arrivals=3600),
                   recent=recent)
    assert got and all(tk.moment.now <= f.p10 <= f.p50 <= f.p90 for f in got.values())
