"""What one replay cycle that starts a job costs at the least (issue 12). Prints figures;
asserts nothing.

A replay of jobs that each arrive alone on an idle machine and start at once (FCFS EASY, one
processor per node, the count planner): every cycle starts one job on an empty queue, and
every job ends before the next arrives (that end is left out: the next arrival's cycle takes
it). The CPU time per job is the fixed cost of a cycle that starts a job, its snapshot,
the simulated start and the later end included: the floor under every start of a trace
replay, against the 3-5 us a whole event costs benchmarks/reference_sim.py. Per job, not
per cycle: a core that runs a cycle at each end too (before replays left idle ones out)
runs two cycles per job.

    python benchmarks/start_cycle.py [--jobs 20000] [--nodes 400] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from maui_py.cfg import parse_config
from maui_py.model import Job, JobRequest, Resources
from maui_py.sim.cluster import cluster_from_option
from maui_py.sim.engine import Simulation
from maui_py.sim.swf import SimJob

EASY = "QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n"


def workload(jobs: int) -> list[SimJob]:
    """Job k arrives at 10 k, asks 1 + k % 8 processors for 100 s and runs 5 s."""
    return [SimJob(Job(id=str(k), user="u", request=JobRequest(
        tasks=1 + k % 8, per_task=Resources(procs=1)), wallclock=100, submit_time=10 * k), 5)
        for k in range(jobs)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=20_000)
    ap.add_argument("--nodes", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    nodes = cluster_from_option(f"{args.nodes}x1")
    config = parse_config(EASY, "<start_cycle.py>")
    per = []
    for _ in range(args.rounds):
        sim = Simulation(nodes, workload(args.jobs), config)
        c0 = time.process_time()
        result = sim.run()
        cpu = time.process_time() - c0
        started = sum(1 for r in result.records.values() if r.start == r.job.submit_time)
        if started != args.jobs or not result.check.ok:
            print(f"unexpected replay: {started} of {args.jobs} started at arrival, "
                  f"check {'ok' if result.check.ok else 'failed'}")
            return 1
        per.append(cpu / args.jobs * 1e6)
        print(f"{result.cycles} cycles, {cpu:.2f} s CPU, {per[-1]:.1f} us per job", flush=True)
    print(f"median {statistics.median(per):.1f} us per job started (its cycle, start and end)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
