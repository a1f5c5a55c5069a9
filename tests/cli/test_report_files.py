"""The files maui-sim, `maui-sim compare`, `whatif` and `convert` write: never through a link
planted in the output folder (issue 34 item 9), jobs.csv's columns (issue 35 item 10) and the
progress while a large report is written (issue 34, a 2-million-job replay wrote silently)."""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import pytest

from maui_py.cli import simulate
from maui_py.cli.main import maui_sim_main
from maui_py.cli.whatif import main as whatif_main
from maui_py.sim import outfile, report

ROOT = Path(__file__).resolve().parents[2]
SACCT_DIR = ROOT / "tests" / "adapters" / "data" / "sacct"
PRECIOUS = "root's file, not to be overwritten\n"


def _plant(folder: Path, names: list[str], outside: Path) -> dict[str, Path]:
    """Links named like report files in `folder`, each to its own file in `outside`."""
    folder.mkdir(parents=True, exist_ok=True)
    outside.mkdir(parents=True, exist_ok=True)
    targets = {}
    for name in names:
        target = outside / f"target-{name}"
        target.write_text(PRECIOUS)
        os.symlink(target, folder / name)
        targets[name] = target
    return targets


def _assert_not_followed(folder: Path, targets: dict[str, Path]) -> None:
    for name, target in targets.items():
        assert target.read_text() == PRECIOUS, f"{name} was written through the link"
        assert not (folder / name).is_symlink() and (folder / name).is_file(), name
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]      # nothing left over


def test_maui_sim_out_replaces_planted_links_and_never_follows_them(tmp_path):
    names = ["jobs.csv", "index.html", "report.json", "summary.txt", "summary.json"]
    targets = _plant(tmp_path / "out", names, tmp_path / "outside")
    assert maui_sim_main(["--synthetic", "40", "--out", str(tmp_path / "out"), "-q"]) == 0
    _assert_not_followed(tmp_path / "out", targets)
    assert (tmp_path / "out" / "index.html").read_text().startswith("<!doctype html>")


def test_compare_out_never_follows_planted_links(tmp_path):
    names = ["jobs-easy.csv", "jobs-conservative.csv", "index.html", "report.json"]
    targets = _plant(tmp_path / "out", names, tmp_path / "outside")
    assert maui_sim_main(["compare", "-c", str(ROOT / "config" / "easy.cfg"),
                          "-c", str(ROOT / "config" / "conservative.cfg"), "--synthetic", "30",
                          "--out", str(tmp_path / "out"), "-q"]) in (0, 1)
    _assert_not_followed(tmp_path / "out", targets)


def test_whatif_out_and_convert_never_follow_planted_links(tmp_path):
    targets = _plant(tmp_path / "out", ["whatif.html", "whatif.json"], tmp_path / "outside")
    cfg = tmp_path / "easy.cfg"
    cfg.write_text((ROOT / "config" / "easy.cfg").read_text())
    status = whatif_main(["whatif", str(SACCT_DIR / "sacct-live.txt"), "--cluster",
                          str(SACCT_DIR / "sinfo-N-live.txt"), "-c", str(cfg), "--set",
                          "RESERVATIONDEPTH=2", "--shakes", "1", "-q", "--out", str(tmp_path / "out")])
    assert status == 0
    _assert_not_followed(tmp_path / "out", targets)
    swf = _plant(tmp_path / "conv", ["out.swf"], tmp_path / "outside2")
    assert whatif_main(["convert", str(SACCT_DIR / "sacct-live.txt"), "-o",
                        str(tmp_path / "conv" / "out.swf")]) == 0
    _assert_not_followed(tmp_path / "conv", swf)
    assert (tmp_path / "conv" / "out.swf").read_text().startswith(";")


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "jobs.csv"
    path.write_text("old\n")
    with pytest.raises(RuntimeError):
        with outfile.replacing(path) as fh:
            fh.write("half")
            raise RuntimeError("disk full")
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["jobs.csv"]


def test_jobs_csv_names_user_group_account_and_queue(tmp_path):
    assert maui_sim_main(["--synthetic", "30", "--out", str(tmp_path), "-q"]) == 0
    rows = list(csv.DictReader(open(tmp_path / "jobs.csv")))
    assert len(rows) == 30
    assert {"user", "group", "account", "queue"} <= set(rows[0])
    assert all(r["user"].startswith("user") and r["group"].startswith("group") for r in rows)
    assert all(r["queue"] == r["class"] for r in rows)


def test_report_writing_reports_progress_row_by_row(tmp_path, monkeypatch):
    """write_report tells what it writes, and jobs.csv's rows as they go (every
    CSV_PROGRESS_ROWS rows), so a long write is not silent."""
    monkeypatch.setattr(report, "CSV_PROGRESS_ROWS", 7)
    from maui_py.cfg import SchedulerConfig
    from maui_py.sim.engine import Simulation
    from maui_py.sim.lublin import generate
    from maui_py.sim.swf import clean, to_sim_jobs
    records, _ = clean(generate(30, 16, 1), 16)
    from maui_py.sim.cluster import parse_cluster
    result = Simulation(parse_cluster("16x1"), to_sim_jobs(records), SchedulerConfig.default()).run()
    notes: list[str] = []
    report.write_report([("defaults", result)], tmp_path, progress=notes.append)
    rows = [n for n in notes if n.startswith("writing jobs.csv:")]
    assert rows == [f"writing jobs.csv: {k} of 30 jobs" for k in (7, 14, 21, 28)]
    assert notes.index("writing report.json") < notes.index("writing index.html")


def test_write_notes_are_throttled_and_only_for_large_replays():
    now = [0.0]
    out = io.StringIO()
    notes = simulate.WriteNotes(200_000, stream=out, every=5.0, timer=lambda: now[0])
    for step in range(12):
        notes(f"step {step}")
        now[0] += 1.0
    notes.done()
    lines = out.getvalue().splitlines()
    assert [line.split(" (")[0] for line in lines[:-1]] == [
        "maui-sim: step 0", "maui-sim: step 5", "maui-sim: step 10"]
    assert lines[-1].startswith("maui-sim: report written in")
    small = io.StringIO()
    few = simulate.WriteNotes(500, stream=small)
    few("writing jobs.csv")
    few.done()
    assert small.getvalue() == ""
