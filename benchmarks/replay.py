"""Whole trace replays (issue 5): wall time, peak memory and the figures that compare with
the literature. Prints figures; not a test. Each replay runs in a fresh process so that its
peak RSS is its own.

    python benchmarks/replay.py                   # CTC-SP2 and HPC2N, EASY and conservative
    python benchmarks/replay.py --bsld            # KTH, CTC, SDSC EASY vs the published BSLD
    python benchmarks/replay.py --trace KTH-SP2-1996-2.1-cln.swf.gz --policy easy

Published average bounded slowdowns (FCFS, EASY, requested times as estimates; Gaussier et
al., SC'15, via ../shared/traces/README.md): KTH-SP2 92.58, CTC-SP2 49.57, SDSC-SP2 87.87.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
POLICIES = {
    "easy": "QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n",
    "conservative": "QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 100000\nBACKFILLPOLICY FIRSTFIT\n",
}
ESTIMATES = "max"
"""The estimate rule of the issue-12 figures (docs/simulator.md, Figures). The published
figures were made with the request as estimate and one pass per event: those are reproduced
by benchmarks/prediction.py (issue 17), not here."""
PUBLISHED = {"KTH-SP2-1996-2.1-cln.swf.gz": 92.58, "CTC-SP2-1996-3.1-cln.swf.gz": 49.57,
             "SDSC-SP2-1998-4.2-cln.swf.gz": 87.87}


def one(trace: str, policy: str) -> dict:
    """Replay one trace under one policy in this process; the figures as a dict."""
    from maui_py.cfg import parse_config
    from maui_py.sim.cluster import from_trace_header
    from maui_py.sim.engine import Simulation
    from maui_py.sim.metrics import summarize
    from maui_py.sim.swf import clean, read_swf, to_sim_jobs

    t0 = time.perf_counter()
    header, records = read_swf(TRACES / trace)
    kept, _report = clean(records, header.max_procs or header.max_nodes, estimates=ESTIMATES)
    del records
    jobs = to_sim_jobs(kept)
    del kept
    nodes = from_trace_header(header)
    t1 = time.perf_counter()
    result = Simulation(nodes, jobs, parse_config(POLICIES[policy])).run()
    s = summarize(result.records, len(nodes)).total
    return {"trace": trace, "policy": policy, "jobs": len(jobs), "nodes": len(nodes),
            "read_s": round(t1 - t0, 2), "replay_s": round(result.wall_seconds, 2),
            "total_s": round(time.perf_counter() - t0, 2), "cycles": result.cycles,
            "bsld": round(s.bsld_mean, 2), "utilization": round(s.utilization, 4),
            "wait_mean": round(s.wait_mean), "backfill_share": round(s.backfill_share, 3),
            "check_ok": result.check.ok and not result.unfinished,
            "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def run_child(trace: str, policy: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", trace, policy,
                          "--estimates", ESTIMATES],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=2, metavar=("TRACE", "POLICY"), help=argparse.SUPPRESS)
    ap.add_argument("--bsld", action="store_true", help="KTH, CTC, SDSC under EASY vs published")
    ap.add_argument("--trace", action="append", help="trace file name in ../shared/traces")
    ap.add_argument("--policy", action="append", choices=sorted(POLICIES))
    ap.add_argument("--estimates", choices=("max", "requested"), default="max")
    args = ap.parse_args()
    global ESTIMATES
    ESTIMATES = args.estimates
    if args.child:
        print(json.dumps(one(*args.child)))
        return 0
    if args.bsld:
        runs = [(t, "easy") for t in PUBLISHED]
    else:
        traces = args.trace or ["CTC-SP2-1996-3.1-cln.swf.gz", "HPC2N-2002-2.2-cln.swf.gz"]
        runs = [(t, p) for t in traces for p in (args.policy or ["easy", "conservative"])]
    cols = ("trace", "policy", "jobs", "replay_s", "total_s", "peak_mb", "cycles", "bsld",
            "utilization", "backfill_share", "check_ok")
    print("  ".join(f"{c:>12}" for c in cols) + "  published_bsld  diff")
    for trace, policy in runs:
        r = run_child(trace, policy)
        pub = PUBLISHED.get(trace) if policy == "easy" else None
        tail = f"  {pub:>14}  {100 * (r['bsld'] - pub) / pub:+.2f}%" if pub else ""
        print("  ".join(f"{str(r[c])[:12]:>12}" for c in cols) + tail, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
