"""maui-sim as a user runs it: the summary, compare, a real trace, the report folder, the
progress lines and the simulator store's clock."""

import argparse
import csv
import io
import json
import re
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

from maui_py.cli import simulate, whatif
from maui_py.cli.main import main, maui_sim_main
from maui_py.sim.report import cell
from maui_py.sim.timefmt import TraceClock, maui_dates, sim_clock
from maui_py.store import StoreReader

from ..sim.small_trace import write_trace
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
    assert re.search(r"^wall time\s+\d\d:\d\d:\d\d\s+\d\d:\d\d:\d\d$", out, re.M)


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


# ---------------------------------------------------------------- the report, for people
def _self_contained(html: str) -> None:
    """No script, no stylesheet link, no image or anything else fetched: one file."""
    assert not re.search(r"<(script|link|img|iframe|object)\b", html, re.I)
    assert not re.search(r"""\b(src|href)\s*=""", html, re.I)
    assert "url(" not in html and "@import" not in html
    for svg in re.findall(r"<svg\b.*?</svg>", html, re.S):
        ET.fromstring(svg)


def test_a_trace_replay_prints_human_durations_the_sites_dates_and_a_per_class_table(tmp_path, capsys):
    trace = write_trace(tmp_path / "small.swf")
    rc = maui_sim_main([str(trace), "-c", "config/easy.cfg", "--out", str(tmp_path / "r"), "-q"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "period: 1996-09-23 14:" in out and " CEST to 1996-" in out
    assert re.search(r"^makespan\s+\d+d \d\d:\d\d:\d\d$", out, re.M)
    assert re.search(r"^wait mean\s+(\d+d )?\d\d:\d\d:\d\d$", out, re.M)
    assert re.search(r"^wall time\s+\d\d:\d\d:\d\d$", out, re.M) and "(s)" not in out
    by_class = out.split("by class:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert by_class[0].split()[:3] == ["class", "jobs", "wait"]
    assert [row.split()[0] for row in by_class[2:]] == ["queue1", "queue2", "queue3", "queue4"]
    assert sum(int(row.split()[1]) for row in by_class[2:]) == 240
    data = json.loads((tmp_path / "r" / "report.json").read_text())
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    run = data["runs"][0]
    assert {k: summary["config/easy.cfg"][k] for k in run["total"]} == run["total"]
    assert data["period"]["first_submit_date"].startswith("1996-09-23 14:")
    assert data["clock"] == {"unix_start": 843480031, "time_zone": "Europe/Stockholm"}
    assert set(run["by_class"]) == {"queue1", "queue2", "queue3", "queue4"} and len(run["by_user"]) == 6
    html = (tmp_path / "r" / "index.html").read_text()
    _self_contained(html)
    for text in ("small.swf", "Test Site, Test Cluster", "32 nodes x 1 proc (32 procs)", "config/easy.cfg",
                 "RESERVATIONDEPTH", "0.1.0", "<h3>Class</h3>", "<h3>Users</h3>", "<h3>Job size</h3>",
                 "Utilization (moving average)", "Wait time distribution", "Mean bounded slowdown",
                 cell("wait_mean", run["total"]["wait_mean"]), "1996-09-23"):
        assert text in html, text


def test_compare_writes_one_report_with_the_differences_marked(tmp_path, capsys):
    trace = write_trace(tmp_path / "small.swf")
    odd = tmp_path / "<b>odd&.cfg"
    odd.write_text("RESERVATIONDEPTH 8\nBACKFILLPOLICY NONE\n")
    rc = maui_sim_main(["compare", str(trace), "-c", "config/easy.cfg", "-c", str(odd),
                        "--out", str(tmp_path / "c"), "-q"])
    assert rc == 0
    assert "period: 1996-09-23" in capsys.readouterr().out
    html = (tmp_path / "c" / "index.html").read_text()
    _self_contained(html)
    assert "<b>odd" not in html and "&lt;b&gt;odd&amp;.cfg" in html
    assert "Configurations side by side" in html
    row = re.search(r'<tr class="changed"><td>BACKFILLPOLICY</td><td>FIRSTFIT</td><td>NONE</td></tr>', html)
    assert row, "a setting that differs is marked"
    # easy.cfg's QUEUETIMEWEIGHT 1 is the default the other file keeps: the same setting (issue 35 item 7)
    assert re.search(r'<tr class=""><td>QUEUETIMEWEIGHT</td><td>1</td><td>1 <i>\(default\)</i></td>', html)
    assert re.search(r'<tr class="changed"><td>RESERVATIONDEPTH</td><td>1</td><td>8</td>', html)
    assert "Each line is a centred moving average over about " in html
    a, b = (r["total"] for r in json.loads((tmp_path / "c" / "report.json").read_text())["runs"])
    differing = [k for k in ("wait_mean", "bsld_mean", "backfill_share") if a[k] != b[k]]
    assert differing, "the two policies schedule differently"
    for k in differing:
        assert re.search(rf'<td class="(better|worse|changed)">{re.escape(cell(k, b[k]))}', html), k
    assert b["backfill_share"] == 0 and a["backfill_share"] > 0


def test_progress_lines_on_a_pipe_with_an_eta():
    ticks = iter(range(0, 10**6, 3))
    out = io.StringIO()
    jobs = [type("SJ", (), {"job": type("J", (), {"submit_time": t})()})() for t in range(0, 1000, 10)]
    p = simulate.Progress(jobs, "maui-sim x.cfg", TraceClock(), stream=out, tty=False, every=5,
                          timer=lambda: next(ticks))
    for t in range(0, 1000, 5):
        p.on_cycle(t)
    lines = out.getvalue().splitlines()
    assert lines and all(line.startswith("maui-sim x.cfg: ") for line in lines)
    assert re.search(r"jobs submitted, ETA \d\d:\d\d:\d\d, 00:00:\d\d elapsed, at day 1 00:", lines[0])
    first = lines[0]
    done = int(first.split(": ", 1)[1].split("/")[0])
    assert 0 < done < 100 and "\r" not in out.getvalue()


def test_progress_is_quiet_with_q_and_reports_on_a_pipe_without(tmp_path, capsys, monkeypatch):
    trace = write_trace(tmp_path / "small.swf")
    monkeypatch.setattr(simulate, "PROGRESS_SECONDS", 0)
    assert maui_sim_main([str(trace), "-q"]) == 0
    assert "jobs submitted" not in capsys.readouterr().err
    assert maui_sim_main([str(trace)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert any(re.search(r"jobs submitted, (ETA|draining).* elapsed, at 1996-\d\d-\d\d ", line) for line in err)
    assert err[-1].startswith("maui-sim Maui defaults: 240 jobs replayed in ")


def test_a_simulator_store_keeps_the_traces_clock_for_the_commands(tmp_path, capsys):
    trace = write_trace(tmp_path / "small.swf")
    db = tmp_path / "sim.db"
    assert maui_sim_main([str(trace), "-q", "--store", str(db), "--store-at", "7200"]) == 0
    assert re.search(r"simulated cycle \d+ at 1996-09-23 1[56]:\d\d:\d\d CEST", capsys.readouterr().out)
    with StoreReader.open(db) as reader:
        record = reader.kv()["cycle"]
        now = reader.cycle_info().now
    clock = sim_clock(record)
    assert clock == {"unix_start": 843480031, "time_zone": "Europe/Stockholm"}
    assert re.fullmatch(r"Mon Sep 23 1[56]:\d\d:\d\d 1996\n", maui_dates(clock)(now))


def test_gitignore_lists_the_folders_the_tour_writes():
    ignored = (Path(__file__).resolve().parents[2] / ".gitignore").read_text().splitlines()
    assert "/sim-report/" in ignored and "/out/" in ignored


ROOT = Path(__file__).resolve().parents[2]


def _tour_commands() -> tuple[list[list[str]], str]:
    """The README tour's maui-sim and curl commands (continuations joined, comments dropped)
    and the tour's text."""
    section = (ROOT / "README.md").read_text().split("## A tour", 1)[1].split("\n## ", 1)[0]
    commands, current = [], ""
    for line in section.splitlines():
        if not line.startswith("    "):
            current = ""
            continue
        current += " " + line.strip()
        if current.endswith("\\"):
            current = current[:-1]
            continue
        words = shlex.split(current, comments=True)
        current = ""
        if words and words[0] in (".venv/bin/maui-sim", "curl"):
            commands.append(words)
    return commands, section


def test_the_readme_tour_is_runnable_as_written(tmp_path, capsys):
    commands, section = _tour_commands()
    sims = [c[1:] for c in commands if c[0].endswith("maui-sim")]
    curl = [c for c in commands if c[0] == "curl"]
    assert len(sims) >= 3 and len(curl) == 1 and "TRACE" not in section.split()
    fetched = curl[0][-1].rsplit("/", 1)[1]
    assert curl[0][-1].startswith("https://www.cs.huji.ac.il/labs/parallel/workload/")
    parser = argparse.ArgumentParser()
    simulate.add_arguments(parser)
    whatif_parser = argparse.ArgumentParser()
    whatif.add_arguments(whatif_parser)
    for argv in [a[1:] for a in sims if a[0] == "whatif"]:
        args = whatif_parser.parse_args(argv)
        assert all((ROOT / c).is_file() for c in args.config), argv
        assert [Path(x).name for x in args.logs] == [fetched], argv
    sims = [a for a in sims if a[0] not in simulate.SUBCOMMANDS]
    for argv in sims:
        args = parser.parse_args(argv)
        assert all((ROOT / c).is_file() for c in args.config), argv
        traces = [w for w in args.words if w != "compare"]
        assert traces in ([], [fetched]), argv
        if args.out:
            assert str(args.out).split("/")[0] == "sim-report"
    generated = next(a for a in sims if not parser.parse_args(a).words)
    argv = [w if w != "sim-report/" else str(tmp_path / "r") for w in generated]
    assert maui_sim_main([*argv, "-q"]) == 0
    printed = capsys.readouterr().out
    assert (tmp_path / "r" / "index.html").is_file()
    shown = section.split("    by class:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert shown[0].split() == ["class", "jobs", "wait", "mean", "bounded", "slowdown", "(10", "s)",
                                "backfill", "share"]
    size_header = printed.split("by job size (procs):\n", 1)[1].splitlines()[0]
    assert shown[0].split()[1:] == size_header.split()[3:]     # the columns maui-sim prints
    for row in shown[2:]:
        assert re.fullmatch(r"\s*queue\d\s+\d+\s+(\d+d )?\d\d:\d\d:\d\d\s+\d+\.\d\d\s+0\.\d{3}", row), row
