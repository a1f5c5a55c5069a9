"""benchmarks/compat_evidence.py: its table and its cache, on a small generated workload
(no trace needed).

The table's figures must be those of the replays it ran (the default row a plain replay,
the 3.3 row one with MAUICOMPAT 3.3 acting), the CPU ratio the quotient of the two CPU
columns, and a rerun over the same cache must replay nothing and print the same table.
"""

from __future__ import annotations

import io
import json

import pytest
from tests.scripts import load_script



def _script():
    return load_script("benchmarks/compat_evidence.py", "compat_evidence_unit")


EV = _script()
JOBS = 60


@pytest.fixture(scope="module")
def replays():
    """The two replays of a 60-job generated workload under FCFS EASY, run in this process."""
    return {rules: EV.replay(EV.SYNTHETIC, JOBS, "fcfs-easy", rules) for rules in EV.RULES}


def test_a_replay_row_holds_the_simulators_own_figures(replays):
    from maui_py.cfg import parse_config
    from maui_py.sim.engine import SimOptions, Simulation
    from maui_py.sim.lublin import generate, header
    from maui_py.sim.metrics import summarize
    from maui_py.sim.cluster import from_trace_header
    from maui_py.sim.swf import clean, to_sim_jobs
    from maui_py.cli.simulate import compress

    # The same workload maui-sim --synthetic 60 --machine-procs 32 builds: generated, cleaned,
    # compressed to load 0.8; replayed here without the script.
    records, _rep = clean(generate(JOBS, 32, 1), 32)
    jobs = to_sim_jobs(compress(records, 32, 0.8))
    nodes = from_trace_header(header(JOBS, 32, 1), 1, max(r.procs for r in records))
    result = Simulation(nodes, jobs, parse_config(EV.POLICIES["fcfs-easy"]),
                        SimOptions(cycle_reserves=False)).run()
    s = summarize(result.records, 32).total
    row = replays["default"]
    assert row["jobs"] == JOBS
    assert row["bsld"] == round(s.bsld_mean, 2)
    assert row["wait_mean"] == round(s.wait_mean, 1)
    assert row["utilization"] == round(s.utilization, 4)
    assert row["check_ok"] is True


def test_the_maui33_row_runs_with_mauicompat():
    from maui_py.cfg import parse_config

    for policy in EV.POLICIES:
        assert parse_config(EV.config_text(policy, "maui33")).get("MAUICOMPAT").name != "NONE"
        assert parse_config(EV.config_text(policy, "default")).get("MAUICOMPAT").name == "NONE"


def test_the_table_pairs_rows_and_divides_cpu(replays):
    d, c = dict(replays["default"], cpu_s=2.0), dict(replays["maui33"], cpu_s=7.0)
    text = EV.table([d, c])
    lines = text.splitlines()
    assert len(lines) == 3                      # header, rule, one trace x policy
    cells = [x.strip() for x in lines[2].strip("|").split("|")]
    head = [x.strip() for x in lines[0].strip("|").split("|")]
    row = dict(zip(head, cells))
    assert row["jobs"] == str(JOBS) and row["policy"] == "fcfs-easy"
    assert float(row["BSLD default"]) == pytest.approx(d["bsld"], abs=0.005)
    assert float(row["BSLD 3.3"]) == pytest.approx(c["bsld"], abs=0.005)
    assert float(row["CPU ratio"]) == pytest.approx(3.5, abs=0.05)
    assert row["better"] == EV.verdict(d, c)


def test_a_row_whose_schedule_check_failed_is_marked(replays):
    bad = dict(replays["maui33"], check_ok=False)
    assert EV.table([replays["default"], bad]).splitlines()[2].endswith("(check failed: maui33) |")
    assert "check failed" not in EV.table([replays["default"], replays["maui33"]])


def test_a_row_without_its_pair_is_left_out(replays):
    assert len(EV.table([replays["default"]]).splitlines()) == 2


def test_verdict_counts_wins_lower_bsld_and_wait_higher_utilisation():
    base = {"bsld": 10.0, "wait_mean": 100.0, "utilization": 0.5}
    assert EV.verdict(base, dict(base, bsld=11.0)) == "default"
    assert EV.verdict(base, dict(base, utilization=0.6)) == "3.3"
    assert EV.verdict(base, dict(base, bsld=9.0, wait_mean=90.0, utilization=0.4)) == "3.3"
    assert EV.verdict(base, dict(base)) == "tie"


def test_verdict_counts_a_difference_under_one_percent_as_a_tie():
    base = {"bsld": 10.0, "wait_mean": 100.0, "utilization": 0.5}
    # 3.3 a hair better on wait and utilisation, clearly worse on BSLD: the default wins
    assert EV.verdict(base, dict(base, bsld=11.0, wait_mean=99.5, utilization=0.5002)) == "default"
    assert EV.verdict(base, dict(base, wait_mean=100.9)) == "tie"
    assert EV.verdict(base, dict(base, wait_mean=101.1)) == "default"


