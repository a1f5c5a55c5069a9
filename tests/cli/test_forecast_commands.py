"""The stored start forecasts in the commands (cli/forecast_view.py): showstart's range and
likely start beside Maui's estimate with the forecast's age, --json's forecast object,
checkjob's line, showq --forecast's column, showstart --accuracy and diagnose --forecast on
hand-made records (the figures worked out here by hand), and the plain "none stored" notes.
The store is tests/cli/fixture.py's (cycle at T) with forecasts added as mauid stores them."""

from __future__ import annotations

import json
import time
import types

import pytest

from maui_py.cli import common, forecast_view
from maui_py.cli.main import run_single
from maui_py.store import Store
from maui_py.store.forecasts import ForecastRun, StoredForecast, note_starts, save_forecasts

from .fixture import T, write_store

WALL = T + 250
"""The commands' wall clock: the forecast (made at T - 60) is 0:05:10 old."""


@pytest.fixture(autouse=True)
def setting(monkeypatch):
    monkeypatch.setattr(common.os, "getuid", lambda: 0)
    monkeypatch.setenv(common.USER_ENV, "root")
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    monkeypatch.setattr(forecast_view, "time", types.SimpleNamespace(time=lambda: float(WALL)))
    yield
    monkeypatch.undo()
    time.tzset()


def _store(tmp_path, policy: str | None = "ALL", forecasts: bool = True):
    db = write_store(tmp_path)
    if policy is not None:
        cfg = tmp_path / "maui.cfg"
        cfg.write_text(cfg.read_text() + f"FORECASTPOLICY {policy}\n")
    if forecasts:
        s = Store.open(db)
        save_forecasts(s, ForecastRun(T - 60, 20, 12, True, 60.0, 2, "ALL"),
                       [StoredForecast("i4", T + 600, T + 1800, T + 7200, 12, 0, T + 7200),
                        StoredForecast("i3", T + 60, T + 100, T + 200, 12, 2, None)],
                       {"i4": ("alice", "batch", "", 8), "i3": ("dave", "batch", "high", 8)})
        s.close()
    return db


