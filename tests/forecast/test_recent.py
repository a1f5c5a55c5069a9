"""The "recent" runtime draw (runtimes.draw_recent, the default): half the time among the
user's last RECENT jobs, else among all the window's; never at or below what a running job
has run (unless its request), never above the request, the same for the same seed; it
reads only the history it is given (a job that ends later cannot change an earlier draw);
and it is the default of maui-sim --forecast and of mauid's forecast worker."""

import json
import random

from hypothesis import given, settings, strategies as st

from maui_py.forecast.engine import DRAWS, ForecastOptions, Moment, choices, draws, forecast
from maui_py.forecast.runtimes import RECENT, draw_recent, ratios, spans
from maui_py.model import Job, JobRequest, JobState

from .moments import take

RATIOS = st.lists(st.floats(min_value=0.0, max_value=3.0, allow_nan=False), max_size=40)


def _own(user_ratios, request):
    """engine.choices's `own`: the ratios as runtimes of the request, unfiltered."""
    return tuple(min(request, max(1, round(x * request))) for x in user_ratios)


@settings(max_examples=300, deadline=None)
@given(RATIOS, st.integers(1, 10**6), st.integers(0, 2 * 10**6), st.integers(0, 2**32))
def test_a_recent_draw_is_one_of_the_users_runtimes_above_elapsed_at_most_the_request(
        user_ratios, request, elapsed, seed):
    c = spans(user_ratios, request, elapsed)
    own = _own(user_ratios, request)
    got = draw_recent(random.Random(seed), c, own, elapsed)
    assert got == draw_recent(random.Random(seed), c, own, elapsed)        # deterministic for a seed
    assert 1 <= got <= request
    assert got > elapsed or got == request          # still running: past elapsed, or to its limit
    assert got in set(c) | {s for s in own[-RECENT:] if s > elapsed}


def test_half_the_weight_is_on_the_last_jobs():
    own = (100, 200, 300, 400, 500, 600)            # oldest first: the last RECENT = 4 are 300-600
    rng = random.Random(7)
    n = 6000
    got = [draw_recent(rng, own, own) for _ in range(n)]
    old = sum(g in (100, 200) for g in got) / n
    # P(old) = 1/2 x 2/6 = 1/6 (a uniform draw: 1/3); sd about 0.005 for n = 6000
    assert abs(old - 1 / 6) < 0.03
    assert abs(sum(g == 600 for g in got) / n - (1 / 2 * 1 / 4 + 1 / 2 * 1 / 6)) < 0.03
    flat = [spans(r, 1000)[random.Random(k).randrange(6)] for k, r in enumerate([(0.1, 0.2, 0.3, 0.4, 0.5, 0.6)] * n)]
    assert abs(sum(g in (100, 200) for g in flat) / n - 1 / 3) < 0.03    # the job draw, for contrast


def test_a_running_job_draws_only_past_what_it_has_run_and_no_history_runs_its_request():
    own = (100, 500, 900, 300)
    c = spans(tuple(x / 1000 for x in own), 1000, 400)
    assert c == (500, 900)
    assert {draw_recent(random.Random(s), c, own, 400) for s in range(200)} == {500, 900}
    c = spans(tuple(x / 1000 for x in own), 1000, 950)
    assert {draw_recent(random.Random(s), c, own, 950) for s in range(50)} == {1000}     # past all: request
    assert {draw_recent(random.Random(s), (3600,), (), 0) for s in range(50)} == {3600}  # no history


def test_recent_and_job_stay_options_beside_the_default_similar():
    # the default moved from "recent" to "similar" (issue 36, fc5: docs/simulator.md, "Start forecasts")
    assert DRAWS[0] == "similar" and "recent" in DRAWS and "job" in DRAWS
    assert ForecastOptions().draw == "similar" and ForecastOptions().bounded().draw == "similar"
    assert ForecastOptions(draw="recent").bounded().draw == "recent"
    assert ForecastOptions(draw="job").bounded().draw == "job"
    assert ForecastOptions(draw="nonsense").bounded().draw == "similar"
    queued = [Job(f"q{k}", "u", JobRequest(1), 1000, 0) for k in range(8)]
    moment = Moment(0, (), tuple(queued))
    hist = {"u": tuple((r, 1000) for r in (100, 200, 300, 400, 500, 600, 700, 800))}
    menu = choices(moment, hist, 32)
    one = [dict((j.id, s) for j, s in draws(menu, random.Random(seed), "recent")) for seed in range(300)]
    every = [s for d in one for s in d.values()]
    # last 4 (500-800): 1/2 + 1/2 x 4/8 = 3/4 of the draws; a uniform draw gives 1/2
    assert abs(sum(s >= 500 for s in every) / len(every) - 0.75) < 0.04


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 1000), st.integers(1, 1000)), min_size=1, max_size=32),
       st.lists(st.tuples(st.integers(1, 1000), st.integers(1, 1000)), min_size=1, max_size=12),
       st.integers(0, 2**32), st.integers(0, 1500))
