"""maui-sim given the wrong file, warnings for people, one meaning per option name, progress
on a pipe (issue 35, items 4 and 5)."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest

from maui_py.cli import whatif
from maui_py.cli.main import maui_sim_main
from maui_py.cli.warnlines import warning_lines

ROOT = Path(__file__).resolve().parents[2]
SACCT = ROOT / "tests" / "adapters" / "data" / "sacct" / "sacct-P.txt"
JOB = "{k} {t} 0 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1"


def _run(capsys, *argv: str) -> tuple[int, list[str]]:
    rc = maui_sim_main([*argv, "-q"])
    return rc, capsys.readouterr().err.splitlines()


@pytest.mark.parametrize("name", ["sacct.txt", "sacct.swf", "sacct.swf.gz"])
def test_a_sacct_log_is_refused_in_one_line_that_says_what_to_run(tmp_path, capsys, name):
    path = tmp_path / name
    path.write_bytes(SACCT.read_bytes())
    rc, err = _run(capsys, str(path))
    assert rc == 2
    assert len(err) == 1, err
    assert "this looks like sacct -P output: use maui-sim whatif --format sacct or maui-sim convert" \
        in err[0].replace(" (named .gz but not gzip data)", "")
    assert ".py:" not in err[0] and "Warning" not in err[0]


@pytest.mark.parametrize("content, says", [
    (b"", "empty"), (b"hello world\nthis is text\n", "no line of it is an SWF job"),
    (b"; Version: 2.2\n; MaxProcs: 8\n", "no job line"),
    (b"JobId=1 UserId=a(1) JobState=COMPLETED\n", "jobcomp"),
    (b"11/02/2026 08:00:00;E;1.srv;user=a\n", "Torque accounting")])
def test_a_file_without_any_swf_job_exits_2_and_says_what_it_is(tmp_path, capsys, content, says):
    path = tmp_path / "trace.swf.gz"
    path.write_bytes(content)
    rc, err = _run(capsys, str(path))
    assert rc == 2 and len(err) == 1 and says in err[0], err
    assert err[0].startswith(f"maui-sim: {path}: nothing to replay")


def test_many_malformed_lines_print_as_file_line_message_then_a_count(tmp_path, capsys):
    path = tmp_path / "mixed.swf"
    path.write_text("; MaxProcs: 8\n" + "".join(JOB.format(k=k, t=10 * k) + "\n" for k in range(1, 40))
                    + "".join(f"junk {k}\n" for k in range(30)))
    rc, err = _run(capsys, str(path))
    assert rc == 0
    assert err[:10] == [f"{path}:{n}: skipped malformed SWF line (2 fields; expected 18 numbers)"
                        for n in range(41, 51)]
    assert err[10] == "... and 20 more skipped lines like these (30 in all)"
    assert not any(".py:" in line or "SwfFormatWarning" in line for line in err)


def test_warning_lines_counts_what_an_importer_already_summed_up():
    msgs = [f"a.log:{n}: skipped" for n in range(1, 21)] + ["a.log: 30 more malformed sacct lines skipped (50 in all)",
                                                           "something else"]
    assert warning_lines(msgs) == [f"a.log:{n}: skipped" for n in range(1, 11)] + [
        "something else", "... and 40 more skipped lines like these (50 in all)"]


def test_workers_is_the_process_count_and_the_old_jobs_still_works_with_a_note(capsys):
    parser = argparse.ArgumentParser(prog="maui-sim whatif")
    whatif.add_arguments(parser)
    assert parser.parse_args(["x.log", "--workers", "3"]).workers == 3
    assert capsys.readouterr().err == ""
    for old in ("--jobs", "-j"):
        assert parser.parse_args(["x.log", old, "2"]).workers == 2
        assert "is now --workers" in capsys.readouterr().err
    assert parser.parse_args(["x.log"]).workers == 1
    assert "--jobs" not in parser.format_help() and "--workers" in parser.format_help()


def test_maui_sim_help_names_whatif_and_convert(capsys):
    with pytest.raises(SystemExit):
        maui_sim_main(["--help"])
    out = capsys.readouterr().out
    assert "maui-sim whatif" in out and "maui-sim convert" in out


class _Pipe(io.StringIO):
    def isatty(self) -> bool:
        return False


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_whatif_progress_on_a_pipe_is_one_line_per_run_without_carriage_returns():
    pipe, tty = _Pipe(), _Tty()
    for stream in (pipe, tty):
        show = whatif.run_progress(stream)
        for k in range(1, 4):
            show(k, 3)
    assert pipe.getvalue() == "run 1/3\nrun 2/3\nrun 3/3\n"
    assert tty.getvalue() == "\rrun 1/3\rrun 2/3\rrun 3/3\n"


def test_whatif_summary_says_how_many_records_were_not_replayed(tmp_path, capsys):
    cfg = tmp_path / "c.cfg"
    cfg.write_text((ROOT / "config" / "easy.cfg").read_text())
    status = whatif.main(["whatif", str(SACCT), "--cluster", str(SACCT.with_name("sinfo-N.txt")),
                          "-c", str(cfg), "--set", "RESERVATIONDEPTH=2", "--shakes", "2", "-q",
                          "--workers", "1", "--out", str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert status == 0
    data = json.loads((tmp_path / "o" / "whatif.json").read_text())
    left = sum((data["skipped"] | data["left_out"]).values())
    assert left > 0
    line = out.splitlines()[1]
    assert line.strip().startswith(f"{left} records not replayed:"), out
    assert "never started (cancelled or still queued): 1" in line


def test_a_converted_sacct_log_replays_with_the_names_its_header_notes_give(tmp_path, capsys):
    from maui_py.sim.importers.swfsource import read_swf_workload
    swf = tmp_path / "site.swf"
    assert whatif.main(["convert", str(SACCT), "-o", str(swf)]) == 0
    assert "; Note: queue 1 = batch" in swf.read_text()
    capsys.readouterr()
    assert maui_sim_main([str(swf), "--nodes", "4x8", "-q"]) == 0
    out = capsys.readouterr().out
    classes = out.split("by class:\n", 1)[1].split("\n\n", 1)[0]
    assert "batch" in classes and "gpu" in classes and "queue1" not in classes
    w = read_swf_workload(swf)
    assert {j.class_ for j in w.jobs} == {"batch", "gpu"}
    assert {j.user for j in w.jobs} <= {"alice", "bob", "carol", "dave"}
    assert {j.account for j in w.jobs} <= {"proj-a", "proj-b", "proj-c"}


def test_a_note_that_is_not_one_printable_word_is_not_a_name():
    from maui_py.sim.swf import SwfHeader
    from maui_py.sim.swfnames import header_names
    header = SwfHeader(("; Note: queue 1 = batch", "; Note: user 2 = a\u202eb", "; Note: user 3 = two words",
                        "; Note: user 4 = " + "x" * 200, "; Note: group 5 = g5"))
    assert header_names(header) == {"class_": {1: "batch"}, "group": {5: "g5"}}
