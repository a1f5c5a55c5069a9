"""The three fair-sharing policies on one trace (issue 6). Prints one table; not a test.

The first --jobs jobs of a real trace (KTH-SP2 by default, 100 processors), cleaned as usual,
with every user put in one of three projects (the job's account) by user id: 0-4 mod 10
physics, 5-7 chemistry, 8-9 biology; arrivals are compressed to an offered load of --load so
that the projects compete. Each configuration runs on the same jobs:

    maui (no fair share)   Maui's defaults: FIFO with EASY backfill
    config/fairshare.cfg   Maui fair share, project targets 50/30/20
    config/armada.cfg      ARMADA, factors 1, 2.78, 6.25 (long-run shares 50/30/20)
    config/fbsng.cfg       FBSNG, QPD 6, 10, 15 (50/30/20 of the starts)

Columns: each project's share of the processor-seconds delivered while jobs were still
arriving (the busy period, when the policy decides who gets the machine), its demand share,
its mean wait in hours; then utilization and mean bounded slowdown over the whole run.

    python benchmarks/fairness.py [--trace PATH] [--jobs N] [--load X]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

from maui_py.cfg import load_config, parse_config
from maui_py.model import Node, Resources
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.metrics import figures
from maui_py.sim.swf import SimJob, clean, read_swf, to_sim_jobs

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT.parent / "shared" / "traces"
PROJECTS = ("physics", "chemistry", "biology")
CONFIGS = (("maui (no fair share)", None), ("fairshare.cfg", "fairshare.cfg"),
           ("armada.cfg", "armada.cfg"), ("fbsng.cfg", "fbsng.cfg"))


def project(user: str) -> str:
    n = int(user.removeprefix("user")) % 10
    return PROJECTS[0] if n < 5 else PROJECTS[1] if n < 8 else PROJECTS[2]


def workload(trace: Path, jobs: int, load: float) -> tuple[list[SimJob], int]:
    """The first `jobs` cleaned jobs, accounts set, arrivals scaled to offered load `load`."""
    header, records = read_swf(trace)
    machine = header.max_procs or 100
    kept, _ = clean(records, machine)
    sims = to_sim_jobs(kept[:jobs])
    t0 = sims[0].job.submit_time
    span = max(1, sims[-1].job.submit_time - t0)
    work = sum(s.job.procs * s.runtime for s in sims)
    scale = work / (machine * span) / load
    out = []
    for s in sims:
        job = replace(s.job, account=project(s.job.user), submit_time=int((s.job.submit_time - t0) * scale))
        out.append(SimJob(job, s.runtime))
    return out, machine


def row(name: str, cfg, sims: list[SimJob], machine: int) -> list[str]:
    nodes = tuple(Node(f"n{i:03d}", Resources.of(1)) for i in range(machine))
    t0 = time.perf_counter()
    res = Simulation(nodes, sims, cfg, SimOptions()).run()
    wall = time.perf_counter() - t0
    busy_end = max(s.job.submit_time for s in sims)
    delivered = {p: 0.0 for p in PROJECTS}
    demand = {p: 0.0 for p in PROJECTS}
    waits: dict[str, list[int]] = {p: [] for p in PROJECTS}
    for r in res.records.values():
        p = r.job.account
        demand[p] += r.job.procs * r.runtime
        if r.start is not None:
            waits[p].append(r.start - r.job.submit_time)
            if r.start < busy_end:
                delivered[p] += r.job.procs * (min(r.end if r.end is not None else busy_end, busy_end) - r.start)
    total, need = sum(delivered.values()), sum(demand.values())
    f = figures(res.records.values(), machine)
    cells = [name]
    cells += [f"{100 * delivered[p] / total:.1f} ({100 * demand[p] / need:.0f})" for p in PROJECTS]
    cells += [f"{sum(waits[p]) / max(1, len(waits[p])) / 3600:.2f}" for p in PROJECTS]
    cells += [f"{f.utilization:.3f}", f"{f.bsld_mean:.1f}", f"{wall:.0f}"]
    return cells


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", type=Path, default=TRACES / "KTH-SP2-1996-2.1-cln.swf.gz")
    ap.add_argument("--jobs", type=int, default=3000)
    ap.add_argument("--load", type=float, default=1.3)
    args = ap.parse_args()
    sims, machine = workload(args.trace, args.jobs, args.load)
    head = (["policy"] + [f"{p} % (demand)" for p in PROJECTS] + [f"{p} wait h" for p in PROJECTS]
            + ["util", "bsld", "wall s"])
    print(f"{args.trace.name}: first {args.jobs} jobs, {machine} processors, offered load {args.load}")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name, file in CONFIGS:
        cfg = load_config(ROOT / "config" / file) if file else parse_config("", "defaults")
        print("| " + " | ".join(row(name, cfg, sims, machine)) + " |", flush=True)


if __name__ == "__main__":
    main()
