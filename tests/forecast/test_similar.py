"""The "similar" runtime draw (runtimes.draw_similar, the default since fc5): draw_recent's
lean toward the user's last jobs, taken among the user's last jobs that asked the same
request when there is one. Never at or below what a running job has run (unless its
request), never above the request, the same for a seed; with no job of the same request it
draws exactly what draw_recent draws; it reads only the history it is given (SAME_WINDOW
pairs a user at most), so a job that ends later cannot change an earlier draw."""

import random

from hypothesis import given, settings, strategies as st

from maui_py.forecast.engine import ForecastOptions, Moment, choices, draws, forecast
from maui_py.forecast.runtimes import RECENT, SAME_WINDOW, draw_recent, draw_similar, same_request, spans
from maui_py.model import Job, JobRequest, JobState

from .moments import take

PAIRS = st.lists(st.tuples(st.integers(0, 5000), st.sampled_from((600, 1000, 3600))), max_size=40)


def _menu_of(pairs, request, elapsed):
    """What engine.choices gives a job of `request` that has run `elapsed` s."""
    rat = tuple(r / q for r, q in pairs if q > 0)
    own = tuple(min(request, max(1, round(x * request))) for x in rat)
    return spans(rat, request, elapsed), own, same_request({"u": tuple(pairs)}, "u", request)


@settings(max_examples=300, deadline=None)
@given(PAIRS, st.sampled_from((600, 1000, 3600)), st.integers(0, 7200), st.integers(0, 2**32))
def test_a_similar_draw_is_one_of_the_users_runtimes_above_elapsed_at_most_the_request(pairs, request, elapsed, seed):
    c, own, same = _menu_of(pairs, request, elapsed)
    got = draw_similar(random.Random(seed), c, own, same, elapsed)
    assert got == draw_similar(random.Random(seed), c, own, same, elapsed)      # deterministic for a seed
    assert 1 <= got <= request
    assert got > elapsed or got == request          # still running: past elapsed, or to its limit
    assert got in set(c) | {s for s in same[-RECENT:] + own[-RECENT:] if s > elapsed}
    if not same:                                    # no job of this request: draw_recent's draw
        assert got == draw_recent(random.Random(seed), c, own, elapsed)


def test_same_request_keeps_only_the_jobs_of_that_request_oldest_first_within_the_window():
    hist = {"u": ((50, 600), (700, 1000), (0, 1000), (5000, 1000), (300, 600), (900, 1000))}
    assert same_request(hist, "u", 1000) == (700, 1, 1000, 900)     # at least 1 s, at most the request
    assert same_request(hist, "u", 600) == (50, 300)
    assert same_request(hist, "u", 3600) == () and same_request(hist, "v", 1000) == ()
    assert same_request(hist, "u", 1000, window=2) == (900,)           # only the last 2 pairs read
    long = {"u": tuple((k, 1000) for k in range(1, SAME_WINDOW + 50))}
    assert same_request(long, "u", 1000) == tuple(range(50, SAME_WINDOW + 50))


def test_half_the_weight_is_on_the_last_jobs_of_the_same_request():
    # the user's last four jobs asked 600 s; the four before them asked 1000 s, as this one does
    pairs = ((100, 1000), (200, 1000), (300, 1000), (400, 1000), (300, 600), (360, 600), (420, 600), (480, 600))
    c, own, same = _menu_of(pairs, 1000, 0)
    assert same == (100, 200, 300, 400) and own[-RECENT:] == (500, 600, 700, 800)
    rng = random.Random(3)
    n = 6000
    got = [draw_similar(rng, c, own, same) for _ in range(n)]
    # 1/2 among the same-request four (each 1/8), 1/2 among all eight (each 1/16): P(100..400) = 3/4
    assert abs(sum(g in (100, 200, 300, 400) for g in got) / n - 0.75) < 0.03
    rec = [draw_recent(rng, c, own) for _ in range(n)]                 # recent leans on the 600 s jobs
    assert abs(sum(g in (100, 200, 300, 400) for g in rec) / n - 0.25) < 0.03


def test_a_running_job_draws_past_what_it_has_run_and_falls_back_to_its_users_last_jobs():
    pairs = ((100, 1000), (900, 1000), (500, 3600), (3000, 3600))
    c, own, same = _menu_of(pairs, 1000, 400)          # same (100, 900): only 900 is past 400 s
    assert {draw_similar(random.Random(s), c, own, same, 400) for s in range(300)} == {900, 833}
    c, own, same = _menu_of(pairs, 1000, 950)          # past every runtime: the request
    assert {draw_similar(random.Random(s), c, own, same, 950) for s in range(50)} == {1000}
    c, own, same = _menu_of((), 1000, 0)               # no history: the request
    assert {draw_similar(random.Random(s), c, own, same) for s in range(50)} == {1000}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 1000), st.sampled_from((500, 1000))), min_size=1, max_size=SAME_WINDOW),
       st.lists(st.tuples(st.integers(1, 1000), st.sampled_from((500, 1000))), min_size=1, max_size=12),
       st.integers(0, 2**32), st.integers(0, 1500))
def test_similar_draws_read_only_the_users_last_jobs(past, older, seed, now):
    """What a draw reads is the user's last SAME_WINDOW (same request) and `window` (ratios)
    finished jobs, as the caller's history holds them at the moment: older jobs change
    nothing, and the same history and seed give the same draws (no look-ahead)."""
    queued = [Job(f"q{k}", "u", JobRequest(1), 1000, 0) for k in range(5)]
    running = Job("r", "u", JobRequest(1), 1000, 0, state=JobState.RUNNING, start_time=0)
    moment = Moment(now, (), (*queued, running))
    pad = tuple((7, 3600) for _ in range(SAME_WINDOW - len(past)))    # fill the window with other requests
    hist = {"u": pad + tuple((min(r, q), q) for r, q in past)}
    longer = {"u": tuple((min(r, q), q) for r, q in older) + hist["u"]}
    window = min(32, len(past))
    a = draws(choices(moment, hist, window), random.Random(seed), "similar")
    b = draws(choices(moment, longer, window), random.Random(seed), "similar")
    assert a == b
    for job, s in a:
        assert 1 <= s <= job.wallclock
        if job.id == "r":
            assert s > now or s == job.wallclock


def test_a_similar_forecast_is_the_same_for_a_seed_and_differs_from_recent_when_requests_differ():
    tk = take(3, 15, 8, 4)
    assert tk is not None
    hist = {f"u{k}": tuple((r, q) for r, q in ((50, 1000), (200, 500), (400, 1000), (800, 3000), (1000, 1000)))
            for k in range(3)}
    a = forecast(tk.moment, tk.cfg, tk.result.state, hist, ForecastOptions(samples=7, seed=5))
    b = forecast(tk.moment, tk.cfg, tk.result.state, hist, ForecastOptions(samples=7, seed=5, draw="similar"))
    assert a == b and a
    for f in a.values():
        assert tk.moment.now <= f.p10 <= f.p50 <= f.p90
