"""Is a replay's schedule feasible on the site? Reads a jobs.csv (maui-sim's, or the
reference's: id, start, end, nodes) with the site's cluster and log, and checks, sharing no
code with maui_py: every replayable job ran, on NNodes distinct nodes of its partition
having its features, not before it arrived; and at no instant is any node's core, memory or
GPU count over its capacity (each job holding its even share on each of its nodes from
start to end; at one instant ends come before starts).
Usage: check.py SITE_DIR JOBS_CSV   (exit 1 and the first problems when infeasible)
"""

import csv
import sys
from pathlib import Path

from logread import read_cluster, read_jobs

MAX_SHOWN = 10


def check(nodes, jobs, rows):
    """The problems found (empty: feasible)."""
    by_name = {n["name"]: n for n in nodes}
    ran = {r["id"]: r for r in rows}
    bad, events = [], []
    for j in jobs:
        r = ran.get(j["id"])
        if r is None or not r["start"]:
            bad.append(f"job {j['id']} did not run")
            continue
        start, end, names = int(r["start"]), int(r["end"]), r["nodes"].split()
        if start < j["arrival"]:
            bad.append(f"job {j['id']} started at {start}, before it arrived at {j['arrival']}")
        if end - start != j["run"]:
            bad.append(f"job {j['id']} ran {end - start} s, its log says {j['run']} s")
        if len(set(names)) != j["nnodes"] or len(names) != j["nnodes"]:
            bad.append(f"job {j['id']} ran on {names}, it asked for {j['nnodes']} distinct nodes")
        for name in names:
            n = by_name.get(name)
            if n is None or j["part"] not in n["parts"] or not j["feats"] <= n["feats"]:
                bad.append(f"job {j['id']} (partition {j['part']}) ran on {name}, not in it")
                continue
            events.append((end, 0, name, j))
            events.append((start, 1, name, j))
    events.sort(key=lambda e: (e[0], e[1]))
    use = {n["name"]: [0, 0, 0] for n in nodes}
    for t, kind, name, j in events:
        sign = 1 if kind else -1
        u, n = use[name], by_name[name]
        u[0] += sign * j["cpn"]
        u[1] += sign * j["mpn"]
        u[2] += sign * j["gpn"]
        if kind and (u[0] > n["cores"] or u[1] > n["mem"] or u[2] > n["gpus"]):
            bad.append(f"at {t} node {name} holds {u[0]} cores, {u[1]} MB, {u[2]} GPUs "
                       f"(has {n['cores']}, {n['mem']}, {n['gpus']}) after job {j['id']} started")
    return bad


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    site, path = Path(argv[0]), Path(argv[1])
    rows = list(csv.DictReader(open(path)))
    bad = check(read_cluster(site / "cluster.txt"), read_jobs(site / "sacct.txt"), rows)
    for line in bad[:MAX_SHOWN]:
        print(line)
    print(f"{path}: {'feasible' if not bad else f'{len(bad)} problems'} ({len(rows)} jobs)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
