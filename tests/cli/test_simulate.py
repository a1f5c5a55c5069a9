import csv
import json

from maui_py.cli.main import main, maui_sim_main

from ..traces import trace_path


def test_maui_sim_runs_a_generated_workload_and_writes_a_report(tmp_path, capsys):
    rc = maui_sim_main(["-c", "config/easy.cfg", "--synthetic", "300", "--out", str(tmp_path), "-q"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "synthetic Lublin-Feitelson workload (300 jobs, seed 1)" in out
    assert "bounded slowdown (10 s)" in out and "schedule check" in out and "passed" in out
    rows = list(csv.DictReader(open(tmp_path / "jobs.csv")))
    assert len(rows) == 300 and all(int(r["start"]) >= int(r["submit"]) for r in rows)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["config/easy.cfg"]["finished"] == 300
    assert (tmp_path / "index.html").read_text().startswith("<!doctype html>")


def test_same_seed_same_schedule_other_seed_other_workload(tmp_path):
    for k, seed in enumerate(("7", "7", "8")):
        assert maui_sim_main(["--synthetic", "150", "--seed", seed, "--out", str(tmp_path / str(k)),
                              "-q"]) == 0
    a, b, c = ((tmp_path / str(k) / "jobs.csv").read_text() for k in range(3))
    assert a == b and a != c


def test_compare_prints_one_column_per_config(capsys):
    rc = main(["simulate", "compare", "-c", "config/easy.cfg", "-c", "config/conservative.cfg",
               "--synthetic", "200", "-q"])
    out = capsys.readouterr().out
    assert rc == 0
    header = next(line for line in out.splitlines() if line.startswith("metric"))
    assert "config/easy.cfg" in header and "config/conservative.cfg" in header


def test_a_real_trace_with_fixed_poll_interval(capsys):
    rc = maui_sim_main([str(trace_path("KTH-SP2-1996-2.1-cln.swf.gz")), "--jobs", "400",
                        "--poll", "60", "-q"])
    out = capsys.readouterr().out
    assert rc == 0 and "KTH-SP2-1996-2.1-cln.swf.gz on 100 nodes, 100 procs" in out


def test_usage_errors_are_clear(tmp_path, capsys):
    bad = tmp_path / "bad.cfg"
    bad.write_text("RESERVATIONDEPTH abc\n")
    assert maui_sim_main(["-c", str(bad), "--synthetic", "10", "-q"]) == 2
    assert "RESERVATIONDEPTH" in capsys.readouterr().err
    assert maui_sim_main(["compare", "-c", str(bad)]) == 2
    assert maui_sim_main(["--nodes", "12y", "--synthetic", "10", "-q"]) == 2
    assert "maui-sim:" in capsys.readouterr().err