def test_draws_read_only_the_users_last_window_jobs(past, older, seed, now):
    """What a draw reads is the user's last `window` finished jobs, as the caller's history
    holds them at the moment: jobs older than the window change nothing, and the same
    history and seed give the same draws (a replay is repeatable)."""
    queued = [Job(f"q{k}", "u", JobRequest(1), 1000, 0) for k in range(5)]
    running = Job("r", "u", JobRequest(1), 1000, 0, state=JobState.RUNNING, start_time=0)
    moment = Moment(now, (), (*queued, running))
    hist = {"u": tuple((min(r, q), q) for r, q in past)}
    longer = {"u": tuple((min(r, q), q) for r, q in older) + hist["u"]}
    a = draws(choices(moment, hist, len(past)), random.Random(seed), "recent")
    b = draws(choices(moment, longer, len(past)), random.Random(seed), "recent")
    assert a == b
    for job, s in a:
        assert 1 <= s <= job.wallclock
        if job.id == "r":
            assert s > now or s == job.wallclock


def test_a_recent_forecast_is_the_same_for_a_seed():
    tk = take(3, 15, 8, 4)
    assert tk is not None
    hist = {f"u{k}": tuple((r, 1000) for r in (50, 200, 400, 800, 1000)) for k in range(3)}
    a = forecast(tk.moment, tk.cfg, tk.result.state, hist, ForecastOptions(samples=7, seed=5))
    b = forecast(tk.moment, tk.cfg, tk.result.state, hist, ForecastOptions(samples=7, seed=5, draw="similar"))
    assert a == b and a
    for f in a.values():
        assert tk.moment.now <= f.p10 <= f.p50 <= f.p90


def test_mauids_worker_draws_as_asked_and_recent_when_not_told(tmp_path):
    """The worker (cli/forecast_worker.work) uses the draw the daemon sends (FORECASTPOLICY
    RECENT -> "recent", JOB -> "job") and, with none in the moment, the simulator's default."""
    from maui_py.cfg.choices import ForecastPolicy
    from maui_py.cli.forecast_worker import work
    from maui_py.daemon.forecasting import DRAW_OF
    from maui_py.forecast.budgeted import forecast_within
    from maui_py.store.codec import encode
    from maui_py.store.state_rows import state_rows
    assert DRAW_OF[ForecastPolicy.RECENT] == "recent" and DRAW_OF[ForecastPolicy.JOB] == "job"
    tk = take(3, 15, 8, 4)
    assert tk is not None
    cfg = tmp_path / "maui.cfg"
    cfg.write_text("RMPOLLINTERVAL 0:00:30\n")
    hist = {f"u{k}": tuple((r, 1000) for r in (50, 200, 400, 800, 1000, 30, 900)) for k in range(3)}
    rows = state_rows(tk.result.state)
    state = {"jobs": {k: json.loads(v) for k, v in rows.jobs.items()},          # as the daemon sends it
             "reservations": {k: json.loads(v[2]) for k, v in rows.reservations.items()},
             "kv": {k: json.loads(v) for k, v in rows.kv.items()}}
    payload = {"iteration": 1, "now": tk.moment.now, "budget": 1000, "samples": 6, "seed": 0, "state": state,
               "nodes": [encode(n) for n in tk.moment.nodes], "jobs": [encode(j) for j in tk.moment.jobs],
               "history": {u: [list(p) for p in pairs] for u, pairs in hist.items()}}
    store = str(tmp_path / "none.db")

    def ranges(out):
        return {r[0]: tuple(r[1:4]) for r in out["forecasts"]}

    def expected(draw):
        got = forecast_within(tk.moment, tk.cfg, tk.result.state, hist, ForecastOptions(samples=6, draw=draw),
                              float("inf"))
        return {jid: (f.p10, f.p50, f.p90) for jid, f in got.forecasts.items()}
    default = ranges(work(payload, str(cfg), store))
    assert default and default == expected("similar")          # the default since fc5
    assert ranges(work({**payload, "draw": "recent"}, str(cfg), store)) == expected("recent")
    assert ranges(work({**payload, "draw": "job"}, str(cfg), store)) == expected("job") != default


def test_maui_sim_forecasts_with_recent_by_default_and_job_on_request(tmp_path):
    import csv

    from maui_py.cli.main import maui_sim_main
    args = ["--synthetic", "120", "--machine-procs", "32", "--forecast", "--forecast-samples", "6", "-q"]
    cols = ("forecast_p10", "forecast_p50", "forecast_p90")
    got = {}
    for name, extra in (("default", []), ("similar", ["--forecast-draw", "similar"]),
                        ("job", ["--forecast-draw", "job"])):
        assert maui_sim_main([*args, *extra, "--out", str(tmp_path / name)]) == 0
        got[name] = [(r["id"], r["start"], *(r[c] for c in cols))
                     for r in csv.DictReader(open(tmp_path / name / "jobs.csv"))]
    assert got["default"] == got["similar"]                                   # the default since fc5
    assert [r[:2] for r in got["job"]] == [r[:2] for r in got["default"]]     # the schedule is the same
    assert got["job"] != got["default"]                                        # the forecasts are not
