"""The site benchmark's generator (benchmarks/site/generate.py, issue 33): the importer reads
what it writes, and the log has the shape the issue asks for (one-core share, MPI jobs of
whole nodes, GPU jobs in the gpu partition, memory per cpu and per node), on a small site."""

from __future__ import annotations

import warnings

import pytest

from maui_py.sim.importers import load_workload
from maui_py.sim.importers.nodes import read_cluster
from maui_py.sim.importers.workload import ImportLineWarning, fits, replayable, to_sim_jobs
from tests.scripts import load_script



def _module(name: str):
    return load_script(f"benchmarks/site/{name}.py", f"site_{name}_unit")


GEN = _module("generate")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    cluster, log = GEN.generate(out, days=3, scale=0.05, seed=7)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ImportLineWarning)      # not one malformed line
        w = load_workload([log], "sacct")
    return out, read_cluster(cluster), w


def test_cluster_has_the_three_partitions_scaled(site):
    _out, nodes, _w = site
    by_part: dict[str, list] = {}
    for n in nodes:
        (part,) = n.partitions
        by_part.setdefault(part, []).append(n)
    assert {p: len(v) for p, v in by_part.items()} == {"std": 40, "bigmem": 8, "gpu": 2}
    assert {(n.resources.procs, n.resources.mem, n.resources.gres) for n in by_part["gpu"]} == {
        (64, 512_000, (("gpu", 4),))}
    assert {n.resources.procs for n in by_part["bigmem"]} == {128}


def test_log_shape(site):
    _out, nodes, w = site
    jobs, left_out = replayable(w)
    total = len(w.jobs)
    assert 650 <= total <= 750                     # 146,500 / 30 x 3 days x 0.05
    assert len(jobs) / total > 0.93                # cancelled while queued, running at the end
    assert left_out.get("never started (cancelled or still queued)", 0) > 0
    assert 0.50 <= sum(j.procs == 1 for j in jobs) / len(jobs) <= 0.60
    mpi = [j for j in jobs if j.nodes >= 2 and j.class_ == "std"]
    assert mpi and all(j.procs == 64 * j.nodes for j in mpi)        # whole nodes
    gpu = [j for j in jobs if j.gres]
    assert gpu and all(j.class_ == "gpu" and dict(j.gres)["gpu"] <= 4 * j.nodes for j in gpu)
    assert sum(bool(j.array_id) for j in jobs) > 0.2 * len(jobs)
    assert all(j.mem_mb > 0 for j in jobs)          # per cpu (ReqMem ...Mc), per node, or TRES
    assert len({j.user for j in jobs}) > 30
    assert all(fits(s.job, nodes) for s in to_sim_jobs(jobs))


def test_offered_load_is_near_the_target(site):
    _out, nodes, w = site
    jobs, _ = replayable(w)
    cores = sum(n.resources.procs for n in nodes)
    load = sum(j.procs * j.runtime for j in jobs) / (cores * 3 * 86400)
    assert 0.6 <= load <= 1.0


def test_seeded(tmp_path):
    a = GEN.generate(tmp_path / "a", days=0.5, scale=0.02, seed=3)
    b = GEN.generate(tmp_path / "b", days=0.5, scale=0.02, seed=3)
    c = GEN.generate(tmp_path / "c", days=0.5, scale=0.02, seed=4)
    assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b]
    assert a[1].read_bytes() != c[1].read_bytes()
