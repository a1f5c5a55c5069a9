"""The forecast engine: with no uncertainty (every user's runtimes equal their requests)
and every queued job reserved (conservative backfill), the replays start each job where
the plan (showstart) puts it: p10 = p50 = p90 = the plan; and p10 <= p50 <= p90 always."""

import copy

from hypothesis import assume, given, settings, strategies as st

from maui_py.forecast.engine import ForecastOptions, forecast, quantile

from .moments import CONSERVATIVE, plan_of, take

USERS = ("u0", "u1", "u2")


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.integers(6, 18), st.integers(4, 12), st.integers(1, 12))
def test_no_uncertainty_gives_the_plans_start(seed, n, nodes, cycle):
    tk = take(seed, n, nodes, cycle, CONSERVATIVE)
    assume(tk is not None)
    hist = {u: ((600, 600), (30, 30)) for u in USERS}         # every ratio 1
    before = copy.deepcopy(tk.result.state.reservations)
    got = forecast(tk.moment, tk.cfg, tk.result.state, hist, ForecastOptions(samples=3), plan=plan_of(tk))
    queued = {j.id for j in tk.moment.jobs if not j.state.active}
    assert set(got) == queued
    for f in got.values():
        assert f.plan is not None and f.p10 == f.p50 == f.p90 == f.plan and f.late == 0
    assert tk.result.state.reservations == before              # the caller's state untouched


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.integers(6, 18), st.integers(4, 12), st.integers(1, 12),
       st.lists(st.integers(1, 100), min_size=1, max_size=6), st.booleans())
def test_the_range_is_ordered_and_starts_are_not_before_now(seed, n, nodes, cycle, shares, conservative):
    tk = take(seed, n, nodes, cycle, CONSERVATIVE if conservative else "")
    assume(tk is not None)
    hist = {u: tuple((s * 10, 1000) for s in shares) for u in USERS}
    got = forecast(tk.moment, tk.cfg, tk.result.state, hist, ForecastOptions(samples=9, seed=seed))
    assert got
    for f in got.values():
        assert tk.moment.now <= f.p10 <= f.p50 <= f.p90 and f.samples == 9


def test_quantiles_are_nearest_rank():
    values = list(range(1, 21))             # 20 replays
    assert (quantile(values, 0.1), quantile(values, 0.5), quantile(values, 0.9)) == (2, 10, 18)
    assert quantile([7], 0.1) == quantile([7], 0.9) == 7
    assert (quantile([3, 1, 2], 0.1), quantile([3, 1, 2], 0.5), quantile([3, 1, 2], 0.9)) == (1, 2, 3)


def test_samples_and_horizon_are_bounded():
    opt = ForecastOptions(samples=10**9, horizon=10**12).bounded()
    assert opt.samples == 1000 and opt.horizon == 366 * 86400
    assert ForecastOptions(samples=0, horizon=0).bounded().samples == 1


def test_a_job_not_started_within_the_horizon_is_counted_late():
    tk = take(11, 18, 4, 3, CONSERVATIVE)
    assert tk is not None
    got = forecast(tk.moment, tk.cfg, tk.result.state, {}, ForecastOptions(samples=2, horizon=1))
    assert got and all(f.p90 <= tk.moment.now + 1 for f in got.values())
    assert any(f.late == 2 and f.p50 == tk.moment.now + 1 for f in got.values())
