"""What a forecast of the whole queue costs at scale (issue 36, "Forecast cost stated").
Prints figures; not a test.

The cluster of benchmarks/cycle.py (10,000 nodes of 64 cores / 256 GB, 1,000 with 4 GPUs,
two feature sets; 5,000 running jobs filling about 90 % of the cores; queued jobs whose
widths and wallclocks come from SDSC-SP2), with --queued jobs waiting (default 5,000): three times as many are
submitted, one cycle runs as mauid's (it starts what fits), and the first --queued of those
still waiting are kept. Then mauid's forecast worker's work on
that moment (forecast/budgeted.forecast_within: FORECASTSAMPLES replays one at a time until
FORECASTBUDGET has passed), every queued job a target, each user's runtime/request ratios
drawn from a seeded log-uniform spread (a history of --history jobs a user). Prints each
replay's CPU seconds and cycles, the replays done within the budget, the total CPU and wall
time, and whether all samples fit.

    python benchmarks/forecast_cost.py [--nodes 10000] [--running 5000] [--queued 5000]
                                       [--samples 20] [--budget 60] [--config CFG]
                                       [--workers N] [--no-shortcuts]

With --workers N > 1 the replays run N at a time in forked processes (their CPU is read
from the children's rusage, and a replay's CPU is the total over the replays done); the
budget is wall time from just before forecast_within, as in the worker it is wall time from
the worker's start. --no-shortcuts runs with forecast/shortcuts.OFF (the digest must not
move).
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from table import TRACES, cluster, request, running_jobs, shapes  # noqa: E402

from maui_py.cfg import parse_config  # noqa: E402
from maui_py.core import gcpause  # noqa: E402
from maui_py.core.cycle import run_cycle  # noqa: E402
from maui_py.forecast import engine  # noqa: E402
from maui_py.forecast.budgeted import forecast_within  # noqa: E402
from maui_py.forecast.engine import ForecastOptions, Moment  # noqa: E402
from maui_py.forecast.shortcuts import OFF, Shortcuts  # noqa: E402
from maui_py.model import ClusterSnapshot, Job, JobState  # noqa: E402
from dataclasses import replace  # noqa: E402


def moment(nodes_n: int, running_n: int, queued_n: int, trace: Path, seed: int):
    """The cluster after its first cycle (what mauid hands the worker) and the cycle's state."""
    rng = random.Random(seed)
    pool = shapes(trace, 128)
    nodes = tuple(cluster(nodes_n))
    now = 1_000_000
    jobs, scale = running_jobs(nodes, running_n, pool, rng, now)
    for k in range(3 * queued_n):            # the first cycle starts some; main keeps queued_n
        procs, wc = rng.choice(pool)
        jobs.append(Job(f"q{k}", f"user{k % 211}", request(rng, procs, scale / 8), wc,
                        now - rng.randrange(0, 86400)))
    return nodes, jobs, now


def history(users: int, per_user: int, seed: int) -> dict[str, tuple[tuple[int, int], ...]]:
    """Each user's last runtimes against a 1-hour request: ratios log-uniform in [0.01, 1]."""
    rng = random.Random(seed)
    return {f"user{u}": tuple((max(1, round(3600 * 10 ** rng.uniform(-2, 0))), 3600) for _ in range(per_user))
            for u in range(users)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", type=Path, default=TRACES / "SDSC-SP2-1998-4.2-cln.swf.gz")
    ap.add_argument("--nodes", type=int, default=10_000)
    ap.add_argument("--running", type=int, default=5_000)
    ap.add_argument("--queued", type=int, default=5_000)
    ap.add_argument("--samples", type=int, default=20, help="FORECASTSAMPLES")
    ap.add_argument("--budget", type=float, default=60.0, help="FORECASTBUDGET, seconds")
    ap.add_argument("--history", type=int, default=32, help="runtimes on record a user")
    ap.add_argument("--config", default="RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n"
                    "NODEALLOCATIONPOLICY LASTAVAILABLE\n", help="maui.cfg text")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1, help="replays at once in forked processes (Shortcuts.workers)")
    ap.add_argument("--no-shortcuts", action="store_true", help="forecast/shortcuts.OFF: every shortcut off")
    args = ap.parse_args()
    cfg = parse_config(args.config)
    nodes, jobs, now = moment(args.nodes, args.running, args.queued, args.trace, args.seed)
    with gcpause.paused():
        r = run_cycle(ClusterSnapshot(now, nodes, tuple(jobs)), cfg, explain=False)
    started = {d.job_id: d for d in r.starts()}
    jobs = [replace(j, state=JobState.RUNNING, start_time=now, allocation=started[j.id].allocation)
            if j.id in started else j for j in jobs]
    waiting = [j for j in jobs if not j.state.active][:args.queued]
    jobs = [j for j in jobs if j.state.active] + waiting
    m = Moment(now, nodes, tuple(jobs))
    queued = sum(1 for j in jobs if not j.state.active)
    print(f"{len(nodes)} nodes; {len(jobs) - queued} running, {queued} queued after the first cycle "
          f"({len(started)} started); {args.samples} samples, budget {args.budget:g} s")
    per: list[float] = []
    real = engine.replay_once

    def timed(*a, **k):                      # each replay's CPU, as the worker runs it
        c0 = time.process_time()
        out = real(*a, **k)
        per.append(time.process_time() - c0)
        print(f"  replay {len(per):>3}: {per[-1]:6.2f} CPU s", flush=True)
        return out

    engine.replay_once = timed
    hist = history(211, args.history, args.seed)
    c0, w0 = time.process_time(), time.perf_counter()
    fast = OFF if args.no_shortcuts else Shortcuts(workers=args.workers)
    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    got = forecast_within(m, cfg, r.state, hist, ForecastOptions(samples=args.samples),
                          time.monotonic() + args.budget, fast=fast)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    kids1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu += (kids1.ru_utime + kids1.ru_stime) - (kids0.ru_utime + kids0.ru_stime)
    engine.replay_once = real
    if not per:                              # replays in forked processes: their CPU is the children's
        per = [cpu / max(got.done, 1)]
    print(f"replays done {got.done} of {args.samples} ({'cut by the budget' if got.cut else 'all'}); "
          f"{len(got.forecasts)} jobs forecast; total {cpu:.1f} CPU s, {wall:.1f} s wall; "
          f"a replay median {statistics.median(per):.2f} CPU s (min {min(per):.2f}, max {max(per):.2f}); "
          f"{args.samples} replays would take about {statistics.median(per) * args.samples:.0f} CPU s")
    text = "\n".join(f"{f.job_id} {f.p10} {f.p50} {f.p90} {f.samples} {f.late}" for f in got.forecasts.values())
    print(f"forecasts digest {hashlib.sha256(text.encode()).hexdigest()[:16]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
