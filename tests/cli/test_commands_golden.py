"""The Maui commands on a fixed store (tests/cli/fixture.py): exact text, column for column,
against golden files, and --json carrying the same data (the text is rendered from it).

Regenerate the golden files after an intended layout change with MAUI_PY_REGOLD=1 and
review the diff: they are the layouts of spec §4 filled with the fixture's jobs.
"""

from __future__ import annotations

import importlib
import json
import os
import time
from pathlib import Path

import pytest

from maui_py.cfg import load_config
from maui_py.cli import common, showbf
from maui_py.cli.view import View
from maui_py.cli.main import COMMANDS, run_single
from maui_py.daemon.lock import lock_path
from maui_py.model import Acl, Job, JobRequest, Reservation, ReservationKind, Resources
from maui_py.model.times import multodstring, multotstring
from maui_py.store import StoreReader

from .fixture import T, write_store

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "showq": ["showq"],
    "showq_r": ["showq", "-r"],
    "showq_i": ["showq", "-i"],
    "showq_b": ["showq", "-b"],
    "showq_u_alice": ["showq", "-u", "alice"],
    "showres": ["showres"],
    "showres_n": ["showres", "-n"],
    "showbf": ["showbf", "-u", "alice", "-g", "staff"],
    "showbf_d": ["showbf", "-u", "alice", "-g", "staff", "-d", "2:00:00"],
    "showstart_i1": ["showstart", "i1"],
    "showstart_pseudo": ["showstart", "16@1:00:00"],
    "checkjob_r1": ["checkjob", "r1"],
    "checkjob_i1": ["checkjob", "i1"],
    "checkjob_h1": ["checkjob", "h1"],
    "checkjob_i2_v": ["checkjob", "-v", "i2"],
    "diagnose_p": ["diagnose", "-p"],
    "diagnose_f": ["diagnose", "-f"],
    "diagnose_r": ["diagnose", "-r"],
}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TZ", "UTC")
        time.tzset()
        yield write_store(tmp_path_factory.mktemp("golden"))
    time.tzset()


@pytest.fixture(autouse=True)
def as_root(monkeypatch):
    """The commands run as root (an admin: every reservation is visible), whoever runs the tests."""
    monkeypatch.setattr(common.os, "getuid", lambda: 0)
    monkeypatch.setenv(common.USER_ENV, "root")


def run(capsys, argv, store):
    rc = run_single(argv[0], [*argv[1:], "--store", str(store)])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("case", sorted(CASES))
def test_text_matches_the_golden_file(case, store, capsys):
    rc, out, err = run(capsys, CASES[case], store)
    assert rc == 0, err
    path = GOLDEN / f"{case}.txt"
    if os.environ.get("MAUI_PY_REGOLD"):
        path.write_text(out)
    assert out == path.read_text()
    assert err.startswith("data as of cycle 2 (Tue Nov 14 22:13:20), ")


@pytest.mark.parametrize("case", sorted(CASES))
def test_json_round_trips_the_same_data(case, store, capsys):
    argv = CASES[case]
    _rc, text, _err = run(capsys, argv, store)
    rc, out, err = run(capsys, [*argv, "--json"], store)
    assert rc == 0 and err == ""
    doc = json.loads(out)
    assert doc["command"] == argv[0] and doc["cycle"]["iteration"] == 2 and doc["cycle"]["now"] == T
    module = importlib.import_module(COMMANDS[argv[0]])
    assert module.render(doc["data"]) == text


def test_showq_layout_is_maui_3_3_1_column_for_column(store, capsys):
    """Header and summary lines as the real capture of spec §4.1(b) prints them."""
    _rc, out, _err = run(capsys, ["showq"], store)
    lines = out.splitlines()
    assert lines[0] == "ACTIVE JOBS--------------------"
    assert lines[1] == "JOBNAME            USERNAME      STATE  PROC   REMAINING            STARTTIME"
    row = lines[3]      # %-18s %8s %10s %5d %11s  %19s
    assert row[:19] == "i2".ljust(18) + " " and row[19:27] == "   alice" and row[28:38] == "  Starting"
    assert row[39:44] == "    4" and row[45:56] == multotstring(1800).rjust(11) and row[58:] == "Tue Nov 14 22:13:20"
    assert "     3 Active Jobs      28 of   32 Processors Active (87.50%)" in lines
    assert "                         4 of    4 Nodes Active      (100.00%)" in lines
    assert lines[-1] == "Total Jobs: 9   Active Jobs: 3   Idle Jobs: 3   Blocked Jobs: 3"


