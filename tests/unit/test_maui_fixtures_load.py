"""The real-Maui fixtures (tests/fixtures/maui/) and their loader: every fixture is whole and
consistent with its own jobs, its policy is a configuration maui-py reads, and replay() runs
maui-py on a fixture the way `maui-sim jobs.swf --no-clean --nodes NxP:prefix=n` does.
Whether maui-py's starts equal Maui's is not asserted here (that is the lead's replay test).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from maui_py.cfg import load_config

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "maui"
_spec = importlib.util.spec_from_file_location("maui_fixture_load", FIXTURES / "load.py")
fixture_load = importlib.util.module_from_spec(_spec)
sys.modules.setdefault(_spec.name, fixture_load)      # dataclasses look the module up
_spec.loader.exec_module(fixture_load)

NAMES = fixture_load.names()


def _swf_jobs(path: Path) -> dict[str, list[int]]:
    return {f[0]: [int(x) for x in f] for f in (line.split() for line in path.read_text().splitlines())
            if len(f) == 18 and not f[0].startswith(";")}


def _runs() -> dict:
    spec = importlib.util.spec_from_file_location("maui_fixture_runs", FIXTURES / "runs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.RUNS


def test_every_run_of_the_list_is_recorded_as_listed():
    """runs.py (what record.py records) and the fixture directories agree: the same names,
    and each fixture's trace window, machine and policy are the listed ones."""
    runs = _runs()
    assert sorted(runs) == NAMES
    for name in NAMES:
        fx, run = fixture_load.load(name), runs[name]
        assert fx.policy == run["policy"], name
        assert (fx.meta["trace"], fx.meta["skip_records"], fx.meta["jobs"], fx.nodes, fx.ppn,
                fx.meta["poll_interval"]) == \
            (run["trace"], run["skip"], run["jobs"], run["nodes"], run["ppn"], run["poll"]), name
        assert fx.meta["workload_edit"]["qos_by_user"] == {
            q: u if u == "*" else sorted(u) for q, u in run["qos"].items()}, name


@pytest.mark.parametrize("name", NAMES)
def test_fixture_is_whole_and_consistent(name):
    """Every job of jobs.swf has Maui's start, on as many processors as it asked, after its
    submission, on existing nodes, on one of Maui's iterations (every poll_interval seconds
    from the first submission); the machine never runs more processors than it has."""
    fx = fixture_load.load(name)
    jobs = _swf_jobs(fx.jobs_path)
    assert fx.meta["jobs"] == len(jobs) == len(fx.expected)
    assert set(fx.expected) == set(jobs)
    poll, first = int(fx.meta["poll_interval"]), min(j[1] for j in jobs.values())
    assert all((start - first) % poll == 0 for start, _h in fx.expected.values())
    events = []
    for jid, (start, hosts) in fx.expected.items():
        submit, runtime, procs = jobs[jid][1], jobs[jid][3], jobs[jid][4]
        assert start >= submit, jid
        assert len(hosts) * fx.ppn >= procs and len(hosts) <= procs, (jid, hosts)
        assert all(h in {fx.node_name(k) for k in range(1, fx.nodes + 1)} for h in hosts)
        events += [(start + max(runtime, 1), -procs), (start, procs)]
    busy = 0
    for _t, delta in sorted(events):
        busy += delta
        assert busy <= fx.nodes * fx.ppn


@pytest.mark.parametrize("name", NAMES)
def test_policy_is_a_valid_maui_py_config(name, tmp_path):
    fx = fixture_load.load(name)
    path = tmp_path / "maui.cfg"
    path.write_text(fixture_load.config_text(fx))
    load_config(path)                       # raises ConfigError naming file and line


def test_host_names_map_by_number():
    """Maui's n007 is maui-sim's 7th node under NxP:prefix=n, whatever the padding."""
    assert fixture_load._hosts(25, "n007:n007:n012") == ("n07", "n12")
    assert fixture_load._hosts(100, "n100:n009") == ("n009", "n100")
    with pytest.raises(ValueError):
        fixture_load._hosts(100, "node1")


