"""maui-sim --forecast on a small generated workload: the summary's forecast keys, in
range, the text block with durations, jobs.csv's forecast columns; and a usage error for
a sample count out of bounds."""

import csv
import json

import pytest

from maui_py.cli.main import maui_sim_main


def test_maui_sim_forecast_reports_coverage_and_errors(tmp_path, capsys):
    rc = maui_sim_main(["--synthetic", "120", "--machine-procs", "32", "--forecast",
                        "--forecast-samples", "8", "--out", str(tmp_path), "-q"])
    out = capsys.readouterr().out
    assert rc == 0
    s = json.loads((tmp_path / "summary.json").read_text())["Maui defaults"]
    rows = list(csv.DictReader(open(tmp_path / "jobs.csv")))
    waited = [r for r in rows if r["forecast_p50"] and int(r["start"]) > int(r["forecast_at"])]
    assert s["forecast_jobs"] == len(waited) > 10
    assert 0.0 <= s["forecast_coverage_80"] <= 1.0
    inside = sum(int(r["forecast_p10"]) <= int(r["start"]) <= int(r["forecast_p90"]) for r in waited)
    assert s["forecast_coverage_80"] == inside / len(waited)
    assert 0 <= s["forecast_mae_p50"] and 0 <= s["plan_mae"]
    for r in rows:
        if r["forecast_at"]:
            assert r["forecast_at"] == r["submit"]             # forecast at its submission
            assert int(r["submit"]) <= int(r["forecast_p10"]) <= int(r["forecast_p50"]) <= int(r["forecast_p90"])
        else:
            assert r["start"] == r["submit"]                   # started at once: no forecast
    assert "real start within p10-p90" in out and "median abs. error of p50" in out
    text = (tmp_path / "summary.txt").read_text()
    assert "Forecasts (8 replays each" in text


def test_forecast_leaves_the_schedule_as_it_is(tmp_path):
    for k, extra in enumerate(([], ["--forecast", "--forecast-samples", "3"])):
        assert maui_sim_main(["--synthetic", "80", "--machine-procs", "16", "--out",
                              str(tmp_path / str(k)), "-q", *extra]) == 0
    a, b = ([(r["id"], r["start"]) for r in csv.DictReader(open(tmp_path / str(k) / "jobs.csv"))]
            for k in range(2))
    assert a == b


@pytest.mark.parametrize("k", ["0", "1001", "x"])
def test_forecast_samples_out_of_range_is_a_usage_error(k, capsys):
    with pytest.raises(SystemExit) as e:
        maui_sim_main(["--synthetic", "10", "--forecast", "--forecast-samples", k])
    assert e.value.code == 2 and "--forecast-samples" in capsys.readouterr().err