def test_showres_lines_follow_uireslist(store, capsys):
    _rc, out, _err = run(capsys, ["showres"], store)
    lines = out.splitlines()
    assert lines[2] == "%-18s %5s %1s %11s %11s %11s %9s %s" % ("ReservationID", "Type", "S", "Start", "End",
                                                                "Duration", "   N/P   ", "StartTime")
    r1 = next(line for line in lines if line.startswith("r1 "))
    assert r1 == "%-18s %5s %1s %11s %11s %11s %4d/%-4d %s" % ("r1", "Job", "R", "-1:00:00", "1:00:00", "2:00:00",
                                                               2, 16, multodstring(T - 3600)[:19])
    assert lines[-1] == "" and lines[-2] == "6 reservations located"


def test_multotstring_follows_mutil_c():
    cases = {9851: "2:44:11", 107851: "1:05:57:31", 1600: "00:26:40", 0: "00:00:00", 36000: "10:00:00",
             -9851: "-2:44:11", -36000: "-10:00:00", -107851: "-1:05:57:31", 8_640_000: "  INFINITY",
             -864_000: " -INFINITY", 8_639_999: "99:23:59:59"}
    for seconds, text in cases.items():
        assert multotstring(seconds) == text, seconds
    assert "%11s" % multotstring(9851) == "    2:44:11"
    assert multodstring(T) == "Tue Nov 14 22:13:20\n" or time.tzname[0] != "UTC"


def test_unknown_jobs_are_an_error_on_stderr_with_status_1(store, capsys):
    for argv, message in ((["checkjob", "nope"], "ERROR:  cannot locate job 'nope'\n"),
                          (["showstart", "nope"], "ERROR:    cannot locate job 'nope'\n")):
        rc, out, err = run(capsys, argv, store)
        assert (rc, out) == (1, "") and err.endswith(message)


def test_a_missing_store_is_an_error_not_a_traceback(tmp_path, capsys):
    rc = run_single("showq", ["--store", str(tmp_path / "none.db")])
    out, err = capsys.readouterr()
    assert rc == 1 and out == "" and err.startswith("showq: ") and "no store here" in err


def test_the_age_line_says_whether_mauid_runs(store, capsys):
    """The daemon is stopped: the commands read its last committed cycle and say so."""
    _rc, _out, err = run(capsys, ["showq"], store)
    assert err.strip().endswith("ago; mauid not running")
    lock_path(store).write_text(f"{os.getpid()}\n")          # what a live mauid leaves there
    try:
        _rc, _out, err = run(capsys, ["showq"], store)
        assert err.strip().endswith(f"; mauid running, pid {os.getpid()}")
        rc, out, _err = run(capsys, ["showq", "--json"], store)
        assert json.loads(out)["cycle"]["daemon"] == f"mauid running, pid {os.getpid()}"
    finally:
        lock_path(store).write_text("")
    age = json.loads(run(capsys, ["showq", "--json"], store)[1])["cycle"]["age_seconds"]
    assert abs(age - (time.time() - (T + 1))) < 60


def test_showq_filters_by_user(store, capsys):
    doc = json.loads(run(capsys, ["showq", "-u", "bob", "--json"], store)[1])["data"]
    assert [j["id"] for j in doc["active"] + doc["idle"] + doc["blocked"]] == ["r2", "b1"]


def test_showbf_counts_a_reservation_as_free_for_the_users_it_admits(store):
    """A reservation holding n04's free processors now: frank (in its ACL) sees them, alice does not."""
    with StoreReader.open(store) as r:
        last, state = r.last_cycle(), r.load_state()
    held = Reservation("now.0", ReservationKind.USER, T, T + 600, (("n04", Resources.of(4)),),
                       acl=Acl(users=frozenset({"frank"})))
    last.reservations["admin"] = [held]
    view = View(last, load_config(Path(last.info.config_path)), state)
    probe = {u: Job("showbf", u, JobRequest(1), 1, T, group="staff") for u in ("frank", "alice")}
    assert showbf.collect(view, probe["frank"])["windows"] == [{"procs": 4, "nodes": 1, "duration": 3600}]
    assert showbf.collect(view, probe["alice"])["windows"] == []
