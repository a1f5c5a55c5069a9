"""The site benchmark's independent EASY reference and feasibility checker
(benchmarks/site/reference.py, check.py; issue 33), on tiny sites whose answers are worked
out by hand from EASY's definition in the comments (not from either program)."""

from __future__ import annotations

import importlib.util
import sys
from datetime import datetime, timedelta
from pathlib import Path

SITE = Path(__file__).resolve().parents[2] / "benchmarks" / "site"
HEADER = ("JobID|JobIDRaw|JobName|User|Group|Account|Partition|QOS|Submit|Eligible|Start|End|"
          "Timelimit|NNodes|NCPUS|ReqMem|ReqTRES|AllocTRES|NodeList|State|ExitCode|Constraints")


def _load(name: str):
    sys.path.insert(0, str(SITE))
    try:
        spec = importlib.util.spec_from_file_location(f"site_{name}_test", SITE / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(str(SITE))


REF, CHECK, READ = _load("reference"), _load("check"), _load("logread")


def _stamp(t: int) -> str:
    return (datetime(2026, 10, 1) + timedelta(seconds=t)).strftime("%Y-%m-%dT%H:%M:%S")


def _hms(s: int) -> str:
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _site(tmp_path: Path, nodes: list[str], jobs: list[tuple]) -> Path:
    """jobs: (id, arrival, run, wall, cpus, nnodes, mem per node MB, gpus, partition)."""
    (tmp_path / "cluster.txt").write_text("\n".join(nodes) + "\n")
    rows = [HEADER]
    for jid, t, run, wall, cpus, n, mpn, gpus, part in jobs:
        stamp = _stamp(t)
        tres = f"cpu={cpus},node={n},mem={mpn * n}M" + (f",gres/gpu={gpus}" if gpus else "")
        rows.append(f"{jid}|{jid}|x|u|g|a|{part}|normal|{stamp}|{stamp}|{stamp}|"
                    f"{_stamp(t + run)}|{_hms(wall)}|{n}|{cpus}|"
                    f"{mpn * n}M|{tres}|{tres}|n1|COMPLETED|0:0|")
    (tmp_path / "sacct.txt").write_text("\n".join(rows) + "\n")
    return tmp_path


def _replay(site: Path):
    nodes, jobs = READ.read_cluster(site / "cluster.txt"), READ.read_jobs(site / "sacct.txt")
    out, _passes = REF.simulate(nodes, jobs)
    t0 = min(j["arrival"] for j in jobs)
    return {jid: (s - t0, e - t0, [nodes[i]["name"] for i in ns]) for jid, (s, e, ns) in out.items()}


def test_easy_backfills_short_jobs_only_before_the_reservation(tmp_path):
    # Nodes A, B: 4 cores, 1000 MB.
    # 1 (t=0, 1 node x 4 cores, 100 s) starts on A; 2 (t=0, 2 cores, 300 s) on B.
    # 3 (t=10, 2 whole nodes, 50 s) is the head: A frees at 100, B at 300: reserved at 300.
    # 4 (t=20, 2 cores, limit 100 s) ends by 120 <= 300: backfilled now on B.
    # 5 (t=30, 2 cores, limit 400 s) would run past 300, and both nodes are reserved whole:
    #   it waits; 3 starts at 300 (ends 350); then 5 starts at 350 on A.
    site = _site(tmp_path, ["A|4|1000|f|(null)|p", "B|4|1000|f|(null)|p"], [
        ("1", 0, 100, 100, 4, 1, 100, 0, "p"), ("2", 0, 300, 300, 2, 1, 100, 0, "p"),
        ("3", 10, 50, 50, 8, 2, 100, 0, "p"), ("4", 20, 100, 100, 2, 1, 100, 0, "p"),
        ("5", 30, 400, 400, 2, 1, 100, 0, "p")])
    assert _replay(site) == {"1": (0, 100, ["A"]), "2": (0, 300, ["B"]), "3": (300, 350, ["A", "B"]),
                             "4": (20, 120, ["B"]), "5": (350, 750, ["A"])}


def test_memory_gpus_and_partitions_bound_the_starts(tmp_path):
    # A (partition p): 4 cores, 1000 MB; G (partition gpu): 8 cores, 1000 MB, 2 GPUs.
    # 1 (p, 1 core, 800 MB, 100 s) starts on A; 2 (p, 1 core, 400 MB, 50 s) does not fit
    # A's 200 MB left (cores do), G is not in p: the head, reserved at 100, starts then.
    # 3 (gpu, 1 core, 2 GPUs, 60 s) starts on G at 0; 4 (gpu, 1 core, 1 GPU, 10 s) finds no
    # GPU left: waits for 3's end at 60. 5 (p, 1 core, 100 MB, limit 30 s, t=5) fits A now
    # and ends by 35 <= 100: backfilled at 5.
    site = _site(tmp_path, ["A|4|1000|f|(null)|p", "G|8|1000|f|gpu:a100:2|gpu"], [
        ("1", 0, 100, 100, 1, 1, 800, 0, "p"), ("2", 0, 50, 50, 1, 1, 400, 0, "p"),
        ("3", 0, 60, 60, 1, 1, 100, 2, "gpu"), ("4", 0, 10, 10, 1, 1, 100, 1, "gpu"),
        ("5", 5, 30, 30, 1, 1, 100, 0, "p")])
    assert _replay(site) == {"1": (0, 100, ["A"]), "2": (100, 150, ["A"]), "3": (0, 60, ["G"]),
                             "4": (60, 70, ["G"]), "5": (5, 35, ["A"])}


def _rows(*rows):
    return [dict(zip(("id", "start", "end", "nodes"), r)) for r in rows]


def test_checker_accepts_a_feasible_schedule_and_names_each_problem(tmp_path):
    # Two nodes of 4 cores / 1000 MB / 1 GPU, A in p, B in q. Jobs: 1 (p, 4 cores, 100 s),
    # 2 (p, 2 cores, 50 s), 3 (q, 1 GPU, 10 s). Feasible: 1 on A [0, 100), 2 on A [100, 150)
    # (an end and a start at one instant do not overlap), 3 on B.
    site = _site(tmp_path, ["A|4|1000|f|gpu:x:1|p", "B|4|1000|f|gpu:x:1|q"], [
        ("1", 0, 100, 100, 4, 1, 100, 0, "p"), ("2", 0, 50, 50, 2, 1, 100, 0, "p"),
        ("3", 0, 10, 10, 1, 1, 100, 1, "q")])
    nodes, jobs = READ.read_cluster(site / "cluster.txt"), READ.read_jobs(site / "sacct.txt")
    t0 = jobs[0]["arrival"]
    ok = _rows(("1", t0, t0 + 100, "A"), ("2", t0 + 100, t0 + 150, "A"), ("3", t0, t0 + 10, "B"))
    assert CHECK.check(nodes, jobs, ok) == []
    # 2 on A at 50: 6 cores on a 4-core node
    over = _rows(("1", t0, t0 + 100, "A"), ("2", t0 + 50, t0 + 100, "A"), ("3", t0, t0 + 10, "B"))
    (problem,) = CHECK.check(nodes, jobs, over)
    assert "node A holds 6 cores" in problem and "job 2" in problem
    # 3 on A: A is not in q; 2 missing
    wrong = _rows(("1", t0, t0 + 100, "A"), ("3", t0, t0 + 10, "A"))
    problems = CHECK.check(nodes, jobs, wrong)
    assert "job 2 did not run" in problems and any("job 3 (partition q) ran on A" in p for p in problems)
    # a start before the arrival, and a second GPU job on B at once
    early = _rows(("1", t0 - 5, t0 + 95, "A"), ("2", t0 + 100, t0 + 150, "A"), ("3", t0, t0 + 10, "B"))
    assert any("before it arrived" in p for p in CHECK.check(nodes, jobs, early))


def test_the_reference_schedule_passes_the_checker(tmp_path):
    site = _site(tmp_path, ["A|4|1000|f|(null)|p", "B|4|1000|f|(null)|p"], [
        (str(k), 7 * k, 30 + 11 * k, 40 + 11 * k, (1 + k % 2) * (1 + k % 4), 1 + k % 2,
         100 * (1 + k % 9), 0, "p")
        for k in range(1, 30)])
    nodes, jobs = READ.read_cluster(site / "cluster.txt"), READ.read_jobs(site / "sacct.txt")
    out, _ = REF.simulate(nodes, jobs)
    rows = _rows(*((jid, s, e, " ".join(nodes[i]["name"] for i in ns)) for jid, (s, e, ns) in out.items()))
    assert CHECK.check(nodes, jobs, rows) == []