def test_durations_are_read_as_hours_minutes_seconds():
    assert EV.duration(3725.4) == "1:02:05"
    assert EV.duration(90061) == "1d 1:01:01"


def _counting(replays):
    calls = []

    def runner(trace, jobs, policy, rules):
        calls.append((trace, jobs, policy, rules))
        return dict(replays[rules], trace=trace, policy=policy)
    return calls, runner


def test_a_rerun_resumes_from_the_cache(tmp_path, replays):
    calls, runner = _counting(replays)
    jobs = {(EV.SYNTHETIC, p): JOBS for p in EV.POLICIES}
    first = EV.run_matrix([EV.SYNTHETIC], jobs, ["fcfs-easy", "fcfs-cons"], tmp_path, runner, io.StringIO())
    assert len(calls) == 4 and len(list(tmp_path.glob("*.json"))) == 4
    again = EV.run_matrix([EV.SYNTHETIC], jobs, ["fcfs-easy", "fcfs-cons"], tmp_path, runner, io.StringIO())
    assert len(calls) == 4                      # nothing replayed
    assert EV.table(again) == EV.table(first)
    # another job count is another run: not served from these files
    EV.run_matrix([EV.SYNTHETIC], {(EV.SYNTHETIC, 'fcfs-easy'): JOBS + 1}, ["fcfs-easy"], tmp_path, runner, io.StringIO())
    assert len(calls) == 6


def test_a_broken_cache_file_is_warned_about_and_replayed(tmp_path, replays, capsys):
    calls, runner = _counting(replays)
    jobs = {(EV.SYNTHETIC, p): JOBS for p in EV.POLICIES}
    EV.run_matrix([EV.SYNTHETIC], jobs, ["fcfs-easy"], tmp_path, runner, io.StringIO())
    bad = EV.cache_path(tmp_path, EV.SYNTHETIC, JOBS, "fcfs-easy", "maui33")
    bad.write_text(json.dumps(dict(replays["maui33"], bsld="high")))
    rows = EV.run_matrix([EV.SYNTHETIC], jobs, ["fcfs-easy"], tmp_path, runner, io.StringIO())
    assert len(calls) == 3                      # only the broken one again
    assert str(bad) in capsys.readouterr().err
    assert rows[1]["bsld"] == replays["maui33"]["bsld"]
    assert json.loads(bad.read_text())["bsld"] == replays["maui33"]["bsld"]


def test_a_symlink_in_the_cache_is_neither_read_nor_followed(tmp_path, replays):
    calls, runner = _counting(replays)
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep")
    cache = tmp_path / "cache"
    cache.mkdir()
    link = EV.cache_path(cache, EV.SYNTHETIC, JOBS, "fcfs-easy", "default")
    link.symlink_to(target)
    EV.run_matrix([EV.SYNTHETIC], {(EV.SYNTHETIC, 'fcfs-easy'): JOBS}, ["fcfs-easy"], cache, runner, io.StringIO())
    assert len(calls) == 2
    assert target.read_text() == "keep" and not link.is_symlink()


def test_jobs_option_per_trace_policy_and_all():
    jobs = EV.parse_jobs(["5000", "KTH=all", "fcfs-cons=300", "CTC/easy.cfg=7"],
                         ["KTH", "CTC"], ["fcfs-cons", "easy.cfg"])
    assert jobs == {("KTH", "fcfs-cons"): 300, ("KTH", "easy.cfg"): None,
                    ("CTC", "fcfs-cons"): 300, ("CTC", "easy.cfg"): 7}
    # a known name outside this run is no error (one command line for every piece of a matrix)
    assert EV.parse_jobs(["SDSC=5"], ["KTH"], ["fcfs-cons"]) == {("KTH", "fcfs-cons"): None}
    for bad in (["0"], ["XYZ=5"], ["KTH/xyz=5"]):
        with pytest.raises(ValueError):
            EV.parse_jobs(bad, ["KTH"], ["fcfs-cons"])


def test_a_failed_replay_is_left_out_and_not_cached(tmp_path, replays):
    calls = []

    def runner(trace, jobs, policy, rules):
        calls.append(rules)
        if rules == "maui33":
            raise EV.ReplayFailed("took longer than 1 s")
        return dict(replays[rules], trace=trace, policy=policy)
    log = io.StringIO()
    rows = EV.run_matrix([EV.SYNTHETIC], {(EV.SYNTHETIC, 'fcfs-easy'): JOBS}, ["fcfs-easy"], tmp_path, runner, log)
    assert [r["rules"] for r in rows] == ["default"]
    assert "left out: took longer than 1 s" in log.getvalue()
    assert len(list(tmp_path.glob("*.json"))) == 1
    assert len(EV.table(rows).splitlines()) == 2
