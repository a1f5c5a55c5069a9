"""The site benchmark (issue 33): a generated site and its sacct month replayed by maui-py
(config/easy.cfg and FCFS EASY, as `maui-sim LOG --format sacct --cluster` does) and by the
independent reference, each schedule checked for feasibility, and one table: CPU, RSS, jobs/s
in calm and deep-queue stretches, mean wait.

Each replay runs in its own process (its CPU and peak RSS are its own). Stretches are the
log's hours classed by the reference's queue depth at the hour's start: calm below the
median depth, deep at or above the 90th percentile; a replay's jobs/s there = the jobs
arriving in those hours / the CPU it spent simulating them. Speed figures live here, never
in tests. Usage: bench.py [SITE_DIR] [--days D] [--scale S] [--seed N] [--only maui|ref]
[--config NAME ...] (SITE_DIR is generated when it has no sacct.txt; --config adds a replay
of config/NAME.cfg, e.g. `--config conservative`, to the default two).
"""

import argparse
import csv
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import check        # noqa: E402
import generate     # noqa: E402
import logread      # noqa: E402
import reference    # noqa: E402

CONFIGS = {"maui-py easy.cfg": ROOT / "config" / "easy.cfg", "maui-py FCFS EASY": HERE / "fcfs-easy.cfg"}


def _hourly(hook_times):
    """A recorder: call(now) notes the CPU spent since the last call in the hour of `now`."""
    spent, last = {}, [time.process_time()]

    def call(now):
        t = time.process_time()
        spent[now // 3600] = spent.get(now // 3600, 0.0) + t - last[0]
        last[0] = t
    hook_times.append(spent)
    return call


def run_maui(site, cfg, out):
    """One maui-sim replay of the site (in this process); its schedule to OUT."""
    sys.path.insert(0, str(ROOT))
    from maui_py.cfg import load_config
    from maui_py.sim.engine import SimOptions, Simulation
    from maui_py.sim.importers.replay import read_site_log, replay_input
    from maui_py.sim.report import write_csv
    t0, spent = time.process_time(), []
    workload, _caught = read_site_log([site / "sacct.txt"], "sacct", site / "cluster.txt")
    cut = replay_input(workload)
    t_import = time.process_time() - t0
    hook = _hourly(spent)
    sim = Simulation(workload.nodes, cut.sims, load_config(str(cfg)),
                     SimOptions(on_cycle=lambda now, _r=None: hook(now), cycle_reserves=False), str(cfg))
    result = sim.run()
    write_csv(result, Path(out))
    return {"import": t_import, "hours": spent[0], "violations": len(result.check.violations)}


def run_ref(site, out):
    spent = []
    nodes, jobs = logread.read_cluster(site / "cluster.txt"), logread.read_jobs(site / "sacct.txt")
    sched, _passes = reference.simulate(nodes, jobs, _hourly(spent))
    with open(out, "w") as f:
        f.write("id,start,end,nodes\n")
        for jid, (s, e, ns) in sched.items():
            f.write(f"{jid},{s},{e},{' '.join(nodes[i]['name'] for i in ns)}\n")
    return {"hours": spent[0]}


def child(argv):
    """`bench.py --child maui|ref SITE OUT [CFG]`: one replay; prints a JSON line."""
    kind, site, out = argv[0], Path(argv[1]), argv[2]
    t = time.process_time()
    data = run_maui(site, argv[3], out) if kind == "maui" else run_ref(site, out)
    data["cpu"] = time.process_time() - t
    data["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    data["hours"] = {str(k): v for k, v in data["hours"].items()}
    print(json.dumps(data))


def _spawn(*args):
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", *map(str, args)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def stretches(jobs, sched):
    """{hour: class} (calm / deep / other) by the reference's queue depth at each hour."""
    starts = sorted(sched[j["id"]][0] for j in jobs)
    arrivals = sorted(j["arrival"] for j in jobs)
    first, last = arrivals[0] // 3600, arrivals[-1] // 3600
    from bisect import bisect_right
    depth = {h: bisect_right(arrivals, h * 3600) - bisect_right(starts, h * 3600)
             for h in range(first, last + 1)}
    ranked = sorted(depth.values())
    median, p90 = max(ranked[len(ranked) // 2], 1), max(ranked[int(len(ranked) * 0.9)], 1)
    return {h: "deep" if d >= p90 else "calm" if d < median else "other"
            for h, d in depth.items()}, median, p90


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        return child(argv[1:])
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("site", type=Path, nargs="?", default=Path("site-bench"))
    p.add_argument("--days", type=float, default=30.0)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--only", choices=("maui", "ref"))
    p.add_argument("--config", action="append", default=[], metavar="NAME",
                   help="also replay config/NAME.cfg (e.g. conservative, fairshare)")
    a = p.parse_args(argv)
    configs = dict(CONFIGS)
    for name in a.config:
        cfg = ROOT / "config" / f"{name}.cfg"
        if not cfg.exists():
            p.error(f"--config {name}: no {cfg}")
        configs[f"maui-py {name}.cfg"] = cfg
    if not (a.site / "sacct.txt").exists():
        generate.generate(a.site, a.days, a.scale, a.seed)
    nodes, jobs = logread.read_cluster(a.site / "cluster.txt"), logread.read_jobs(a.site / "sacct.txt")
    runs = {}
    if a.only != "maui":
        runs["reference EASY"] = (_spawn("ref", a.site, a.site / "ref.csv"), a.site / "ref.csv")
    if a.only != "ref":
        for name, cfg in configs.items():
            out = a.site / f"jobs-{cfg.stem}.csv"
            runs[name] = (_spawn("maui", a.site, out, cfg), out)
    ref_rows = list(csv.DictReader(open(a.site / "ref.csv")))
    sched = {r["id"]: (int(r["start"]),) for r in ref_rows}
    kinds, median, p90 = stretches(jobs, sched)
    arrivals_in = {}
    for j in jobs:
        k = kinds.get(j["arrival"] // 3600, "other")
        arrivals_in[k] = arrivals_in.get(k, 0) + 1
    print(f"{a.site}: {len(nodes)} nodes, {len(jobs)} replayable jobs; stretches by the "
          f"reference's queue depth: calm < {median} ({arrivals_in.get('calm', 0)} jobs), "
          f"deep >= {p90} ({arrivals_in.get('deep', 0)} jobs)")
    print(f"{'replay':20} {'CPU s':>8} {'RSS MB':>7} {'jobs/s calm':>11} {'jobs/s deep':>11} "
          f"{'mean wait':>10} {'feasible':>9}  (CPU: whole process, maui-py's import included)")
    arrival = {j["id"]: j["arrival"] for j in jobs}
    for name, (data, out) in runs.items():
        rows = list(csv.DictReader(open(out)))
        problems = check.check(nodes, jobs, rows)
        waits = [int(r["start"]) - arrival[r["id"]] for r in rows if r["start"]]
        cpu_in = {}
        for h, s in data["hours"].items():
            k = kinds.get(int(h), "other")
            cpu_in[k] = cpu_in.get(k, 0.0) + s
        rate = {k: arrivals_in.get(k, 0) / cpu_in[k] if cpu_in.get(k) else float("nan")
                for k in ("calm", "deep")}
        wait = sum(waits) / max(len(waits), 1)
        print(f"{name:20} {data['cpu']:8.1f} {data['rss_mb']:7.0f} {rate['calm']:11.0f} "
              f"{rate['deep']:11.0f} {wait / 60:8.1f} m {'yes' if not problems else len(problems):>9}")
        for line in problems[:3]:
            print(f"  {line}")


if __name__ == "__main__":
    main()
