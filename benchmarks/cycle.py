"""One scheduling cycle at cluster scale (issue 4). Prints figures; not a test.

10,000 nodes (64 cores / 256 GB, 1,000 with 4 gpus, two feature sets), 5,000 running jobs
filling about 90 % of the cores, 50,000 idle jobs whose widths and wallclocks come from a
real trace (SDSC-SP2 by default, widths scaled as in benchmarks/table.py): one cycle with
RESERVATIONDEPTH 1, 100 and 1,000, under FIRSTFIT and BESTFIT. The first cycle starts from
a fresh state (the reservation table is built from the snapshot inside the cycle) and
starts thousands of small jobs into the free cores; the next one, 60 s later with those
jobs running, is what a cycle costs in steady state: once with the state the first cycle
handed over, once from a fresh state. The first cycle is also given in CPU seconds (`cpu s`,
process_time: what a busy machine does not inflate). Each cycle is timed as mauid and the simulator run it:
with Python's cyclic garbage collector paused (maui_py/core/gcpause.py); it runs between cycles.

    python benchmarks/cycle.py [--nodes N] [--running N] [--idle N] [--depth 1 100 1000]
                               [--policy FIRSTFIT BESTFIT] [--procs-only] [--hash] [--large]

`--hash` adds a column: a digest of the first cycle's decisions (starts with their nodes,
reservations), to compare two checkouts' decisions byte for byte.

The jobs ask for memory, GPUs and features, so the cycle plans on the node table
(planning/table.py); `--procs-only` drops all but the processor counts (64-processor nodes,
one-processor tasks), the case the count planner (planning/counts.py) answers.

Issue 33's large case: `--large`, short for `--nodes 20000 --running 10000 --idle 200000
--depth 1 --policy FIRSTFIT` (twice the cluster, four times the queue; --depth and --policy
given as well win).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from table import TRACES, cluster, request, running_jobs, shapes  # noqa: E402

from maui_py.core import gcpause  # noqa: E402
from maui_py.cfg import parse_config  # noqa: E402
from maui_py.core.cycle import run_cycle  # noqa: E402
from dataclasses import replace  # noqa: E402

from maui_py.model import (ClusterSnapshot, Job, JobRequest, JobState, Node,  # noqa: E402
                           Resources, StartKind)


def parse_args(argv: list[str] | None = None, ap: argparse.ArgumentParser | None = None
               ) -> argparse.Namespace:
    """This benchmark's arguments (on `ap` when given: another tool's parser adds them),
    the defaults of the case asked (the usual one or --large) filled in."""
    ap = ap or argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", type=Path, default=TRACES / "SDSC-SP2-1998-4.2-cln.swf.gz")
    ap.add_argument("--nodes", type=int, default=None, help="default 10,000")
    ap.add_argument("--running", type=int, default=None, help="default 5,000")
    ap.add_argument("--idle", type=int, default=None, help="default 50,000")
    ap.add_argument("--depth", type=int, nargs="+", default=None, help="default 1 100 1000")
    ap.add_argument("--policy", nargs="+", default=None, help="default FIRSTFIT BESTFIT")
    ap.add_argument("--large", action="store_true",
                    help="issue 33's large case: 20,000 nodes, 10,000 running, 200,000 idle, "
                         "depth 1, FIRSTFIT")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--procs-only", action="store_true",
                    help="processors only: the count planner's case")
    ap.add_argument("--hash", action="store_true",
                    help="print a digest of each first cycle's decisions")
    args = ap.parse_args(argv)
    sizes = ((20_000, 10_000, 200_000, [1], ["FIRSTFIT"]) if args.large else
             (10_000, 5_000, 50_000, [1, 100, 1000], ["FIRSTFIT", "BESTFIT"]))
    for name, value in zip(("nodes", "running", "idle", "depth", "policy"), sizes):
        if getattr(args, name) is None:
            setattr(args, name, value)
    return args


def snapshot(args: argparse.Namespace) -> tuple[ClusterSnapshot, list[Job]]:
    """The snapshot the cycles are run on (seeded: the same for the same arguments), and
    its jobs."""
    rng = random.Random(args.seed)
    pool = shapes(args.trace, 128)
    nodes = tuple(cluster(args.nodes))
    now = 1_000_000
    jobs, scale = running_jobs(nodes, args.running, pool, rng, now)
    for k in range(args.idle):
        procs, wc = rng.choice(pool)
        jobs.append(Job(f"idle{k}", f"user{k % 211}", request(rng, procs, scale / 8), wc,
                        now - rng.randrange(0, 86400), qos=rng.choice(["", "", "hi"])))
    if args.procs_only:
        nodes, jobs = procs_only(nodes, jobs)
    return ClusterSnapshot(now, nodes, tuple(jobs)), jobs


def config(policy: str, depth: int):
    """The configuration of one row: RESERVATIONDEPTH, BACKFILLPOLICY, LASTAVAILABLE."""
    return parse_config(f"RESERVATIONDEPTH {depth}\nBACKFILLPOLICY {policy}\n"
                        "NODEALLOCATIONPOLICY LASTAVAILABLE\n")


def main() -> int:
    args = parse_args()
    snap, jobs = snapshot(args)
    nodes, now = snap.nodes, snap.now
    cores = sum(n.resources.procs for n in nodes)
    print(f"{len(nodes)} nodes, {cores} cores; {args.running} running, {args.idle} idle jobs "
          f"(trace {args.trace.name}{', processors only' if args.procs_only else ''}); cycles timed with the garbage collector paused, as mauid")
    print(f"{'policy':>9} {'depth':>6} {'cycle s':>8} {'cpu s':>6} {'starts':>7} {'backfill':>9} "
          f"{'reserved':>9} {'next s':>7} {'fresh s':>8} {'peak MB':>8}"
          + (f" {'decisions':>16}" if args.hash else ""))
    for policy in args.policy:
        for depth in args.depth:
            cfg = config(policy, depth)
            with gcpause.paused():
                t0, c0 = time.perf_counter(), time.process_time()
                r = run_cycle(snap, cfg, explain=False)
                dt, dc = time.perf_counter() - t0, time.process_time() - c0
            starts = r.starts()
            bf = sum(1 for s in starts if s.kind is StartKind.BACKFILL)
            started = {d.job_id: d for d in starts}
            later = ClusterSnapshot(now + 60, nodes, tuple(
                replace(j, state=JobState.RUNNING, start_time=now,
                        allocation=started[j.id].allocation) if j.id in started else j
                for j in jobs))
            with gcpause.paused():
                t1 = time.perf_counter()
                run_cycle(later, cfg, r.state, explain=False)
                t2 = time.perf_counter()
            with gcpause.paused():
                t2b = time.perf_counter()
                run_cycle(later, cfg, explain=False)
                t3 = time.perf_counter()
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"{policy:>9} {depth:>6} {dt:8.2f} {dc:6.2f} {len(starts):>7} {bf:>9} "
                  f"{len(r.reservations()):>9} {t2 - t1:7.2f} {t3 - t2b:8.2f} {peak:8.0f}"
                  + (f" {digest(r.decisions):>16}" if args.hash else ""), flush=True)
    return 0


def digest(decisions) -> str:
    """A short digest of a cycle's decisions in order (their reprs: job, kind, nodes and
    resources, times), equal exactly when the decisions are."""
    return hashlib.sha256("\n".join(map(repr, decisions)).encode()).hexdigest()[:16]


def procs_only(nodes, jobs):
    """The same cluster and jobs with processor counts only: every node 64 processors,
    every request that many one-processor tasks, every allocation its processors."""
    nodes = tuple(Node(n.name, Resources.of(n.resources.procs)) for n in nodes)
    jobs = [replace(j, request=JobRequest(tasks=j.request.procs),
                    allocation=tuple((nm, Resources.of(r.procs)) for nm, r in j.allocation))
            for j in jobs]
    return nodes, jobs


if __name__ == "__main__":
    sys.exit(main())