def _tiny_fixture(tmp_path: Path, qos=None, poll=1) -> Path:
    """Three one-processor nodes, EASY: job 1 takes two for 100 s from t=0; job 2 (3 procs)
    comes at t=10 and is reserved at t=100; job 3 (1 proc, at most 60 s) comes at t=20 and
    fits before that reservation: backfilled at t=20."""
    d = tmp_path / "tiny"
    d.mkdir()
    rows = [(1, 0, 100, 2, 200, 5), (2, 10, 30, 3, 60, 6), (3, 20, 50, 1, 60, 7)]
    (d / "jobs.swf").write_text("; MaxProcs: 3\n" + "".join(
        f"{j} {s} 0 {r} {p} -1 -1 {p} {w} -1 1 {u} {u} -1 -1 -1 -1 -1\n" for j, s, r, p, w, u in rows))
    (d / "policy.cfg").write_text("QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\n")
    (d / "starts.csv").write_text("id,submit,start,end,procs,wclimit,hosts\n"
                                  "1,0,0,100,2,200,n003:n002\n2,10,100,130,3,60,n003:n002:n001\n"
                                  "3,20,20,70,1,60,n001\n")
    meta = {"name": "tiny", "jobs": 3, "nodes": 3, "ppn": 1, "poll_interval": poll,
            "workload_edit": {"qos_by_user": qos or {}}}
    (d / "meta.json").write_text(json.dumps(meta))
    return d


def test_load_reads_starts_and_hosts(tmp_path):
    fx = fixture_load.load(_tiny_fixture(tmp_path))
    assert fx.expected == {"1": (0, ("n2", "n3")), "2": (100, ("n1", "n2", "n3")),
                           "3": (20, ("n1",))}
    assert fx.cluster_spec == "3x1:prefix=n"
    assert fixture_load.command(fx)[-2:] == ["--nodes", "3x1:prefix=n"]


def test_replay_runs_maui_py_on_the_fixture(tmp_path):
    fx = fixture_load.load(_tiny_fixture(tmp_path))
    got = fixture_load.replay(fx)
    assert {j: s for j, (s, _h) in got.items()} == {"1": 0, "2": 100, "3": 20}
    assert got["2"][1] == ("n1", "n2", "n3")
    assert len(got["1"][1]) == 2 and got["3"][1][0] not in got["1"][1]


def test_replay_appends_extra_lines(tmp_path):
    """The extra lines are configuration: without backfill job 3 waits behind job 2."""
    fx = fixture_load.load(_tiny_fixture(tmp_path))
    assert fixture_load.config_text(fx, ["BACKFILLPOLICY NONE"]).endswith("BACKFILLPOLICY NONE\n")
    got = fixture_load.replay(fx, ["BACKFILLPOLICY NONE"])
    assert {j: s for j, (s, _h) in got.items()} == {"1": 0, "2": 100, "3": 130}


def test_replay_keeps_the_recorded_poll_interval(tmp_path):
    """Recorded with RMPOLLINTERVAL 30: maui-sim --poll 30, every start on a 30 s tick from
    the first submission; job 3 (submitted at 20) is backfilled at the next tick, 30."""
    fx = fixture_load.load(_tiny_fixture(tmp_path, poll=30))
    assert fixture_load.command(fx)[-2:] == ["--poll", "30"]
    got = fixture_load.replay(fx)
    assert got["3"][0] == 30
    assert all(start % 30 == 0 for start, _h in got.values())


def test_qos_by_user_reaches_the_replayed_jobs(tmp_path):
    fx = fixture_load.load(_tiny_fixture(tmp_path, {"hi": [6], "lo": "*"}))
    assert fx.qos_of("user6") == "hi" and fx.qos_of("user5") == "lo"
    result = fixture_load.simulate(fx)
    assert {j: r.job.qos for j, r in result.records.items()} == {"1": "lo", "2": "hi", "3": "lo"}
