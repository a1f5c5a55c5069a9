"""maui-sim whatif: shaking, paired intervals, sweeps, the local pool, the report, the CLI."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from maui_py.cli.whatif import main as whatif_main
from maui_py.sim.shake import ShakeSpec, shake
from maui_py.sim.importers.workload import replayable, to_sim_jobs
from maui_py.sim.whatif import (ConfigVariant, analyse, make_plan, paired, parse_sets,
                                run_count, size_class, sweep_variants)
from maui_py.sim.whatif_report import render_html, summary_text, write
from maui_py.sim.whatif_runner import run_local

from .workloads import busy_workload

ROOT = Path(__file__).resolve().parents[2]
EASY = (ROOT / "config" / "easy.cfg").read_text()
DATA = ROOT / "tests" / "adapters" / "data" / "sacct"
GOLD = EASY + "\nQOSWEIGHT 1\nQOSCFG[gold] PRIORITY=100000\n"


def test_shaking_is_seeded_small_and_creates_no_kills():
    jobs = to_sim_jobs(replayable(busy_workload(60))[0])
    spec = ShakeSpec(60, 0.05)
    a, b, c = shake(jobs, spec, 1, 0), shake(jobs, spec, 1, 0), shake(jobs, spec, 1, 1)
    assert a == b and a != c
    for orig, s in zip(jobs, a):
        assert abs(s.job.submit_time - orig.job.submit_time) <= 60
        assert abs(s.runtime - orig.runtime) <= 0.05 * orig.runtime + 1
        assert s.runtime <= s.job.wallclock and s.job.id == orig.job.id
    assert shake(jobs, ShakeSpec(0, 0.0), 1, 3) == jobs
    with pytest.raises(ValueError):
        ShakeSpec(-1, 0.1)


def test_paired_interval():
    d = paired([10, 20, 30, 40], [12, 22, 33, 42])         # differences 2, 2, 3, 2
    assert d.diff == pytest.approx(2.25)
    assert d.lo == pytest.approx(2.25 - 3.182 * 0.5 / 2) and not d.within_noise
    wide = paired([10, 20, 30], [12, 21, 33])             # differences 2, 1, 3: t = 4.303
    assert wide.lo == pytest.approx(2 - 4.303 / 3 ** 0.5) and wide.lo < 0 and wide.within_noise
    same = paired([5, 6], [5, 6])
    assert (same.lo, same.hi, same.within_noise) == (0.0, 0.0, True)
    assert paired([1], [4]).lo is None


def test_sets_and_sweep_variants():
    assert parse_sets(["RESERVATIONDEPTH=1,4", "BACKFILLPOLICY=FIRSTFIT"]) == [
        ("RESERVATIONDEPTH", ["1", "4"]), ("BACKFILLPOLICY", ["FIRSTFIT"])]
    vs = sweep_variants("easy.cfg", EASY, parse_sets(["RESERVATIONDEPTH=1,4", "BACKFILLPOLICY=FIRSTFIT,BESTFIT"]))
    assert [v.name for v in vs][:2] == ["easy.cfg", "RESERVATIONDEPTH=1 BACKFILLPOLICY=FIRSTFIT"]
    assert len(vs) == 5
    with pytest.raises(ValueError, match="NOSUCHPARAM"):
        sweep_variants("b", EASY, [("NOSUCHPARAM", ["1"])])
    with pytest.raises(ValueError):
        parse_sets(["RESERVATIONDEPTH"])


def test_size_classes():
    # the simulator report's groups (maui_py.sim.metrics.size_bucket), issue 35 item 6
    assert [size_class(p) for p in (1, 2, 3, 16, 17, 256, 257)] == ["1", "2", "3-4", "9-16", "17-32",
                                                                   "129-256", "257-512"]


def _analysis(variants, shakes=4, jobs=1, n=240):
    plan = make_plan(busy_workload(n), variants, shakes=shakes, seed=3)
    runs = run_local(plan, jobs)
    return plan, runs, analyse(plan, runs)


def test_identical_configs_give_intervals_that_contain_zero():
    _plan, _runs, data = _analysis([ConfigVariant("a", EASY), ConfigVariant("b", EASY)], shakes=3, n=150)
    comp = data["comparisons"][0]
    cells = [comp["total"][m] for m in comp["total"]]
    cells += [row[m] for rows in comp["groups"].values() for row in rows.values()
              for m in ("wait", "bsld", "xf", "share")]
    assert cells and all(c["lo"] <= 0.0 <= c["hi"] and c["within_noise"] for c in cells)
    assert comp["losers"] == []


def test_raising_one_users_qos_priority_shows_beyond_the_noise():
    _plan, runs, data = _analysis([ConfigVariant("current", EASY), ConfigVariant("gold", GOLD)])
    comp = data["comparisons"][0]
    alice = comp["groups"]["user"]["alice"]["wait"]
    assert alice["hi"] < 0 and not alice["within_noise"]             # alice waits less
    gold = comp["groups"]["qos"]["gold"]["wait"]
    assert gold["diff"] == pytest.approx(alice["diff"])
    others = [comp["groups"]["user"][u]["wait"]["diff"] for u in ("bob", "carol", "dave", "erin", "frank")]
    assert sum(others) > 0                                           # ... at the others' expense
    assert comp["losers"] and comp["losers"][0]["user"] != "alice"
    assert all(r["measure"]["violations"] == 0 for r in runs)
    assert len({r["measure"]["total"]["wait"] for r in runs if r["config"] == 0}) > 1   # shaken


def test_process_pool_gives_the_same_numbers():
    plan = make_plan(busy_workload(80), [ConfigVariant("a", EASY), ConfigVariant("g", GOLD)], shakes=2)
    assert run_count(plan) == 4
    one, two = run_local(plan, 1), run_local(plan, 2)
    assert [r["index"] for r in two] == [0, 1, 2, 3]
    assert [r["measure"] for r in one] == [r["measure"] for r in two]


def test_report_is_self_contained_and_escapes_names(tmp_path):
    w = busy_workload(60)
    w.jobs = [replace(j, user="<script>bob</script>") if j.user == "bob" else j for j in w.jobs]
    plan = make_plan(w, sweep_variants("easy.cfg", EASY + "\nUSERCFG[alice] FSTARGET=30\n",
                                       parse_sets(["RESERVATIONDEPTH=1,3"])), shakes=2)
    data = analyse(plan, run_local(plan, 1))
    html = render_html(data)
    assert "<script>" not in html and "&lt;script&gt;bob" in html
    assert "src=" not in html and "<link" not in html
    assert "The sweep" in html and "30 %" in html             # heat map, fair-share target
    paths = write(data, tmp_path / "r")
    assert json.loads(paths[0].read_text())["comparisons"][0]["name"] == "RESERVATIONDEPTH=1"


def test_cli_whatif_on_a_sacct_log(tmp_path, capsys):
    cfg = tmp_path / "cur.cfg"
    cfg.write_text(EASY)
    status = whatif_main(["whatif", str(DATA / "sacct-P.txt"), "--cluster", str(DATA / "sinfo-N.txt"),
                          "-c", str(cfg), "--set", "RESERVATIONDEPTH=2", "--shakes", "2", "-q",
                          "--out", str(tmp_path / "out")])
    out = capsys.readouterr()
    assert status == 0, out.err
    assert "RESERVATIONDEPTH=2 vs" in out.out and "sacct-P.txt:16" in out.err
    assert re.search(r"^4 runs in \d\d:\d\d:\d\d \(1 local process", out.out, re.M)
    assert "sinfo-N.txt:8" in out.err
    data = json.loads((tmp_path / "out" / "whatif.json").read_text())
    assert set(data["comparisons"][0]["groups"]["user"]) == {"alice", "bob", "carol", "dave"}
    assert data["left_out"]["never started (cancelled or still queued)"] == 1


def test_cli_refuses_bad_input(tmp_path, capsys):
    log = str(DATA / "sacct-P.txt")
    cfg = tmp_path / "c.cfg"
    cfg.write_text(EASY)
    assert whatif_main(["whatif", log, "-c", str(cfg)]) == 2                      # nothing to compare
    assert whatif_main(["whatif", log, "-c", str(cfg), "--set", "RESERVATIONDEPTH=2"]) == 2   # no cluster
    assert whatif_main(["whatif", log, "--nodes", "2x8", "-c", str(cfg), "--set", "NOPE=1"]) == 2
    err = capsys.readouterr().err
    assert "nothing to compare" in err and "no cluster" in err and "NOPE" in err


def test_command_module_names_the_importer_formats_and_loads_no_simulator():
    import subprocess
    import sys
    from maui_py.cli import whatif as cli
    from maui_py.sim.importers import FORMATS
    assert cli.FORMATS == FORMATS
    code = ("import sys, maui_py.cli.whatif as w, argparse; p = argparse.ArgumentParser(); "
            "w.add_arguments(p); print(sorted(m for m in sys.modules if m.startswith('maui_py.sim')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_jobs_a_config_never_runs_are_counted_and_said(tmp_path):
    # SYSTEMMAXPROCPERJOB 8 defers, then holds, every 16-processor job of the workload: the
    # proposed config never finishes them, whatever the shaking (it moves times, not sizes)
    w = busy_workload(90)
    wide = sum(1 for j in w.jobs if j.procs > 8)
    assert wide > 0
    plan = make_plan(w, [ConfigVariant("cur", EASY),
                         ConfigVariant("capped", EASY + "\nSYSTEMMAXPROCPERJOB 8\n")], shakes=2)
    data = analyse(plan, run_local(plan, 1))
    assert [c["unfinished"] for c in data["configs"]] == [0.0, float(wide)]
    text = summary_text(data)
    line = next(x for x in text.splitlines() if "never finished" in x)
    assert line.split()[2:5] == ["0", "->", str(wide)] and "finished jobs only" in line
    html = render_html(data)
    assert f"<td>never finished (jobs)</td><td>0</td><td>{wide}</td><td>+{wide}</td>" in html
    twins = make_plan(w, [ConfigVariant("a", EASY), ConfigVariant("b", EASY)], shakes=2)
    same = analyse(twins, run_local(twins, 1))
    assert "never finished" not in summary_text(same)
    assert "never finished (jobs)" not in render_html(same)


def test_one_shake_marks_no_change_as_within_the_noise():
    # one run per config has no interval: its noise is unknown, so no "(within noise)" label
    # (utilisation 64.6 % -> 26.1 % was printed "within noise"); the text says why
    plan = make_plan(busy_workload(90), [ConfigVariant("cur", EASY), ConfigVariant("gold", GOLD)],
                     shakes=1)
    data = analyse(plan, run_local(plan, 1))
    comp = data["comparisons"][0]
    assert any(d["diff"] for d in comp["total"].values())
    text = summary_text(data)
    assert "within noise" not in text and "one shake: no intervals" in text
    html = render_html(data)
    assert 'class="noise' not in html and 'class="nointerval ci"' in html and "One shake" in html
    plan2 = make_plan(busy_workload(90), [ConfigVariant("a", EASY), ConfigVariant("b", EASY)], shakes=2)
    twice = analyse(plan2, run_local(plan2, 1))
    assert "within noise" in summary_text(twice) and "one shake" not in summary_text(twice)


def test_never_finished_counts_read_as_numbers_of_jobs():
    # a mean over shakes printed with :g read 1.23457e+06 for a large count and hid digits
    from maui_py.sim.whatif_report import jobs_count, unfinished_lines
    assert jobs_count(1234567.0) == "1,234,567" and jobs_count(1161.0, "+") == "+1,161"
    assert jobs_count(2.5) == "2.5" and jobs_count(-3.0, "+") == "-3" and jobs_count(0.0) == "0"
    data = {"configs": [{"unfinished": 0.0}, {"unfinished": 1234567.0}], "shakes": 10}
    [line] = unfinished_lines(data, {"config": 1})
    assert line.split()[2:5] == ["0", "->", "1,234,567"] and "e+" not in line