def run(capsys, argv, db):
    rc = run_single(argv[0], [*argv[1:], "--store", str(db)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out


def test_showstart_prints_the_range_and_likely_start_beside_mauis_estimate(tmp_path, capsys):
    db = _store(tmp_path)
    out = run(capsys, ["showstart", "i4"], db)
    maui, forecast = out.split("Best Partition: DEFAULT\n\n")
    assert "Earliest start in          2:00:00 on Wed Nov 15 00:13:20" in maui      # the plan, as before
    lines = forecast.splitlines()
    assert lines[0] == "Likely start in           00:30:00 on Tue Nov 14 22:43:20"
    assert lines[1] == "Likely between            00:10:00 and 2:00:00 (p10 to p90)"
    assert lines[2:4] == ["  from Tue Nov 14 22:23:20", "  to   Wed Nov 15 00:13:20"]
    assert lines[4] == "Forecast made 00:05:10 ago from 12 replays (FORECASTBUDGET cut it short: 20 asked)"
    assert "17000" not in out                        # no raw seconds for a person


def test_showstart_json_has_the_forecast_object_and_renders_the_same_text(tmp_path, capsys):
    db = _store(tmp_path)
    text = run(capsys, ["showstart", "i3"], db)
    doc = json.loads(run(capsys, ["showstart", "i3", "--json"], db))
    f = doc["data"]["forecast"]
    assert {k: f[k] for k in ("p10", "p50", "p90", "samples", "computed_at")} == \
        {"p10": T + 60, "p50": T + 100, "p90": T + 200, "samples": 12, "computed_at": T - 60}
    assert f["late"] == 2 and f["age"] == 310
    from maui_py.cli import showstart
    assert showstart.render(doc["data"]) == text
    assert "in 2 the job had not started by the replay's horizon" in text


def test_no_forecast_stored_is_said_plainly_and_forecasts_off_keep_mauis_layout(tmp_path, capsys):
    on = tmp_path / "on"
    on.mkdir()
    out = run(capsys, ["showstart", "i1"], _store(on, "ALL", forecasts=False))
    assert out.endswith("Forecast: no forecast stored yet: mauid makes the first one after a cycle "
                        "(FORECASTPOLICY ALL)\n\n")
    assert json.loads(run(capsys, ["showstart", "i1", "--json"], _store(on, "ALL", False)))["data"]["forecast"] is None
    other = tmp_path / "other"
    other.mkdir()
    out = run(capsys, ["showstart", "i1"], _store(other))     # i1 has no forecast, the run has
    assert "no forecast stored for this job: the last forecast, 00:05:10 ago, came before it was queued" in out
    held = run(capsys, ["showstart", "h1"], _store(other))    # user-held
    assert "Forecast: none for a held job" in held
    off = tmp_path / "off"
    off.mkdir()
    out = run(capsys, ["showstart", "i1"], _store(off, None, forecasts=False))
    assert out.endswith("Best Partition: DEFAULT\n\n") and "Forecast" not in out


def test_checkjob_shows_the_range(tmp_path, capsys):
    db = _store(tmp_path)
    out = run(capsys, ["checkjob", "i4"], db)
    assert ("Forecast:  start in 00:30:00 (likely), 00:10:00 to 2:00:00 (p10-p90), made 00:05:10 ago "
            "from 12 replays\n") in out
    assert "Forecast" not in run(capsys, ["checkjob", "r1"], db)          # running: no forecast
    doc = json.loads(run(capsys, ["checkjob", "i4", "--json"], db))
    assert doc["data"]["forecast"]["p50"] == T + 1800


def test_showq_forecast_adds_the_p50_column_to_the_idle_jobs(tmp_path, capsys):
    db = _store(tmp_path)
    plain = run(capsys, ["showq"], db)
    assert "LIKELY" not in plain
    out = run(capsys, ["showq", "--forecast"], db)
    rows = {line.split()[0]: line for line in out.splitlines() if line[:2] in ("i1", "i3", "i4")}
    assert rows["i4"].endswith("  Tue Nov 14 22:43:20") and rows["i3"].endswith("  Tue Nov 14 22:15:00")
    assert rows["i1"].endswith(" -")
    assert "LIKELY START (p50)" in out
    # the rest of the page is Maui's
    assert [ln for ln in out.splitlines() if not ln.startswith(("i1", "i3", "i4", "JOBNAME"))] == \
        [ln for ln in plain.splitlines() if not ln.startswith(("i1", "i3", "i4", "JOBNAME"))]
    idle = run(capsys, ["showq", "-i", "--forecast"], db)
    assert any(ln.strip().startswith("i4") and ln.endswith("Tue Nov 14 22:43:20") for ln in idle.splitlines())
    doc = json.loads(run(capsys, ["showq", "--forecast", "--json"], db))
    assert {j["id"]: j["forecast_p50"] for j in doc["data"]["idle"]} == {"i1": None, "i4": T + 1800, "i3": T + 100}


def test_accuracy_figures_on_hand_made_records(tmp_path, capsys):
    db = write_store(tmp_path)
    s = Store.open(db)
    about = {"a": ("u", "batch", "", 1), "b": ("u", "batch", "high", 8), "c": ("u", "debug", "high", 100),
             "d": ("u", "debug", "", 1)}
    fc = [StoredForecast("a", T + 100, T + 200, T + 300, 10, 0, T + 1000),
          StoredForecast("b", T + 100, T + 200, T + 300, 10, 0, T + 500),
          StoredForecast("c", T + 100, T + 200, T + 300, 10, 0, None),
          StoredForecast("d", T + 100, T + 200, T + 300, 10, 0, T + 200)]
    save_forecasts(s, ForecastRun(T - 3600, 10, 10, False, 2.0, 4, "ALL"), fc, about)
    note_starts(s, {"a": T + 250, "b": T + 400, "c": T + 140})          # d has not started
    s.close()
    out = run(capsys, ["showstart", "--accuracy"], db)
    # a: inside, |200-250| = 50, plan |1000-250| = 750; b: outside (400 > 300), 200, plan 100;
    # c: inside, 60, no plan. All: 2 of 3 inside; p50 errors 50, 60, 200 -> 60; plan 100, 750 -> 100
    rows = {tuple(ln.split()[:2]): ln.split() for ln in out.splitlines()[3:]}
    assert "(4 tracked, 1 not started yet)" in out
    assert rows[("All", "jobs")][2:] == ["-", "3", "66.7%", "00:01:00", "00:01:40"]
    assert rows[("Class", "batch")][2:] == ["2", "50.0%", "00:00:50", "00:01:40"]
    assert rows[("Class", "debug")][2:] == ["1", "100.0%", "00:01:00", "-"]
    assert rows[("QOS", "high")][2:] == ["2", "50.0%", "00:01:00", "00:01:40"]
    doc = json.loads(run(capsys, ["showstart", "--accuracy", "--json"], db))
    first = doc["data"]["accuracy"]["groups"][0]
    assert (first["jobs"], first["inside"], first["mae_p50"], first["mae_plan"]) == (3, 2, 60, 100)
    short = run(capsys, ["showstart", "--accuracy", "--window", "00:30:00"], db)
    assert "(0 tracked, 0 not started yet)" in short and "no tracked job has started yet" in short
    diag = run(capsys, ["diagnose", "--forecast"], db)
    assert "4 jobs, 10 of 10 replays" in diag and "66.7%" in diag
