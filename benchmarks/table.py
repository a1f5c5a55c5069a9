"""Reservation-table benchmark at cluster scale (issue 3). Prints figures; not a test.

10,000 nodes (64 cores / 256 GB; 1,000 of them with 4 gpus; two feature sets), 5,000
running jobs, 1,000 future reservations, then 10,000 varied earliest_start questions.
Job widths and wallclocks are drawn from a real trace (SDSC-SP2 by default), scaled so the
running jobs fill about 90 % of the cores: a saturated machine is the hard case.

    python benchmarks/table.py [--trace PATH] [--queries N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import resource
from pathlib import Path

from maui_py.model import JobRequest, Node, Resources
from maui_py.planning.table import ReservationTable
from maui_py.sim.swf import clean, read_swf

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"


def cluster(n: int = 10_000) -> list[Node]:
    nodes = []
    for i in range(n):
        gpu = 4 if i % 10 == 9 else 0
        feats = frozenset({"skylake"} if i % 2 == 0 else {"icelake", "ib"})
        nodes.append(Node(f"c{i:05d}", Resources.of(64, 256_000, gpu=gpu), features=feats))
    return nodes


def shapes(trace: Path, machine: int) -> list[tuple[int, int]]:
    header, recs = read_swf(trace)
    kept, _ = clean(recs, header.max_procs or machine)
    return [(max(r.alloc_procs, r.req_procs), r.req_time) for r in kept]


def request(rng: random.Random, procs: int, scale: float) -> JobRequest:
    tasks = max(1, int(procs * scale))
    mem = rng.choice([1000, 2000, 4000])
    gpu = 1 if rng.random() < 0.05 else 0
    feats = frozenset({rng.choice(["skylake", "icelake"])}) if rng.random() < 0.3 else frozenset()
    if gpu:
        tasks = min(tasks, 16)
    return JobRequest(tasks=tasks, per_task=Resources.of(1, mem, gpu=gpu), features=feats)


def pack_running(nodes, sample, scale, rng, now):
    """Running jobs as a resource manager reports them: tasks packed onto nodes in order."""
    free = [[n.resources.procs, n.resources.mem, n.resources.gres_count("gpu")] for n in nodes]
    holds, cursor = [], 0
    for k, (procs, wc) in enumerate(sample):
        req = request(rng, procs, scale)
        need, pt = req.tasks, req.per_task
        alloc, i = [], cursor
        while need and i < len(nodes):
            f = free[i]
            if req.features <= nodes[i].features:
                n = min(need, f[0] // pt.procs, f[1] // pt.mem,
                        f[2] // pt.gres_count("gpu") if pt.gres_count("gpu") else need)
                if n > 0:
                    f[0] -= n * pt.procs
                    f[1] -= n * pt.mem
                    f[2] -= n * pt.gres_count("gpu")
                    alloc.append((nodes[i].name, pt.scaled(n)))
                    need -= n
            i += 1
        while cursor < len(nodes) and free[cursor][0] == 0:
            cursor += 1
        if need == 0:
            started = now - rng.randrange(0, max(wc, 1))
            holds.append((f"run{k}", started, started + wc, alloc, "job"))
    return holds


def running_jobs(nodes, count: int, pool, rng, now: int):
    """`count` running jobs drawn from `pool` ((procs, wallclock) shapes), scaled to fill
    about 90 % of the cores and packed onto `nodes` as Jobs with their allocations (what
    benchmarks/cycle.py and forecast_cost.py start from), and the scale."""
    from maui_py.model import Job, JobState
    cores = sum(n.resources.procs for n in nodes)
    sample = [rng.choice(pool) for _ in range(count)]
    scale = 0.9 * cores / sum(p for p, _ in sample)
    jobs = []
    for owner, start, end, alloc, _kind in pack_running(list(nodes), sample, scale, rng, now):
        k = int(owner[3:])
        procs = sum(r.procs for _n, r in alloc)
        jobs.append(Job(owner, f"user{k % 97}", request(random.Random(k), procs, 1.0), end - start,
                        start - 100, state=JobState.RUNNING, start_time=start, allocation=tuple(alloc)))
    return jobs, scale


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", type=Path, default=TRACES / "SDSC-SP2-1998-4.2-cln.swf.gz")
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--running", type=int, default=5_000)
    ap.add_argument("--reservations", type=int, default=1_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--policy", default="LASTAVAILABLE")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    pool = shapes(args.trace, 128)
    nodes = cluster()
    cores = sum(n.resources.procs for n in nodes)
    sample = [rng.choice(pool) for _ in range(args.running)]
    scale = 0.9 * cores / sum(p for p, _ in sample)
    now = 1_000_000

    holds = pack_running(nodes, sample, scale, rng, now)
    t0 = time.perf_counter()
    table = ReservationTable(nodes, now)
    table.load(holds)
    build = time.perf_counter() - t0
    placed = len(holds)
    t0 = time.perf_counter()
    res_times = []
    for k in range(args.reservations):
        procs, wc = rng.choice(pool)
        req = request(rng, procs, scale / 4)
        a = time.perf_counter()
        p = table.earliest_start(req, wc, now, policy=args.policy)
        b = time.perf_counter()
        if p:
            table.reserve(f"res{k}", p.start, p.end, p.allocation, kind="reservation")
        res_times.append((b - a, time.perf_counter() - b))
    reserve_phase = time.perf_counter() - t0
    busy = sum(1 for i in range(len(nodes)) if table._U[i][0][0] > 0)
    print(f"cluster: {len(nodes)} nodes, {cores} cores; running jobs placed {placed}/{args.running}"
          f" (width scale x{scale:.1f}); nodes busy now {busy}; "
          f"holds {len(table.holds)}; change points {len(table.change_points())}")
    print(f"build (load {placed} running jobs as a snapshot reports them): {build:.2f} s "
          f"({build / max(placed, 1) * 1e6:.0f} us per job)")
    print(f"reservations: {reserve_phase:.2f} s for {args.reservations}; "
          f"reserve() median {statistics.median(r for _, r in res_times) * 1e3:.2f} ms")

    lat = []
    found = later = 0
    for _ in range(args.queries):
        procs, wc = rng.choice(pool)
        req = request(rng, procs, scale / rng.choice([1, 4, 16]))
        a = time.perf_counter()
        p = table.earliest_start(req, wc, now, policy=args.policy)
        lat.append(time.perf_counter() - a)
        found += bool(p)
        later += bool(p) and p.start > now
    lat.sort()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    q = lambda f: lat[min(len(lat) - 1, int(f * len(lat)))] * 1e3
    print(f"earliest_start x{len(lat)} ({found} placed, {later} in the future): "
          f"median {q(0.5):.2f} ms  p90 {q(0.9):.2f} ms  p99 {q(0.99):.2f} ms  max {lat[-1]*1e3:.1f} ms")
    print(f"memory: peak RSS of the whole run {peak:.0f} MB")


if __name__ == "__main__":
    sys.exit(main())
