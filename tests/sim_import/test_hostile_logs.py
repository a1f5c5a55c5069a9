"""Accounting logs with text a user chose (job names) or damaged numbers: no field shifts, no
forged record, every bad record skipped with file:line and the others read (issue 34 items
6 and 8)."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.sim.importers.nodes import parse_sinfo_text
from maui_py.sim.importers.slurm import SACCT_FIELDS, parse_jobcomp, parse_sacct
from maui_py.sim.importers.torque import parse_accounting
from maui_py.sim.importers.workload import ImportLineWarning

HEADER = "|".join(SACCT_FIELDS)


def _row(jid: str, name: str, user: str = "mallory", cpus: str = "1", constraint: str = "") -> str:
    return "|".join([jid, jid, name, user, "mgrp", "proj-m", "batch", "normal",
                     "2026-11-02T08:00:00", "2026-11-02T08:00:00", "2026-11-02T08:00:05",
                     "2026-11-02T08:10:05", "00:20:00", "1", cpus, "100M",
                     f"billing={cpus},cpu={cpus},mem=100M,node=1",
                     f"billing={cpus},cpu={cpus},mem=100M,node=1", "node1", "COMPLETED", "0:0",
                     constraint])


FORGED_TAIL = ("victim|victim|proj-v|batch|normal|2026-11-02T08:00:00|2026-11-02T08:00:00|"
               "2026-11-02T08:00:05|2026-11-03T08:00:05|1-00:00:00|4|32|400M|"
               "billing=32,cpu=32,mem=400M,node=4|billing=32,cpu=32,mem=400M,node=4|node[1-4]|"
               "COMPLETED|0:0|")
"""What a job name would hold to forge every field after it (the issue's example)."""


def _parse(text: str, name: str = "acct.txt"):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ImportLineWarning)
        w = parse_sacct(text, name)
    return w, [str(c.message) for c in caught]


def test_a_job_name_cannot_forge_the_fields_after_it():
    text = "\n".join([HEADER, _row("201", "ok"), _row("202", "a|" + FORGED_TAIL),
                      _row("203", "after")]) + "\n"
    w, messages = _parse(text)
    assert {j.id for j in w.jobs} == {"201", "203"}
    assert all(j.user == "mallory" and j.procs == 1 for j in w.jobs)
    assert any(m.startswith("acct.txt:3: ") and "more than one way" in m for m in messages)


def test_a_pipe_in_a_name_with_one_reading_is_read_and_constraints_still_are():
    text = "\n".join([HEADER, _row("301", "a|victim"), _row("302", "x", constraint="fast|slow"),
                      _row("303", "p|q", constraint="fast&ib")]) + "\n"
    w, messages = _parse(text)
    jobs = {j.id: j for j in w.jobs}
    assert set(jobs) == {"301", "302", "303"} and not messages
    assert (jobs["301"].user, jobs["301"].name, jobs["301"].group) == ("mallory", "a|victim", "mgrp")
    assert jobs["302"].features == () and jobs["303"].features == ("fast", "ib")
    assert jobs["303"].name == "p|q"


@pytest.mark.parametrize("sep", ["\u2028", "\x0c", "\x1c", "\x85", "\x0b", "\u2029", "\r"])
def test_only_newline_ends_a_record(sep):
    """A name holding another line end: the record stays one record, its user is its own."""
    forged = _row("666", "evil", user="victim", cpus="32")
    text = "\n".join([HEADER, _row("401", "x" + sep + forged), _row("402", "fine")]) + "\n"
    w, _messages = _parse(text)
    assert "666" not in {j.id for j in w.jobs}
    assert all(j.user == "mallory" for j in w.jobs) and "402" in {j.id for j in w.jobs}


def test_rows_with_too_few_columns_are_skipped_never_joined():
    row = _row("501", "x").split("|")
    text = "\n".join([HEADER, "|".join(row[:10]), _row("502", "y"), "|".join(row[:-2])]) + "\n"
    w, messages = _parse(text, "short.txt")
    assert [j.id for j in w.jobs] == ["502"]
    assert [m.split(" ")[0] for m in messages] == ["short.txt:2:", "short.txt:4:"]


def test_jobcomp_lines_end_only_at_newline():
    line = ("JobId=7 UserId=amy(1001) GroupId=amy(1001) Name=a\u2028JobId=8 UserId=victim(0) "
            "JobState=COMPLETED Partition=batch TimeLimit=10 StartTime=2026-11-02T08:00:05 "
            "EndTime=2026-11-02T08:10:05 NodeList=node1 NodeCnt=1 ProcCnt=1 "
            "SubmitTime=2026-11-02T08:00:00")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ImportLineWarning)
        w = parse_jobcomp(line + "\n", "comp.txt")
    assert {j.user for j in w.jobs} <= {"amy"} and "8" not in {j.id for j in w.jobs}


