"""The runtime sampler: a draw is one of the user's ratios times the request, never at or
below what a running job has already run, never above the request, the request with no
history, the same for the same seed."""

import random

from hypothesis import given, settings, strategies as st

from maui_py.forecast.engine import ForecastOptions, choices, draws, forecast
from maui_py.forecast.runtimes import draw_runtime, ratios, spans

from .moments import take

RATIOS = st.lists(st.floats(min_value=0.0, max_value=3.0, allow_nan=False), max_size=40)


@settings(max_examples=300, deadline=None)
@given(RATIOS, st.integers(1, 10**6), st.integers(0, 2 * 10**6), st.integers(0, 2**32))
def test_a_draw_is_above_elapsed_and_at_most_the_request(user_ratios, request, elapsed, seed):
    got = draw_runtime(random.Random(seed), user_ratios, request, elapsed)
    assert 1 <= got <= request
    assert got > elapsed or got == request          # still running: it runs past elapsed, or to its limit
    allowed = {min(request, max(1, round(x * request))) for x in user_ratios}
    assert got in allowed or got == request


def test_with_no_history_a_job_runs_its_request():
    rng = random.Random(1)
    assert ratios({}, "alice") == ()
    assert {draw_runtime(rng, ratios({}, "alice"), 3600) for _ in range(20)} == {3600}
    assert {draw_runtime(rng, ratios({"bob": ((10, 100),)}, "alice"), 3600, 100) for _ in range(5)} == {3600}


def test_a_running_job_draws_only_among_ratios_past_what_it_has_run():
    hist = {"u": ((100, 1000), (500, 1000), (900, 1000))}
    assert spans(ratios(hist, "u"), 1000, 0) == (100, 500, 900)
    assert spans(ratios(hist, "u"), 1000, 400) == (500, 900)
    assert spans(ratios(hist, "u"), 1000, 950) == (1000,)       # past every ratio: its request
    assert spans(ratios(hist, "u"), 1000, 5000) == (1000,)      # past its limit: the limit


def test_the_window_keeps_the_users_last_jobs_only():
    hist = {"u": tuple((k, 100) for k in range(1, 61))}
    assert ratios(hist, "u", 20) == tuple(k / 100 for k in range(41, 61))
    assert ratios({"u": ((5, 0), (50, 100))}, "u") == (0.5,)     # no request: left out


def test_draws_are_the_same_for_a_seed_and_differ_across_seeds():
    tk = take(3, 15, 8, 4)
    assert tk is not None
    hist = {f"u{k}": tuple((r, 1000) for r in (50, 200, 400, 800, 1000)) for k in range(3)}
    jobs = choices(tk.moment, hist, 32)
    one = [draws(jobs, random.Random(s)) for s in ("a", "a", "b")]
    assert one[0] == one[1] and one[0] != one[2]
    a = forecast(tk.moment, tk.cfg, tk.result.state, hist, ForecastOptions(samples=7, seed=5))
    b = forecast(tk.moment, tk.cfg, tk.result.state, hist, ForecastOptions(samples=7, seed=5))
    assert a == b and a


def test_together_draws_one_ratio_per_user():
    from maui_py.forecast.engine import Moment
    from maui_py.model import Job, JobRequest, JobState
    queued = [Job(f"q{k}", "u", JobRequest(1), 1000, 0) for k in range(6)]
    running = Job("r", "u", JobRequest(1), 1000, 0, state=JobState.RUNNING, start_time=0)
    moment = Moment(950, (), (*queued, running))
    hist = {"u": ((100, 1000), (400, 1000), (700, 1000))}
    for seed in range(20):
        got = dict((j.id, s) for j, s in draws(choices(moment, hist, 32), random.Random(seed), "user"))
        assert len({got[j.id] for j in queued}) == 1 and got[queued[0].id] in (100, 400, 700)
        assert got["r"] == 1000                 # past every ratio: its request
    apart = [dict((j.id, s) for j, s in draws(choices(moment, hist, 32), random.Random(seed)))
             for seed in range(20)]
    assert any(len({d[j.id] for j in queued}) > 1 for d in apart)

    every = [dict((j.id, s) for j, s in draws(choices(moment, hist, 32), random.Random(seed), "all"))
             for seed in range(20)]
    for d in every:                             # one quantile: every queued job alike, ranked
        assert len({d[j.id] for j in queued}) == 1 and d["r"] == 1000
    assert {d["q0"] for d in every} == {100, 400, 700}
