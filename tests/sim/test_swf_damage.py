"""Damaged SWF traces: numbers ASCII and bounded record by record, a header that would drop
every job, and duplicate job ids (issue 34 items 7 and 8). Each bad record is skipped or
renumbered with a warning naming file:line; everything else replays."""

from __future__ import annotations

import csv
import json
import warnings
from pathlib import Path

import pytest

from maui_py.cli.main import maui_sim_main
from maui_py.cli.whatif import main as whatif_main
from maui_py.sim.swf import SwfFormatWarning, clean, read_swf, unique_ids

GOOD = "{id} {submit} -1 600 {procs} -1 -1 {procs} 900 -1 1 {user} 1 -1 1 -1 -1 -1"


def _trace(tmp_path: Path, lines: list[str], header: str = "; MaxProcs: 2") -> Path:
    path = tmp_path / "t.swf"
    path.write_text("\n".join([header, *lines]) + "\n")
    return path


def _read(path: Path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SwfFormatWarning)
        header, records = read_swf(path)
    return header, records, [str(w.message) for w in caught]


@pytest.mark.parametrize("token", ["３００", "٣", "1_0", "1e300", "1000000000000000"])
def test_numbers_are_ascii_and_bounded_record_by_record(tmp_path, token):
    lines = [GOOD.format(id=1, submit=0, procs=1, user=1),
             GOOD.format(id=2, submit=token, procs=1, user=1),
             GOOD.format(id=3, submit=10, procs=token, user=1),
             GOOD.format(id=4, submit=20, procs=2, user=1)]
    header, records, messages = _read(_trace(tmp_path, lines))
    assert [r.job_id for r in records] == [1, 4] and header.malformed == 2
    assert [m.split(" ")[0] for m in messages] == [f"{tmp_path}/t.swf:3:", f"{tmp_path}/t.swf:4:"]
    assert "submit" in messages[0] and "alloc_procs" in messages[1]


def test_a_negative_maxprocs_header_is_warned_and_ignored(tmp_path, capsys):
    lines = [GOOD.format(id=k, submit=10 * k, procs=1, user=1) for k in range(1, 4)]
    path = _trace(tmp_path, lines, header="; MaxProcs: -5")
    header, _records, messages = _read(path)
    assert header.max_procs is None and header.raw_int("MaxProcs") == -5
    assert messages == [f"{path}:1: header MaxProcs: -5 is out of range [1, 10000000]: ignored"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SwfFormatWarning)
        assert maui_sim_main([str(path), "--out", str(tmp_path / "out"), "-q"]) == 0
    rows = list(csv.DictReader(open(tmp_path / "out" / "jobs.csv")))
    assert len(rows) == 3 and all(r["end"] for r in rows)


DUPLICATES = [GOOD.format(id=1, submit=0, procs=1, user=1),
              GOOD.format(id=1, submit=0, procs=1, user=2),
              GOOD.format(id=2, submit=0, procs=1, user=3),
              GOOD.format(id=3, submit=5, procs=1, user=4)]
"""The issue's trace: job 1 twice, then jobs 2 and 3, on two one-processor nodes."""


def test_duplicate_job_ids_are_warned_about_and_renumbered_for_a_replay(tmp_path):
    path = _trace(tmp_path, DUPLICATES)
    header, records, messages = _read(path)
    assert [r.job_id for r in records] == [1, 1, 2, 3] and header.duplicates == 1
    assert [r.job_id for r in unique_ids(records)] == [1, 4, 2, 3]
    assert [r.user for r in records] == [1, 2, 3, 4]
    assert messages == [f"{path}:3: job id 1 is used by an earlier line: replayed as job 4"]


def test_duplicate_job_ids_replay_consistently(tmp_path, capsys):
    path = _trace(tmp_path, DUPLICATES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SwfFormatWarning)
        status = maui_sim_main([str(path), "--nodes", "2x1", "--out", str(tmp_path / "out"), "-q"])
    out = capsys.readouterr().out
    assert status == 0 and "over-allocated" not in out
    rows = list(csv.DictReader(open(tmp_path / "out" / "jobs.csv")))
    assert sorted(r["id"] for r in rows) == ["1", "2", "3", "4"] and all(r["end"] for r in rows)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert next(iter(summary.values()))["finished"] == 4


def test_whatif_counts_every_duplicate_once_in_its_tables(tmp_path, capsys):
    path = _trace(tmp_path, DUPLICATES)
    cfg = tmp_path / "a.cfg"
    cfg.write_text("RESERVATIONDEPTH 1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SwfFormatWarning)
        status = whatif_main(["whatif", str(path), "--nodes", "2x1", "-c", str(cfg), "--set",
                              "RESERVATIONDEPTH=2", "--shakes", "2", "-q", "--out", str(tmp_path / "o")])
    assert status == 0
    data = json.loads((tmp_path / "o" / "whatif.json").read_text())
    users = data["comparisons"][0]["groups"]["user"]
    assert data["jobs"] == 4 and sum(u["n"] for u in users.values()) == 4
    assert all(c["violations"] == 0 for c in data["configs"])


def test_cleaning_drops_times_past_a_century_and_counts_them(tmp_path):
    lines = [GOOD.format(id=1, submit=0, procs=1, user=1),
             GOOD.format(id=2, submit=10 ** 12, procs=1, user=1),
             GOOD.format(id=3, submit=50, procs=1, user=1)]
    _header, records, messages = _read(_trace(tmp_path, lines))
    assert len(records) == 3 and not messages          # 10^12 is a number, not damage
    kept, report = clean(records, 2)
    assert [r.job_id for r in kept] == [1, 3] and report.out_of_range == 1
    assert report.dropped == 1 and "past 100 years" in report.summary()
