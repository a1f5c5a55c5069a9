"""`maui-sim LOG --format sacct --cluster FILE` (issue 33): one replay of a site's own log,
no shaking, the same report files, and jobs.csv naming each job's user, account, partition
and QOS; the jobs replayed are the ones `maui-sim whatif` would replay (same importer, same
cut). The log comes from the site benchmark's generator, on a small site."""

from __future__ import annotations

import csv
import json
import warnings

import pytest

from maui_py.cli.main import maui_sim_main
from maui_py.sim.importers import load_workload
from maui_py.sim.importers.nodes import read_cluster
from maui_py.sim.importers.workload import ImportLineWarning
from maui_py.sim.whatif import ConfigVariant, make_plan
from tests.scripts import load_script



def _generator():
    return load_script("benchmarks/site/generate.py", "site_generate_cli")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    cluster, log = _generator().generate(out, days=1, scale=0.04, seed=11)
    return cluster, log


def test_a_sacct_log_is_replayed_once_with_names_in_jobs_csv(site, tmp_path, capsys):
    cluster, log = site
    rc = maui_sim_main([str(log), "--format", "sacct", "--cluster", str(cluster), "-c",
                        "config/easy.cfg", "--out", str(tmp_path), "-q"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert "sacct.txt on 40 nodes" in captured.out and "passed" in captured.out
    assert "never started (cancelled or still queued)" in captured.err     # what was left out
    rows = list(csv.DictReader(open(tmp_path / "jobs.csv")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ImportLineWarning)
        w = load_workload([log], "sacct")
    w.nodes = read_cluster(cluster)
    plan = make_plan(w, [ConfigVariant("a", "")], shakes=1)
    assert sorted(r["id"] for r in rows) == sorted(j["id"] for j in plan["jobs"])
    logged = {j["id"]: j for j in plan["jobs"]}
    node_parts = {n.name: n.partitions for n in w.nodes}
    for r in rows:
        j = logged[r["id"]]
        assert (r["user"], r["account"], r["partition"], r["qos"]) == (
            j["user"], j["account"], j["class_"], j["qos"])
        assert r["user"].startswith("u") and r["account"].startswith("acct")
        assert all(r["partition"] in node_parts[n] for n in r["nodes"].split())
        assert int(r["start"]) >= int(r["submit"]) >= 1_790_000_000     # the log's own times
    assert {r["partition"] for r in rows} == {"std", "bigmem", "gpu"}
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["config/easy.cfg"]["finished"] == len(rows)
    assert "2026-10-0" in captured.out                  # the log's dates, not day 1


def test_site_log_usage_errors_are_clear(site, capsys):
    cluster, log = site
    assert maui_sim_main([str(log), "--format", "sacct", "-q"]) == 2
    assert "--cluster" in capsys.readouterr().err
    assert maui_sim_main([str(log), "--format", "sacct", "--cluster", str(cluster), "--load",
                          "0.9", "-q"]) == 2
    assert "--load" in capsys.readouterr().err
    assert maui_sim_main(["--format", "sacct", "--cluster", str(cluster), "-q"]) == 2
    assert "give the log" in capsys.readouterr().err


def test_jobs_limit_and_nodes_spec_work_on_a_site_log(site, tmp_path, capsys):
    _cluster, log = site
    rc = maui_sim_main([str(log), "--format", "sacct", "--nodes", "50x128:mem=600000:gpu=4",
                        "--jobs", "25", "--out", str(tmp_path), "-q"])
    assert rc == 0, capsys.readouterr().err
    rows = list(csv.DictReader(open(tmp_path / "jobs.csv")))
    assert len(rows) == 25 and all(r["partition"] == "" for r in rows)   # nodes serve every class


def test_jobs_csv_partition_is_empty_for_a_synthetic_workload(tmp_path):
    assert maui_sim_main(["--synthetic", "20", "--out", str(tmp_path), "-q"]) == 0
    rows = list(csv.DictReader(open(tmp_path / "jobs.csv")))
    assert len(rows) == 20 and all("partition" in r and r["partition"] == "" for r in rows)


def test_a_malformed_line_is_named_and_the_rest_replayed(site, tmp_path, capsys):
    cluster, log = site
    lines = log.read_text().split("\n")
    lines.insert(3, lines[2].replace("|std|", "|std|extra|", 1).replace("2026-10", "20X6-10", 1))
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines))
    rc = maui_sim_main([str(bad), "--format", "sacct", "--cluster", str(cluster), "--out",
                        str(tmp_path / "out"), "-q"])
    err = capsys.readouterr().err
    assert rc == 0 and f"{bad}:4: skipped malformed sacct line" in err
    good = list(csv.DictReader(open(tmp_path / "out" / "jobs.csv")))
    assert len(good) > 30
    missing = tmp_path / "no-such-cluster.txt"
    assert maui_sim_main([str(log), "--format", "sacct", "--cluster", str(missing), "-q"]) == 2
    assert str(missing) in capsys.readouterr().err
