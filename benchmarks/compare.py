"""maui-py's simulator side by side with the independent reference (issue 12).

Cleans a trace as the replays do (read_swf + clean(estimates="max")), writes the cleaned
jobs to a temporary SWF, then runs benchmarks/reference_sim.py and maui-py's Simulation on
it, each in its own process (so that CPU time and peak RSS are its own), and prints: CPU
seconds of each and their ratio, peak RSS, BSLD and the relative difference, and a
job-for-job comparison of start times (how many differ, and the first divergence in
simulated time). Prints figures; asserts nothing.

    python benchmarks/compare.py --jobs 5000                       # KTH-SP2, EASY
    python benchmarks/compare.py --trace CTC-SP2-1996-3.1-cln.swf.gz --policy both
    python benchmarks/compare.py --policy easy --maui-config config/easy.cfg --json
    python benchmarks/compare.py --skip-maui --policy both         # the reference only
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRACES = HERE.parents[1] / "shared" / "traces"
REFERENCE = HERE / "reference_sim.py"
DEFAULT_TRACE = "KTH-SP2-1996-2.1-cln.swf.gz"
POLICIES = {
    "easy": "QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n",
    "conservative": "QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 100000\nBACKFILLPOLICY FIRSTFIT\n",
}


def machine_procs(spec: str | None) -> int | None:
    """Processors of a --nodes spec (None: the trace header's)."""
    if not spec:
        return None
    from maui_py.sim.cluster import cluster_from_option
    return sum(n.resources.procs for n in cluster_from_option(spec))


def prepare(trace: Path, first: int | None, dest: Path, estimates: str = "max",
            machine: int | None = None) -> tuple[int, dict[str, tuple]]:
    """Write the cleaned jobs (the first `first` of them) to dest; (machine procs,
    {job id: (submit, procs, requested time, runtime)})."""
    from maui_py.sim.swf import clean, read_swf, write_swf

    header, records = read_swf(trace)
    procs = machine or header.max_procs or header.max_nodes
    kept, _report = clean(records, procs, estimates=estimates)
    if first:
        kept = kept[:first]
    write_swf(kept, dest, header)
    return procs, {str(r.job_id): (r.submit, r.procs, r.req_time, r.runtime) for r in kept}


def peak_rss_mb() -> float:
    """Peak RSS of this process image: VmHWM on Linux (ru_maxrss would include the parent's
    RSS at fork, since Linux carries it over exec), else ru_maxrss."""
    try:
        with open("/proc/self/status") as f:
            return next(int(ln.split()[1]) for ln in f if ln.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def maui_child(swf: str, config_file: str, policy: str, out: str, nodes_spec: str = "") -> dict:
    """Replay the cleaned SWF with maui-py in this process; figures as a dict."""
    from maui_py.cfg import parse_config
    from maui_py.sim.cluster import cluster_from_option, from_trace_header
    from maui_py.sim.engine import Simulation
    from maui_py.sim.metrics import summarize
    from maui_py.sim.swf import read_swf, to_sim_jobs

    header, records = read_swf(swf)
    jobs = to_sim_jobs(records)
    del records                 # the replay's memory, not the reader's
    nodes = cluster_from_option(nodes_spec) if nodes_spec else from_trace_header(header)
    text = Path(config_file).read_text() if config_file else POLICIES[policy]
    config = parse_config(text, config_file or "<compare.py>")
    c0 = time.process_time()
    result = Simulation(nodes, jobs, config).run()
    cpu = time.process_time() - c0
    s = summarize(result.records, sum(n.resources.procs for n in nodes)).total
    with open(out, "w") as f:
        f.writelines(f"{jid} {r.start if r.start is not None else -1} "
                     f"{r.end if r.end is not None else -1}\n"
                     for jid, r in result.records.items())
    return {"cpu_s": round(cpu, 3), "wall_s": round(result.wall_seconds, 3),
            "peak_rss_mb": round(peak_rss_mb(), 1),
            "bsld": round(s.bsld_mean, 4), "utilization": round(s.utilization, 4),
            "mean_wait": round(s.wait_mean, 1), "cycles": result.cycles,
            "check_ok": result.check.ok, "unfinished": len(result.unfinished)}


def run_reference(swf: Path, policy: str, procs: int, out: Path) -> dict:
    proc = subprocess.run([sys.executable, str(REFERENCE), str(swf), "--policy", policy,
                           "--procs", str(procs), "--out", str(out)],
                          capture_output=True, text=True, check=True)
    tokens = proc.stdout.split()
    figures = dict(zip(tokens[::2], tokens[1::2]))
    return {"cpu_s": float(figures["cpu_s"]), "peak_rss_mb": float(figures["peak_rss_mb"]),
            "bsld": float(figures["bsld"]), "utilization": float(figures["utilization"]),
            "mean_wait": float(figures["mean_wait"])}


def run_maui(swf: Path, policy: str, config_file: str | None, out: Path,
             root: str | None = None, nodes: str | None = None) -> dict:
    """maui-py's replay in a child process; `root`: a checkout whose maui_py to import
    instead of the installed one (an older core, for a job-for-job comparison)."""
    env = dict(os.environ, PYTHONPATH=root) if root else None
    proc = subprocess.run([sys.executable, __file__, "--maui-child", str(swf), policy,
                           str(out), "--maui-config", config_file or "", "--nodes", nodes or ""],
                          capture_output=True, text=True, check=True, env=env)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def read_starts(path: Path) -> dict[str, int]:
    starts = {}
    for line in path.read_text().splitlines():
        jid, start, _end = line.split()
        starts[jid] = int(start)
    return starts


def compare_starts(ref: dict[str, int], maui: dict[str, int], jobs: dict[str, tuple]) -> dict:
    """How many jobs start at different times, and the first divergence in simulated time
    (the differing job whose earlier of the two starts is smallest; then submit, id)."""
    differ = [j for j in jobs if ref.get(j, -1) != maui.get(j, -1)]
    out: dict = {"jobs_compared": len(jobs), "starts_differ": len(differ)}
    if differ:
        def when(j: str) -> tuple:
            a, b = ref.get(j, -1), maui.get(j, -1)
            return (min(x for x in (a, b, float("inf")) if x >= 0), jobs[j][0], int(j))
        j = min(differ, key=when)
        submit, procs, req, run = jobs[j]
        out["first_divergence"] = {"job": j, "submit": submit, "procs": procs, "req": req,
                                   "run": run, "ref_start": ref.get(j, -1),
                                   "maui_start": maui.get(j, -1)}
    return out


def one_run(trace: str, policy: str, args, tmp: Path, swf: Path, procs: int,
            jobs: dict[str, tuple]) -> dict:
    row: dict = {"trace": trace, "policy": policy, "jobs": len(jobs), "procs": procs,
                 "maui_config": args.maui_config or "default"}
    ref_out = tmp / f"ref-{policy}.txt"
    row["reference"] = run_reference(swf, policy, procs, ref_out)
    if args.skip_maui:
        return row
    maui_out = tmp / f"maui-{policy}.txt"
    row["maui"] = m = run_maui(swf, policy, args.maui_config, maui_out, args.maui_root,
                               args.nodes)
    r = row["reference"]
    row["cpu_ratio"] = round(m["cpu_s"] / r["cpu_s"], 1) if r["cpu_s"] > 0 else None
    row["bsld_rel_diff"] = round((m["bsld"] - r["bsld"]) / r["bsld"], 6) if r["bsld"] else None
    row.update(compare_starts(read_starts(ref_out), read_starts(maui_out), jobs))
    return row


def show(row: dict) -> None:
    r, m = row["reference"], row.get("maui")
    print(f"{row['trace']}  {row['policy']}  {row['jobs']} jobs  {row['procs']} procs  "
          f"maui config: {row['maui_config']}")
    print(f"  {'':14}{'reference':>12}{'maui-py' if m else '':>12}")
    for key in ("cpu_s", "peak_rss_mb", "bsld", "utilization", "mean_wait"):
        print(f"  {key:14}{r[key]:>12}{m[key] if m else '':>12}")
    if not m:
        return
    print(f"  cpu ratio maui-py / reference: {row['cpu_ratio']}x   maui-py wall "
          f"{m['wall_s']} s, {m['cycles']} cycles, check_ok {m['check_ok']}, "
          f"unfinished {m['unfinished']}")
    print(f"  bsld relative difference (maui-py - reference) / reference: "
          f"{100 * row['bsld_rel_diff']:+.4f}%")
    print(f"  start times differ: {row['starts_differ']} of {row['jobs_compared']} jobs")
    d = row.get("first_divergence")
    if d:
        print(f"  first divergence: job {d['job']} (submit {d['submit']}, procs {d['procs']}, "
              f"req {d['req']}, run {d['run']}): reference start {d['ref_start']}, "
              f"maui-py start {d['maui_start']}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--maui-child", nargs=3, metavar=("SWF", "POLICY", "OUT"),
                    help=argparse.SUPPRESS)
    ap.add_argument("--trace", default=DEFAULT_TRACE, help="file name in ../shared/traces")
    ap.add_argument("--policy", choices=("easy", "conservative", "both"), default="easy")
    ap.add_argument("--jobs", type=int, help="the first N cleaned jobs only")
    ap.add_argument("--maui-config", help="replay this config file with maui-py instead "
                    "of the default policy text")
    ap.add_argument("--skip-maui", action="store_true", help="run the reference only")
    ap.add_argument("--json", action="store_true", help="one JSON line per run")
    ap.add_argument("--maui-root", help="import maui_py from this checkout (e.g. a git "
                    "worktree of an older commit) instead of the installed one")
    ap.add_argument("--nodes", metavar="SPEC", help="maui-py's cluster as maui-sim's --nodes "
                    "(e.g. 5544x16); the reference gets its processor count")
    ap.add_argument("--estimates", choices=("max", "requested"), default="max",
                    help="max: a job that ran past its request gets its runtime as estimate "
                    "(issue 12's figures); requested: the README's rule, and the published "
                    "figures' (benchmarks/prediction.py reproduces those)")
    args = ap.parse_args()
    if args.maui_child:
        print(json.dumps(maui_child(args.maui_child[0], args.maui_config or "",
                                    args.maui_child[1], args.maui_child[2], args.nodes or "")))
        return 0
    if args.maui_config:
        args.maui_config = str(Path(args.maui_config).resolve())
    policies = ["easy", "conservative"] if args.policy == "both" else [args.policy]
    with tempfile.TemporaryDirectory(prefix="maui-compare-") as tmpdir:
        tmp = Path(tmpdir)
        swf = tmp / "cleaned.swf"
        procs, jobs = prepare(TRACES / args.trace, args.jobs, swf, args.estimates,
                              machine_procs(args.nodes))
        for policy in policies:
            row = one_run(args.trace, policy, args, tmp, swf, procs, jobs)
            print(json.dumps(row)) if args.json else show(row)
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
