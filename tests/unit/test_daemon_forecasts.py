"""mauid's start forecasts (daemon/forecasting.py, cli/forecast_worker.py, forecast/budgeted.py)
with a fake resource manager: the parameters, the worker process and its budget, NONE,
the cycle's decisions unchanged with forecasts on, tracked starts, the history and metrics."""

from __future__ import annotations

import sys
import time
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.cfg import ConfigError, SchedulerConfig, parse_config
from maui_py.cfg.choices import ForecastPolicy
from maui_py.forecast.budgeted import forecast_within
from maui_py.forecast.engine import ForecastOptions, forecast
from maui_py.model import JobState, Start
from maui_py.store.forecasts import all_forecasts, forecast_run, load_history, tracked
from tests.forecast.moments import take
from tests.unit.test_daemon import CONFIG, FakeRM, home, make  # noqa: F401  (home: a fixture)


# ------------------------------------------------------------------ parameters
def test_the_parameters_parse_with_their_defaults():
    d = SchedulerConfig.default()
    assert d.get("FORECASTPOLICY") is ForecastPolicy.NONE
    assert (d.get("FORECASTINTERVAL"), d.get("FORECASTBUDGET"), d.get("FORECASTSAMPLES")) == (300, 60, 20)
    cfg = parse_config("FORECASTPOLICY user\nFORECASTINTERVAL 10:00\nFORECASTBUDGET 1:30\nFORECASTSAMPLES 50\n")
    assert cfg.get("FORECASTPOLICY") is ForecastPolicy.USER
    assert (cfg.get("FORECASTINTERVAL"), cfg.get("FORECASTBUDGET"), cfg.get("FORECASTSAMPLES")) == (600, 90, 50)


@pytest.mark.parametrize("line, name", [("FORECASTPOLICY SOMETIMES", "FORECASTPOLICY"),
                                        ("FORECASTSAMPLES 0", "FORECASTSAMPLES"),
                                        ("FORECASTSAMPLES 5000", "FORECASTSAMPLES"),
                                        ("FORECASTINTERVAL soon", "FORECASTINTERVAL")])
def test_a_bad_value_is_an_error_naming_file_line_and_parameter(line, name):
    with pytest.raises(ConfigError) as e:
        parse_config(f"RMPOLLINTERVAL 30\n{line}\n", "site.cfg")
    assert "site.cfg:2" in str(e.value) and name in str(e.value)


# ------------------------------------------------------------------ the budget
def _moment():
    for seed in range(50):
        got = take(seed, 30, 4, 6)
        if got is not None:
            return got
    raise AssertionError("no moment with a queue")


class Ticks:
    """A clock that moves one second each time it is read."""

    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 1.0
        return self.t


