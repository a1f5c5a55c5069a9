"""The commands on a simulation: `maui-sim --store PATH [--store-at SECONDS]` writes the
replay's moment to a store, and showq/checkjob/showstart/showres/showbf read it."""

from __future__ import annotations

import csv
import json

from maui_py.cli.main import maui_sim_main, run_single


def sh(capsys, name, *argv):
    rc = run_single(name, list(argv))
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out, err


def test_the_store_holds_the_replay_at_the_asked_time(tmp_path, capsys):
    db = tmp_path / "sim.db"
    assert maui_sim_main(["--synthetic", "120", "-q", "--out", str(tmp_path / "out"),
                          "--store", str(db), "--store-at", "20000"]) == 0
    assert f"wrote {db} (simulated cycle" in capsys.readouterr().out
    out, err = sh(capsys, "showq", "--store", str(db), "--json")
    doc = json.loads(out)
    now, q = doc["cycle"]["now"], doc["data"]
    assert doc["cycle"]["simulated"] and err == ""
    rows = list(csv.DictReader(open(tmp_path / "out" / "jobs.csv")))
    first = min(int(r["submit"]) for r in rows)
    assert first < now <= first + 20000
    # the full replay (jobs.csv) agrees on what ran and what waited at that instant
    running = {r["id"] for r in rows if int(r["start"]) <= now < int(r["end"])}
    waiting = {r["id"] for r in rows if int(r["submit"]) <= now < int(r["start"])}
    started_now = {j["id"] for j in q["active"] if j["state"] == "Starting"}
    assert {j["id"] for j in q["active"]} == running and not started_now
    assert {j["id"] for j in q["idle"] + q["blocked"]} == waiting
    assert q["busy_procs"] == sum(j["procs"] for j in q["active"])
    text, err = sh(capsys, "showq", "--store", str(db))
    assert err.startswith(f"data as of simulated cycle {doc['cycle']['iteration']} (")
    assert text.splitlines()[-1] == (f"Total Jobs: {len(running) + len(waiting)}   Active Jobs: {len(running)}   "
                                     f"Idle Jobs: {len(q['idle'])}   Blocked Jobs: {len(q['blocked'])}")
    job = q["active"][0]["id"]
    out, _ = sh(capsys, "checkjob", job, "--store", str(db))
    assert f"checking job {job}\n" in out and "Allocated Nodes:" in out
    if q["idle"]:
        start = json.loads(sh(capsys, "showstart", q["idle"][0]["id"], "--store", str(db), "--json")[0])
        assert start["data"]["start"] >= now
    assert "reservations located" in sh(capsys, "showres", "--store", str(db))[0]
    assert sh(capsys, "showbf", "--store", str(db))[0].startswith("backfill window (user: ")


def test_without_store_at_it_is_the_end_of_the_replay(tmp_path, capsys):
    db = tmp_path / "end.db"
    assert maui_sim_main(["--synthetic", "30", "-q", "--store", str(db)]) == 0
    capsys.readouterr()
    out, _ = sh(capsys, "showq", "--store", str(db))
    assert out.splitlines()[-1] == "Total Jobs: 0   Active Jobs: 0   Idle Jobs: 0   Blocked Jobs: 0"


def test_checkjob_on_a_replayed_trace_prints_the_trace_dates(tmp_path, capsys):
    from tests.sim.small_trace import write_trace
    trace = write_trace(tmp_path / "site.swf")
    db = tmp_path / "sim.db"
    assert maui_sim_main([str(trace), "-q", "--store", str(db), "--store-at", "20000"]) == 0
    capsys.readouterr()
    q = json.loads(sh(capsys, "showq", "--store", str(db), "--json")[0])["data"]
    job = (q["active"] or q["idle"])[0]["id"]
    out, _ = sh(capsys, "checkjob", job, "--store", str(db))
    submit = next(ln for ln in out.splitlines() if ln.startswith("SubmitTime:"))
    # the trace starts Mon Sep 23 1996, 14:00:31 in Stockholm; 1970 would mean epoch 0
    assert "Sep 2" in submit and "1970" not in submit, submit


def test_every_command_prints_the_trace_dates_and_json_gives_epoch_seconds(tmp_path, capsys):
    """Issue 35 item 1: the replay's moment in the trace's real dates (as the replay prints
    them), never 1970; --json's `now` in epoch seconds, as on mauid's store."""
    from tests.sim.small_trace import START, write_trace
    trace = write_trace(tmp_path / "site.swf")
    db = tmp_path / "sim.db"
    assert maui_sim_main([str(trace), "-q", "--store", str(db), "--store-at", "20000"]) == 0
    replay_line = capsys.readouterr().out
    assert "at 1996-09-2" in replay_line                 # the replay's own date of the stored cycle
    doc = json.loads(sh(capsys, "showq", "--store", str(db), "--json")[0])
    now = doc["cycle"]["now"]
    assert START < now <= START + 20000 + 3600          # epoch seconds, within the asked time
    assert doc["cycle"]["replay_now"] == now - START and doc["data"]["now"] == now
    jobs = doc["data"]["active"] + doc["data"]["idle"] + doc["data"]["blocked"]
    assert jobs and all(START <= j["submit"] <= now for j in jobs)
    outputs = []
    for name, argv in (("showq", ()), ("showq", ("-r",)), ("showq", ("-i",)), ("showres", ()),
                       ("showres", ("-n",)), ("showbf", ())):
        out, err = sh(capsys, name, *argv, "--store", str(db))
        assert "1996" in err and "1970" not in err, err           # the age line
        outputs.append(out)
    waiting = doc["data"]["idle"] or doc["data"]["blocked"]
    if waiting:
        outputs.append(sh(capsys, "showstart", waiting[0]["id"], "--store", str(db))[0])
    text = "".join(outputs)
    assert "Sep 2" in text and "1970" not in text and "Jan  1" not in text, text

