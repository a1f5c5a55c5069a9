"""Start forecasts in the store (store/forecasts.py, schema v3) and their tracked accuracy
(store/tracked_accuracy.py): round trips, a damaged row skipped with a warning and nothing
else lost, bounds on what is read back, a v2 file upgraded, and the accuracy figures against
an independent computation (statistics.median_low, counted by hand)."""

from __future__ import annotations

import logging
import sqlite3
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.store import Store, StoreReader, schema
from maui_py.store.forecasts import (ForecastRun, StoredForecast, Tracked, all_forecasts, forecast_of, forecast_run,
                                     load_history, note_starts, prune_tracked, save_forecasts, save_history, tracked,
                                     waiting_tracked)
from maui_py.store.tracked_accuracy import breakdown, figures, size_of

T = 1_700_000_000
RUN = ForecastRun(T, 20, 20, False, 1.5, 2, "ALL")
F1 = StoredForecast("j1", T + 100, T + 200, T + 900, 20, 0, T + 1000)
F2 = StoredForecast("j2", T + 50, T + 60, T + 70, 20, 3, None)
ABOUT = {"j1": ("alice", "batch", "normal", 4), "j2": ("bob", "debug", "", 64)}


@pytest.fixture
def store(tmp_path):
    s = Store.open(tmp_path / "s.db")
    yield s
    s.close()


def test_forecasts_round_trip_and_a_new_run_replaces_the_last(store, tmp_path):
    save_forecasts(store, RUN, [F1, F2], ABOUT)
    with StoreReader.open(tmp_path / "s.db") as r:
        assert forecast_run(r) == RUN
        assert forecast_of(r, "j1") == F1 and forecast_of(r, "j2") == F2 and forecast_of(r, "j3") is None
        assert all_forecasts(r) == {"j1": F1, "j2": F2}
    later = ForecastRun(T + 300, 20, 7, True, 60.0, 1, "ALL")
    f1b = StoredForecast("j1", T + 400, T + 500, T + 600, 7)
    save_forecasts(store, later, [f1b], ABOUT)
    assert all_forecasts(store) == {"j1": f1b}
    assert forecast_run(store) == later
    # the first forecast stays the tracked one
    [t1, t2] = tracked(store, 0)
    assert (t1.job_id, t1.first_at, t1.p50, t1.plan) == ("j1", T, T + 200, T + 1000)
    assert (t2.user, t2.class_, t2.qos, t2.procs) == ("bob", "debug", "", 64)


def test_starts_are_noted_once_and_old_records_pruned(store):
    save_forecasts(store, RUN, [F1, F2], ABOUT)
    assert waiting_tracked(store) == {"j1", "j2"}
    note_starts(store, {"j1": T + 250})
    note_starts(store, {"j1": T + 999})           # a later sighting does not move it
    assert {t.job_id: t.start for t in tracked(store, 0)} == {"j1": T + 250, "j2": None}
    assert waiting_tracked(store) == {"j2"}
    assert [t.job_id for t in tracked(store, T + 1)] == []
    prune_tracked(store, T + 1)
    assert tracked(store, 0) == []


@pytest.mark.parametrize("data", ['{"p10": 5', '{"p10": 3, "p50": 2, "p90": 4, "samples": 1}',
                                  '{"p10": 1, "p50": 2, "p90": 3, "samples": 100000}',
                                  '{"p10": -1, "p50": 2, "p90": 3, "samples": 1}', '[1, 2, 3]',
                                  '{"p10": 1, "p50": 2, "p90": 1e300, "samples": 1}'])
def test_a_damaged_forecast_row_is_skipped_with_a_warning_and_nothing_else_lost(store, tmp_path, caplog, data):
    save_forecasts(store, RUN, [F1, F2], ABOUT)
    store.conn.execute("UPDATE forecast SET data = ? WHERE job_id = 'j2'", (data,))
    store.conn.execute("UPDATE forecast_track SET data = ? WHERE job_id = 'j2'",
                       ('{"p10": 3, "p50": 2, "p90": 4}' if "samples" in data else data,))
    with caplog.at_level(logging.WARNING, "maui_py.store"), StoreReader.open(tmp_path / "s.db") as r:
        assert all_forecasts(r) == {"j1": F1}
        assert forecast_of(r, "j2") is None
        assert [t.job_id for t in tracked(r, 0)] == ["j1"]
        assert {row["table"] for row in r.skipped()} == {"forecast", "forecast_track"}
    assert sum("cannot be read" in m for m in caplog.messages) == 2      # each named once


def test_a_damaged_run_record_reads_as_none(store, caplog):
    save_forecasts(store, RUN, [F1], ABOUT)
    store.conn.execute("UPDATE kv SET value = '{\"computed_at\": \"x\"}' WHERE key = 'forecast'")
    with caplog.at_level(logging.WARNING, "maui_py.store"):
        assert forecast_run(store) is None
    assert forecast_of(store, "j1") == F1
    assert any("kv row 'forecast'" in m for m in caplog.messages)