def test_the_budget_stops_the_replays_early_and_says_so():
    m = _moment()
    opt = ForecastOptions(samples=10)
    clock = Ticks()
    got = forecast_within(m.moment, m.cfg, m.result.state, {}, opt, deadline=3.5, clock=clock)
    assert got.cut and got.done == 4                 # the clock reads 1, 2, 3 before replays 1-3, 4 before the 5th
    assert got.forecasts and all(f.samples == 4 for f in got.forecasts.values())
    full = forecast_within(m.moment, m.cfg, m.result.state, {}, opt, deadline=float("inf"))
    assert not full.cut and full.done == 10 and all(f.samples == 10 for f in full.forecasts.values())
    one = forecast_within(m.moment, m.cfg, m.result.state, {}, opt, deadline=-1.0)
    assert one.cut and one.done == 1                 # at least one replay, whatever the budget


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 8), st.integers(0, 10))
def test_a_budgeted_forecast_is_the_quantiles_of_its_replays_each_an_engine_forecast(samples, stop):
    """Replay k is the engine's own one-sample forecast with seed k: the range is made of
    exactly those starts (nearest rank), and the first replays do not depend on the budget."""
    m = _moment()
    opt = ForecastOptions(samples=samples)
    clock = Ticks()
    got = forecast_within(m.moment, m.cfg, m.result.state, {}, opt, deadline=stop + 0.5, clock=clock)
    assert got.done == min(samples, max(1, stop + 1)) and got.cut == (got.done < samples)
    singles = [forecast(m.moment, m.cfg, m.result.state, {}, replace(opt, samples=1, seed=k))
               for k in range(got.done)]
    for jid, f in got.forecasts.items():
        starts = sorted(s[jid].p50 for s in singles)
        n = len(starts)
        assert f.samples == n and f.p10 <= f.p50 <= f.p90
        assert f.p10 == starts[max(1, -(-n // 10)) - 1] and f.p50 == starts[max(1, -(-n // 2)) - 1]
        assert f.p90 == starts[max(1, -(-9 * n // 10)) - 1]


# ------------------------------------------------------------------ the daemon
def _config(home, extra: str) -> None:
    (home / "maui.cfg").write_text(CONFIG + extra)


def _wait_worker(d, timeout: float = 120.0) -> None:
    end = time.monotonic() + timeout
    while d.forecasting.proc is not None:
        assert time.monotonic() < end, "the worker did not finish"
        time.sleep(0.05)
        d.forecasting.poll(d.store)


def test_none_starts_no_worker(home):
    rm = FakeRM(6)
    d = make(home, rm)
    d.start()
    try:
        d.cycle()
        del rm.jobs["1"]                        # a job ends: nothing learned or written with NONE
        d.cycle()
        assert d.forecasting.proc is None and d.forecasting.runs == 0
        assert forecast_run(d.store) is None
        assert d.store.conn.execute("SELECT count(*) FROM kv WHERE key LIKE 'forecast%'").fetchone()[0] == 0
    finally:
        d.close()


def test_forecasts_are_made_in_a_worker_stored_and_the_decisions_are_unchanged(tmp_path):
    applied = {}
    for policy in ("NONE", "ALL"):
        h = tmp_path / policy
        h.mkdir()
        _config(h, f"FORECASTPOLICY {policy}\nFORECASTINTERVAL 0\nFORECASTSAMPLES 4\n")
        rm = FakeRM(6)
        d = make(h, rm)
        d.start()
        try:
            d.cycle()
            if policy == "ALL":
                assert d.forecasting.proc is not None          # running beside the loop
                _wait_worker(d)
                run = forecast_run(d.store)
                stored = all_forecasts(d.store)
                queued = {j.id for j in rm.jobs.values() if j.state is JobState.IDLE}
                assert run is not None and run.asked == 4 and run.done == 4 and not run.cut
                assert set(stored) == queued == {"5", "6"}
                assert all(f.samples == 4 and f.p10 <= f.p50 <= f.p90 and f.plan is not None
                           for f in stored.values())
                assert {t.job_id for t in tracked(d.store, 0)} == queued
            d.cycle()
            applied[policy] = [[(x.job_id, getattr(x, "allocation", None)) for x in batch] for batch in rm.applied]
        finally:
            d.close()
    assert applied["ALL"] == applied["NONE"] and applied["NONE"]


def test_a_worker_past_its_deadline_is_killed_and_nothing_stored(home, caplog):
    _config(home, "FORECASTPOLICY JOB\nFORECASTINTERVAL 0\nFORECASTBUDGET 0\n")
    rm = FakeRM(6)
    d = make(home, rm, forecast_command=lambda cfg, store: [sys.executable, "-c", "import time; time.sleep(60)"])
    d.start()
    try:
        d.forecasting.grace = 0.5
        d.cycle()
        pid = d.forecasting.proc.pid
        proc = d.forecasting.proc
        _wait_worker(d, 20)
        assert proc.wait(5) is not None
        assert forecast_run(d.store) is None
        assert any(f"forecast worker {pid}" in m and "killed" in m for m in caplog.messages)
    finally:
        d.close()


def test_a_failing_worker_is_logged_and_the_daemon_goes_on(home, caplog):
    _config(home, "FORECASTPOLICY ALL\nFORECASTINTERVAL 0\n")
    rm = FakeRM(6)
    d = make(home, rm, forecast_command=lambda cfg, store: [sys.executable, "-c", "print('{not json')"])
    d.start()
    try:
        assert d.cycle()
        _wait_worker(d, 30)
        assert forecast_run(d.store) is None
        assert any("forecast worker failed" in m for m in caplog.messages)
        assert d.cycle()
    finally:
        d.close()


def test_real_starts_are_tracked_and_ended_jobs_teach_the_history(home):
    _config(home, "FORECASTPOLICY ALL\nFORECASTINTERVAL 0\nFORECASTSAMPLES 2\nMETRICSFILE m.prom\n")
    rm = FakeRM(6)
    d = make(home, rm)
    d.start()
    try:
        d.cycle()
        _wait_worker(d)
        for jid in ("1", "2", "3", "4"):
            rm.jobs[jid] = replace(rm.jobs[jid], state=JobState.COMPLETED)
            del rm.jobs[jid]
        d.cycle()                                 # 5 and 6 start now, 1-4 ended
        _wait_worker(d)
        starts = {t.job_id: t.start for t in tracked(d.store, 0)}
        assert starts["5"] is not None and starts["6"] is not None
        hist = load_history(d.store, 32)
        assert len(hist["alice"]) == 4 and all(q == 600 for _r, q in hist["alice"])
        d.cycle()
        text = (home / "m.prom").read_text()
        assert "maui_forecast_jobs" in text
    finally:
        d.close()


def test_a_held_job_is_not_forecast_and_a_cancelled_one_no_longer_watched(home):
    from maui_py.model import HoldType
    _config(home, "FORECASTPOLICY USER\nFORECASTINTERVAL 0\nFORECASTSAMPLES 2\n")
    rm = FakeRM(7)
    rm.jobs["7"] = replace(rm.jobs["7"], holds=frozenset({HoldType.USER}))
    d = make(home, rm)
    d.start()
    try:
        d.cycle()
        _wait_worker(d)
        assert set(all_forecasts(d.store)) == {"5", "6"}
        assert d.forecasting.waiting == {"5", "6"}
        del rm.jobs["6"]                              # cancelled while queued
        d.cycle()
        assert "6" not in d.forecasting.waiting
    finally:
        d.close()


def test_the_tracked_accuracy_becomes_metrics():
    from prometheus_client.parser import text_string_to_metric_families

    from maui_py.daemon.metrics import DaemonMetrics
    from maui_py.store.forecasts import Tracked
    from maui_py.store.tracked_accuracy import breakdown
    rows = [Tracked("a", 0, 100, 200, 300, 260, 250, "u", "batch", "", 4),      # inside; errors 50, 10
            Tracked("b", 0, 100, 200, 300, None, 500, "u", "batch", "", 4),     # outside; error 300
            Tracked("c", 0, 100, 200, 300, 100, None, "u", "debug", "", 4)]     # not started
    m = DaemonMetrics(clock=lambda: 0.0)
    m.forecast_accuracy(breakdown(rows))
    got = {(s.name, tuple(sorted(s.labels.items()))): s.value
           for fam in text_string_to_metric_families(m.render().decode()) for s in fam.samples}
    everyone = (("group", "all"), ("name", ""))
    assert got[("maui_forecast_jobs", everyone)] == 2
    assert got[("maui_forecast_coverage_80", everyone)] == 0.5
    assert got[("maui_forecast_mae_p50_seconds", everyone)] == 50          # 50, 300: the lower middle
    assert got[("maui_forecast_plan_mae_seconds", everyone)] == 10
    assert got[("maui_forecast_jobs", (("group", "class"), ("name", "batch")))] == 2
    assert ("maui_forecast_jobs", (("group", "class"), ("name", "debug"))) not in got     # nothing counted there


def test_the_worker_gets_the_moment_and_with_forecastarrivals_the_recent_submissions(home):
    """What the loop hands the worker on its stdin: the cycle's jobs with this cycle's
    starts running, the targets, and with FORECASTARRIVALS the jobs submitted in the window."""
    import json
    dump = home / "moment.json"
    answer = json.dumps({"computed_at": 0, "asked": 2, "done": 2, "cut": False, "seconds": 0.0, "forecasts": []})
    script = f"import sys; open({str(dump)!r}, 'wb').write(sys.stdin.buffer.read()); print({answer!r})"
    _config(home, "FORECASTPOLICY JOB\nFORECASTINTERVAL 0\nFORECASTSAMPLES 2\nFORECASTARRIVALS 1:00:00\n")
    rm = FakeRM(6)
    now = int(time.time())
    rm.jobs["6"] = replace(rm.jobs["6"], submit_time=now - 7200)     # outside the window
    for jid in ("1", "2", "3", "4", "5"):
        rm.jobs[jid] = replace(rm.jobs[jid], submit_time=now - 60)
    d = make(home, rm, forecast_command=lambda cfg, store: [sys.executable, "-c", script])
    d.start()
    try:
        d.cycle()
        _wait_worker(d, 30)
        m = json.loads(dump.read_text())
        assert m["arrivals"] == 3600 and m["draw"] == "job" and m["samples"] == 2
        assert sorted(j["id"] for j in m["recent"]) == ["1", "2", "3", "4", "5"]
        states = {j["id"]: j.get("state", "Idle") for j in m["jobs"]}
        started = {s.job_id for batch in rm.applied for s in batch if isinstance(s, Start)}
        assert started and all(states[jid] == "Running" for jid in started)
        assert set(m["targets"]) == set(states) - started
        assert forecast_run(d.store).done == 2
    finally:
        d.close()


def test_forecastpolicy_similar_draws_as_the_simulator_and_keeps_a_deep_enough_history(home):
    """FORECASTPOLICY SIMILAR sends the simulator's default draw ("similar") to the worker, and
    the daemon's history keeps each user's last runtimes.SAME_WINDOW jobs, as far back as that
    draw looks for jobs of the same request (a shorter one would make mauid's forecast differ
    from what maui-sim --forecast measures)."""
    from maui_py.daemon.forecasting import WINDOW
    from maui_py.forecast.engine import DRAWS, ForecastOptions
    from maui_py.forecast.runtimes import SAME_WINDOW, WINDOW as RATIOS
    from maui_py.predict.predictors import learn
    assert ForecastOptions().draw == "similar" == DRAWS[0]
    assert WINDOW == SAME_WINDOW > RATIOS
    history: dict = {}
    for k in range(SAME_WINDOW + 5):
        learn(history, "u", k, 10_000, WINDOW)
    assert [r for r, _ in history["u"]] == list(range(5, SAME_WINDOW + 5))
    _config(home, "FORECASTPOLICY SIMILAR\nFORECASTINTERVAL 0\nFORECASTSAMPLES 3\n")
    rm = FakeRM(6)
    d = make(home, rm)
    d.start()
    try:
        d.cycle()
        assert d.forecasting.draw == "similar"
        _wait_worker(d)
        run = forecast_run(d.store)
        assert run is not None and run.done == 3
        assert set(all_forecasts(d.store)) == {j.id for j in rm.jobs.values() if j.state is JobState.IDLE}
    finally:
        d.close()