def test_sinfo_gres_counts_are_bounded():
    text = "node1|8|8000|fast|gpu:99999999999|batch\nnode2|8|8000|fast|gpu:2|batch\n"
    with pytest.warns(ImportLineWarning, match=r"sinfo.txt:1: .*gres"):
        nodes = parse_sinfo_text(text, "sinfo.txt")
    assert [(n.name, n.resources.gres_count("gpu")) for n in nodes] == [("node2", 2)]


def test_sinfo_counts_are_ascii_digits():
    text = "node1|８|8000|fast|gpu:٣|batch\nnode2|8|8000|fast|(null)|batch\n"
    with pytest.warns(ImportLineWarning, match=r"sinfo.txt:1: "):
        nodes = parse_sinfo_text(text, "sinfo.txt")
    assert [n.name for n in nodes] == ["node2"]


def test_torque_job_name_cannot_override_the_records_own_fields():
    rec = ("11/02/2026 08:10:05;E;77.server;user=mallory group=mgrp "
           "jobname=x user=victim group=victim queue=vip account=proj-v queue=batch ctime=1793606400 "
           "qtime=1793606400 etime=1793606400 start=1793606405 end=1793607005 "
           "Resource_List.nodes=1 Resource_List.walltime=00:20:00 Exit_status=0")
    w = parse_accounting([("acct", rec + "\n")])
    (job,) = w.jobs
    assert (job.user, job.group, job.class_, job.account) == ("mallory", "mgrp", "batch", "")
    assert job.name == "x user=victim group=victim queue=vip account=proj-v"


PIECES = ["|", "victim", "32", "4", "node[1-4]", "COMPLETED", "0:0", "2026-11-02T08:00:00",
          "1-00:00:00", "billing=32,cpu=32,node=4", "fast", "\u2028", "\x85", "\r", "a", " "]


@settings(max_examples=300, deadline=None)
@given(name=st.lists(st.sampled_from(PIECES), max_size=40).map("".join),
       constraint=st.sampled_from(["", "fast", "fast|slow", "a|b|c", "fast&ib"]))
def test_no_job_name_makes_a_record_of_another_shape(name, constraint):
    """Whatever a user names a job, its record is read as its own (user, size, constraint)
    or skipped with a warning naming the line; never read as another user's or size."""
    text = "\n".join([HEADER, _row("901", name, constraint=constraint), _row("902", "next")]) + "\n"
    w, messages = _parse(text)
    jobs = {j.id: j for j in w.jobs}
    assert "902" in jobs and set(jobs) <= {"901", "902"}
    for j in jobs.values():
        assert (j.user, j.group, j.procs, j.nodes) == ("mallory", "mgrp", 1, 1)
    if "901" in jobs:
        assert jobs["901"].name == name.strip()
    else:
        assert any(m.startswith("acct.txt:2: ") for m in messages)


def test_logs_of_several_files_give_one_job_per_id(tmp_path):
    from maui_py.sim.importers import load_workload
    one = _row("601", "a") + "\n" + _row("602", "b") + "\n"
    (tmp_path / "a.txt").write_text(HEADER + "\n" + one)
    (tmp_path / "b.txt").write_text(HEADER + "\n" + _row("602", "b2") + "\n" + _row("603", "c") + "\n")
    w = load_workload([tmp_path / "a.txt", tmp_path / "b.txt"], "sacct")
    assert [(j.id, j.name) for j in w.jobs] == [("601", "a"), ("602", "b2"), ("603", "c")]
    swf = "1 0 -1 60 1 -1 -1 1 90 -1 1 1 1 -1 1 -1 -1 -1\n2 5 -1 60 1 -1 -1 1 90 -1 1 2 1 -1 1 -1 -1 -1\n"
    for name in ("x.swf", "y.swf"):
        (tmp_path / name).write_text("; MaxProcs: 4\n" + swf)
    w = load_workload([tmp_path / "x.swf", tmp_path / "y.swf"], "swf")
    assert sorted(j.id for j in w.jobs) == ["1", "1.2", "2", "2.2"]


def test_a_step_row_with_a_pipe_in_its_name_is_still_a_step_row():
    step = _row("701.0", "a|" + FORGED_TAIL)          # a reading the shapes cannot settle
    text = "\n".join([HEADER, _row("701", "x"), step]) + "\n"
    w, messages = _parse(text)
    assert [j.id for j in w.jobs] == ["701"] and not messages
    assert w.skipped["job step row (the allocation row holds the job)"] == 1
