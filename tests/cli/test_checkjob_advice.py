"""`checkjob --advice JOB` on the fixed store of the golden tests (tests/cli/fixture.py): the
"To start sooner" block worked out by hand for i4, the same data in --json (the text is
rendered from it), every suggestion kept when applied in a replay from the store's moment,
and nothing of it without --advice (the golden files stay as they are).

The fixture at T: n01-n04 of 8 processors (n05 down); r1 runs on n01-n02 until T+1:00:00,
r2 on n03 for two days, i2 (4 procs) started at T and ends at T+00:30:00, so 4 processors
are free now; i1 (24 procs) is reserved at T+1:00:00, i4 (8 procs, 1:00:00) at T+2:00:00.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from maui_py.advice import Situation
from maui_py.cfg import load_config
from maui_py.cli import common
from maui_py.cli.main import run_single
from maui_py.cli.view import View
from maui_py.forecast.engine import Moment
from maui_py.store import StoreReader

from ..advice.test_promises import broken
from .fixture import T, write_store


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TZ", "UTC")
        time.tzset()
        yield write_store(tmp_path_factory.mktemp("advice"))
    time.tzset()


@pytest.fixture(autouse=True)
def as_root(monkeypatch):
    monkeypatch.setattr(common.os, "getuid", lambda: 0)
    monkeypatch.setenv(common.USER_ENV, "root")
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


def run(capsys, *argv):
    rc = run_single("checkjob", list(argv))
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out


def test_the_block_for_i4_worked_out_by_hand(store, capsys):
    out = run(capsys, "i4", "--advice", "--store", str(store))
    block = out[out.index("To start sooner:"):].splitlines()
    # 4 procs fit now on n04 and end by i1's reservation at T+1:00:00; all 8 are free on
    # n04 from i2's end at T+00:30:00 until that reservation: 00:30:00.
    assert block[1:6] == [
        "  Waits:     for running jobs to end: needs 8 procs, 4 free now",
        "  Waits:     for its reservation: reserved at Wed Nov 15 00:13:20 (in 2:00:00)",
        "  WallTime:  <= 00:30:00  (of 1:00:00)  start in 00:30:00 on Tue Nov 14 22:43:20",
        "  Procs:     4  (of 8)                 start now",
        "  (as it is: start in 2:00:00 on Wed Nov 15 00:13:20)"]
    doc = json.loads(run(capsys, "i4", "--advice", "--json", "--store", str(store)))["data"]
    changes = [a for a in doc["advice"] if a["change"] != "waits"]
    assert changes == [
        {"change": "walltime", "value": 1800, "start": T + 1800,
         "reason": "with <= 00:30:00 walltime the job starts in 00:30:00, 1:30:00 sooner"},
        {"change": "procs", "value": 4, "start": T,
         "reason": "with 4 procs (of 8) the job starts now, 2:00:00 sooner"}]
    assert doc["advice_as_is"]["start"] == T + 7200 and doc["advice_as_is"]["replays"] >= 3
    from maui_py.cli import checkjob
    assert checkjob.render(doc) == out


def test_a_held_job_and_a_running_one(store, capsys):
    out = run(capsys, "h1", "--advice", "--store", str(store))
    assert out.split("To start sooner:\n")[1].startswith("  Waits:     held: job has hold in place (User)\n")
    assert "To start sooner" not in run(capsys, "r1", "--advice", "--store", str(store))


def test_without_advice_there_is_no_block_and_no_key(store, capsys):
    assert "To start sooner" not in run(capsys, "i4", "--store", str(store))
    assert "advice" not in json.loads(run(capsys, "i4", "--json", "--store", str(store)))["data"]


@pytest.mark.parametrize("jid", ["i1", "i3", "i4"])
def test_every_suggestion_on_the_store_keeps_its_promise(store, capsys, jid):
    doc = json.loads(run(capsys, jid, "--advice", "--json", "--store", str(store)))["data"]
    with StoreReader.open(store) as r:
        last, state = r.last_cycle(), r.load_state()
    view = View(last, load_config(Path(last.info.config_path)), state)
    sit = Situation(Moment(view.now, tuple(view.snapshot.nodes),
                           tuple(j for j in view.jobs.values() if not j.state.finished)), view.cfg, state)
    job = view.jobs[jid]
    suggestions = [a for a in doc["advice"] if a["change"] != "waits"]
    assert suggestions
    for a in suggestions:
        assert not broken(sit, job, a["change"], a["value"], a["start"]), a


def test_on_a_replayed_traces_store_the_advice_is_in_the_traces_dates(tmp_path, capsys):
    """A simulator's store counts the trace's seconds: --json's starts are epoch seconds
    like its `now`, the text prints the trace's dates (1996), never 1970."""
    from maui_py.cli.main import maui_sim_main
    from tests.sim.small_trace import write_trace
    trace = write_trace(tmp_path / "site.swf")
    db = tmp_path / "sim.db"
    assert maui_sim_main([str(trace), "-q", "--store", str(db), "--store-at", "20000"]) == 0
    capsys.readouterr()
    q = json.loads(run_single_out(capsys, "showq", "--store", str(db), "--json"))["data"]
    assert q["idle"] or q["blocked"]
    seen = 0
    for row in (q["idle"] + q["blocked"])[:3]:
        doc = json.loads(run(capsys, row["id"], "--advice", "--json", "--store", str(db)))
        now = doc["cycle"]["now"]
        assert doc["data"]["now"] == now
        for a in doc["data"]["advice"]:
            assert a["start"] is None or a["start"] >= now
            assert "1970" not in a["reason"]
        text = run(capsys, row["id"], "--advice", "--store", str(db))
        block = text[text.index("To start sooner:"):]
        dated = [ln for ln in block.splitlines() if " on " in ln or "reserved at" in ln]
        assert "1970" not in block and all(" 1996" in ln for ln in dated), block
        seen += len(dated)
    assert seen


def run_single_out(capsys, name, *argv):
    rc = run_single(name, list(argv))
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out
