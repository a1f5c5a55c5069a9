"""mauid's calibrated forecasts (FORECASTCALIBRATION): the store keeps the replays' own range
beside the one shown and tracks it; the worker calibrates from the tracked jobs that started
by its moment, reading their own ranges (never the calibrated ones, which would feed on
themselves) and leaving out the jobs that have not started; a damaged raw range is a
damaged row; and the daemon refuses a worker's answer with a malformed raw range."""

from __future__ import annotations

import json
import logging

import pytest

from maui_py.cli.forecast_worker import calibration_of
from maui_py.daemon.forecasting import Forecasting
from maui_py.forecast.calibrate import MIN_JOBS, Calibration
from maui_py.forecast.engine import Forecast
from maui_py.store import Store, StoreReader
from maui_py.store.forecasts import (ForecastRun, StoredForecast, all_forecasts, forecast_of, note_starts,
                                     save_forecasts, tracked)

T = 1_700_000_000
RUN = ForecastRun(T, 20, 20, False, 1.5, 2, "ALL")


@pytest.fixture
def store(tmp_path):
    s = Store.open(tmp_path / "s.db")
    yield s
    s.close()


def test_the_raw_range_round_trips_and_is_the_one_tracked(store, tmp_path):
    shown = StoredForecast("j1", T + 60, T + 200, T + 4000, 20, 0, None, (T + 100, T + 200, T + 900))
    plain = StoredForecast("j2", T + 50, T + 60, T + 70, 20)
    save_forecasts(store, RUN, [shown, plain], {})
    with StoreReader.open(tmp_path / "s.db") as r:
        assert forecast_of(r, "j1") == shown and forecast_of(r, "j2") == plain
        t1, t2 = tracked(r, 0)
    assert (t1.p10, t1.p90, t1.raw) == (T + 60, T + 4000, (T + 100, T + 200, T + 900))
    assert t1.replays() == (T + 100, T + 200, T + 900)
    assert t2.raw is None and t2.replays() == (T + 50, T + 60, T + 70)


@pytest.mark.parametrize("raw", ["[3, 2, 1]", "[1, 2]", '"x"', "[1, 2, -3]"])
def test_a_damaged_raw_range_is_a_damaged_row(store, tmp_path, caplog, raw):
    save_forecasts(store, RUN, [StoredForecast("j1", T + 1, T + 2, T + 3, 5, 0, None, (T + 1, T + 2, T + 3)),
                                StoredForecast("j2", T + 1, T + 2, T + 3, 5)], {})
    for table in ("forecast", "forecast_track"):
        text = store.conn.execute(f"SELECT data FROM {table} WHERE job_id = 'j1'").fetchone()[0]
        d = json.loads(text)
        d["raw"] = json.loads(raw)
        store.conn.execute(f"UPDATE {table} SET data = ? WHERE job_id = 'j1'", (json.dumps(d),))
    with caplog.at_level(logging.WARNING, "maui_py.store"), StoreReader.open(tmp_path / "s.db") as r:
        assert set(all_forecasts(r)) == {"j2"}
        assert [t.job_id for t in tracked(r, 0)] == ["j2"]


def _history(store, n: int, late: int) -> list[tuple[int, Forecast, int]]:
    """n tracked jobs, each first forecast at T + 10 k with a raw range of 10 to 20 minutes
    and shown a much wider one, started `late` seconds after it was forecast."""
    made = []
    for k in range(n):
        at = T + 10 * k
        raw = (at + 600, at + 900, at + 1200)
        save_forecasts(store, ForecastRun(at, 20, 20, False, 1.0, 1, "ALL"),
                       [StoredForecast(f"j{k}", at + 1, at + 2, at + 99_999, 20, 0, None, raw)], {})
        note_starts(store, {f"j{k}": at + late})
        made.append((at, Forecast(f"j{k}", *raw, 20), at + late))
    return made


def test_the_worker_calibrates_from_the_replays_own_ranges_of_started_jobs(store, tmp_path):
    made = _history(store, MIN_JOBS + 8, late=3600)
    save_forecasts(store, ForecastRun(T + 5000, 20, 20, False, 1.0, 1, "ALL"),
                   [StoredForecast("waiting", T + 5000, T + 5001, T + 5002, 20)], {})
    now = T + 10 * (MIN_JOBS + 8) + 3600
    cal = calibration_of(str(tmp_path / "s.db"), 128, now)
    mine = Calibration(128, MIN_JOBS)
    for at, f, s in made:
        mine.add(at, f, s)
    f = Forecast("new", now + 600, now + 900, now + 1200, 20)
    assert cal.adjust(now, f) == mine.adjust(now, f)
    assert cal.adjust(now, f).p90 >= now + 3600 > f.p90           # every one started an hour in
    # a moment before those starts: none counts yet, the range is the replays' own
    assert calibration_of(str(tmp_path / "s.db"), 128, T).adjust(T, f) == f
    assert calibration_of(str(tmp_path / "s.db"), 0, now) is None


def test_a_malformed_raw_range_in_a_workers_answer_stores_nothing(tmp_path):
    good = ["j", T + 1, T + 2, T + 3, 4, 0, None]
    out = {"computed_at": T, "asked": 4, "done": 4, "cut": False, "seconds": 0.5}
    parse = Forecasting._parse
    for bad in ([T + 3, T + 2, T + 1], [T], "x", [T, T, -1]):
        with pytest.raises(ValueError):
            parse(_Host(), {"rc": 0, "out": json.dumps({**out, "forecasts": [good + [bad]]}).encode()})
    run, [f] = parse(_Host(), {"rc": 0, "out": json.dumps({**out, "forecasts": [good + [[T, T + 2, T + 5]]]})
                                .encode()})
    assert f.raw == (T, T + 2, T + 5) and (f.p10, f.p90) == (T + 1, T + 3)
    run, [f] = parse(_Host(), {"rc": 0, "out": json.dumps({**out, "forecasts": [good]}).encode()})
    assert f.raw is None


class _Host:
    policy = "ALL"
