"""Calibrated forecasts (forecast/calibrate.py): the order p10 <= p50 <= p90 and no start
before the forecast kept whatever the scores; the split-conformal coverage on waits drawn
from one distribution; nothing changed before min_jobs; and in a replay every calibrated
forecast is what the jobs started by its own moment give (no look-ahead), worked out again
here from the raw forecasts and the real starts."""

from __future__ import annotations

import csv
import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.cli.main import maui_sim_main
from maui_py.forecast.calibrate import Calibration
from maui_py.forecast.engine import Forecast

AT = 1_000_000


def _forecast(rng: random.Random) -> Forecast:
    """A range that is too narrow and too early: the waits below are drawn around 2 h,
    the replays say 40 min to 1 h 20."""
    return Forecast("j", AT + 2400, AT + 3600, AT + 4800, 20)


def _wait(rng: random.Random) -> int:
    return int(7200 * math.exp(rng.gauss(0.0, 1.0)))


def _coverage(cal: Calibration, rng: random.Random, n: int) -> float:
    inside = 0
    for _ in range(n):
        f = cal.adjust(AT, _forecast(rng))
        s = AT + _wait(rng)
        inside += f.p10 <= s <= f.p90
        cal.add(AT, _forecast(rng), s)
    return inside / n


def test_the_80_percent_range_covers_about_80_percent_of_exchangeable_waits():
    rng = random.Random(7)
    cal = Calibration(window=256, min_jobs=32)
    for _ in range(256):                                 # the window filled first
        cal.add(AT, _forecast(rng), AT + _wait(rng))
    assert 0.75 <= _coverage(cal, rng, 3000) <= 0.86
    cal._check()


def test_raw_forecasts_of_the_same_waits_cover_far_less():
    rng = random.Random(7)
    inside = sum(AT + 2400 <= AT + _wait(rng) <= AT + 4800 for _ in range(3000))
    assert inside / 3000 < 0.4                          # what calibration has to mend


def test_nothing_moves_before_min_jobs_and_instant_starts_do_not_count():
    cal = Calibration(window=64, min_jobs=3)
    f = Forecast("j", AT + 60, AT + 600, AT + 6000, 20)
    for s in (AT, AT - 5, AT + 50_000, AT + 50_000):
        assert cal.adjust(AT, f) == f
        cal.add(AT, f, s)
    assert len(cal.high) == 2
    cal.add(AT, f, AT + 50_000)
    g = cal.adjust(AT, f)
    assert g.p90 > f.p90 and g.p10 > f.p10 and g.samples == f.samples


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 10**6),
                          st.integers(-100, 10**7)), min_size=1, max_size=60),
       st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 10**6),
       st.integers(1, 40), st.integers(1, 10))
def test_adjust_keeps_the_order_and_never_starts_before_the_forecast(seen, a, b, c, window, min_jobs):
    cal = Calibration(window=window, min_jobs=min_jobs)
    for x, y, z, s in seen:
        lo, mid, hi = sorted((x, y, z))
        cal.add(AT, Forecast("k", AT + lo, AT + mid, AT + hi, 5), AT + s)
        cal._check()
    lo, mid, hi = sorted((a, b, c))
    g = cal.adjust(AT, Forecast("j", AT + lo, AT + mid, AT + hi, 5))
    assert AT <= g.p10 <= g.p50 <= g.p90


def test_a_replays_calibrated_forecasts_read_only_the_jobs_started_by_then(tmp_path):
    args = ["--synthetic", "150", "--machine-procs", "24", "--forecast", "--forecast-samples", "4", "-q"]
    assert maui_sim_main([*args, "--forecast-calibration", "0", "--out", str(tmp_path / "raw")]) == 0
    assert maui_sim_main([*args, "--forecast-calibration", "8", "--out", str(tmp_path / "cal")]) == 0
    raw, cal = ({r["id"]: r for r in csv.DictReader(open(tmp_path / d / "jobs.csv"))} for d in ("raw", "cal"))
    assert [(r["id"], r["start"]) for r in raw.values()] == [(r["id"], r["start"]) for r in cal.values()]

    def f(r):
        return Forecast(r["id"], int(r["forecast_p10"]), int(r["forecast_p50"]), int(r["forecast_p90"]), 4)
    made = sorted((int(r["forecast_at"]), int(r["id"])) for r in raw.values() if r["forecast_at"])
    started = sorted((int(r["start"]), int(r["forecast_at"]), int(r["id"])) for r in raw.values()
                     if r["forecast_at"] and r["start"])
    mine, k, moved = Calibration(8, 8), 0, 0
    for at, jid in made:
        while k < len(started) and started[k][0] <= at:
            s, at2, j2 = started[k]
            mine.add(at2, f(raw[str(j2)]), s)
            k += 1
        want = mine.adjust(at, f(raw[str(jid)]))
        got = f(cal[str(jid)])
        assert (got.p10, got.p50, got.p90) == (want.p10, want.p50, want.p90), jid
        moved += got != f(raw[str(jid)])
    assert moved > 10