def test_the_history_round_trips_bounded_and_a_damaged_user_is_left_out(store, caplog):
    save_history(store, {"alice": ((10, 100), (20, 100), (30, 100)), "bob": ((5, 50),)})
    assert load_history(store, 2) == {"alice": ((20, 100), (30, 100)), "bob": ((5, 50),)}
    store.conn.execute("""UPDATE kv SET value = '{"alice": [[1, 2]], "bob": [["x", 2]]}'
                          WHERE key = 'forecast_history'""")
    with caplog.at_level(logging.WARNING, "maui_py.store"):
        assert load_history(store, 32) == {"alice": ((1, 2),)}
    store.conn.execute("UPDATE kv SET value = '[' WHERE key = 'forecast_history'")
    assert load_history(store, 32) == {}


def test_a_version_2_store_is_upgraded_with_its_data_and_gains_the_forecast_tables(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    schema.migrate(conn, 2)
    conn.execute("INSERT INTO kv (key, value) VALUES ('iteration', '7')")
    conn.close()
    s = Store.open(path)
    try:
        assert schema.version(s.conn) == 3
        assert s.kv()["iteration"] == 7
        save_forecasts(s, RUN, [F1], ABOUT)
        assert forecast_of(s, "j1") == F1
    finally:
        s.close()


# ------------------------------------------------------------------ accuracy
def _t(jid, first, p10, p50, p90, plan, start, cls="batch", qos="", procs=1) -> Tracked:
    return Tracked(jid, first, p10, p50, p90, plan, start, "u", cls, qos, procs)


def test_the_figures_on_hand_made_records():
    rows = [_t("a", 0, 100, 200, 300, 500, 250),      # inside, err50 50, errplan 250
            _t("b", 0, 100, 200, 300, None, 400),     # outside, err50 200, no plan
            _t("c", 0, 100, 150, 300, 100, 120),      # inside, err50 30, errplan 20
            _t("d", 0, 100, 200, 300, 300, None),     # not started: left out
            _t("e", 50, 10, 20, 30, 40, 50)]          # started at its forecast: left out
    f = figures(rows)
    assert (f.jobs, f.inside, f.planned) == (3, 2, 2)
    assert f.coverage_80 == pytest.approx(2 / 3)
    assert f.mae_p50 == 50                            # sorted 30, 50, 200: the middle
    assert f.mae_plan == 20                           # 20, 250: the lower middle
    assert figures([]).coverage_80 is None and figures([]).mae_p50 is None


def test_the_breakdown_groups_by_class_qos_and_size():
    rows = [_t("a", 0, 100, 200, 300, None, 250, "batch", "hi", 1),
            _t("b", 0, 100, 200, 300, None, 900, "batch", "", 32),
            _t("c", 0, 100, 200, 300, None, 210, "debug", "hi", 300)]
    g = breakdown(rows)
    assert list(g)[0] == ("all", "")
    assert g[("all", "")].jobs == 3 and g[("class", "batch")].jobs == 2 and g[("class", "debug")].jobs == 1
    assert g[("qos", "hi")].jobs == 2 and g[("qos", "[NONE]")].jobs == 1
    assert {k[1] for k in g if k[0] == "size"} == {"1", "17-64", "257+"}
    assert g[("class", "batch")].inside == 1 and g[("class", "batch")].mae_p50 == 50


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1000), st.integers(0, 500), st.integers(0, 500), st.integers(0, 500),
                          st.one_of(st.none(), st.integers(0, 3000)), st.one_of(st.none(), st.integers(0, 3000)),
                          st.integers(1, 2000)), max_size=40))
def test_figures_match_an_independent_count(raw):
    rows = []
    for k, (first, a, b, c, plan, start, procs) in enumerate(raw):
        p10, p50, p90 = sorted((first + a, first + b, first + c))
        rows.append(_t(str(k), first, p10, p50, p90, plan, start, procs=procs))
    counted = [r for r in rows if r.start is not None and r.start > r.first_at]
    f = figures(rows)
    assert f.jobs == len(counted)
    assert f.inside == sum(1 for r in counted if r.p10 <= r.start <= r.p90)
    if counted:
        assert 0.0 <= f.coverage_80 <= 1.0
        assert f.mae_p50 == statistics.median_low([abs(r.p50 - r.start) for r in counted])
    plans = [abs(r.plan - r.start) for r in counted if r.plan is not None]
    assert f.mae_plan == (statistics.median_low(plans) if plans else None)
    g = breakdown(rows)
    for kind in ("class", "qos", "size"):
        assert sum(v.jobs for k, v in g.items() if k[0] == kind) == len(counted)
    assert all(size_of(r.procs) in {k[1] for k in g if k[0] == "size"} for r in counted)
