"""A daemon cycle's latency with start forecasts on and off (issue 36). Prints figures; not a test.

Two mauids (FORECASTPOLICY NONE and ALL, FORECASTINTERVAL 0: a new worker as soon as the
last one is done, so one is nearly always running beside the loop) on the same in-memory
resource manager: NODES nodes of 8 processors, each running one long job, and QUEUED jobs
waiting (nothing ends: every cycle sees the same cluster). Their cycles alternate (A B A B
...), GAP seconds apart (the loop's wait, during which it polls the worker); per cycle the wall time of Daemon.cycle() (snapshot, schedule, save, push, and with
forecasts the after-cycle bookkeeping and a worker's start) and the daemon process's CPU
time (its threads included: the moment's encoding), medians over the cycles, and the ratio
ALL / NONE. The worker's own CPU is another process's and is not counted, but on a busy
machine it competes with the loop for a core: that is in the wall figure.

    python benchmarks/forecast_daemon.py [--nodes 1000] [--queued 500] [--cycles 10] [--budget 20]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from maui_py.daemon.loop import Daemon
from maui_py.model import ClusterSnapshot, Job, JobRequest, JobState, Node, Resources, Start


class StillRM:
    """A cluster that holds still: NODES nodes each running one long job, QUEUED waiting."""

    name = "still"

    def __init__(self, nodes: int, queued: int, now: int):
        self.now = now
        self.nodes = tuple(Node(f"n{i:05d}", Resources.of(8, 32000)) for i in range(nodes))
        self.jobs = {}
        for i in range(nodes):
            self.jobs[f"r{i}"] = Job(f"r{i}", f"u{i % 50}", JobRequest(8), 86400 + 60 * (i % 600), now - 3600,
                                     state=JobState.RUNNING, start_time=now - 600 - i % 3000,
                                     allocation=((f"n{i:05d}", Resources.of(8)),))
        for k in range(queued):
            self.jobs[f"q{k}"] = Job(f"q{k}", f"u{k % 50}", JobRequest(1 + k % 16), 3600 * (1 + k % 8), now - k)

    def snapshot(self) -> ClusterSnapshot:
        return ClusterSnapshot(self.now, self.nodes, tuple(self.jobs.values()))

    def apply(self, decisions):
        for d in decisions:
            if isinstance(d, Start):
                self.jobs[d.job_id] = replace(self.jobs[d.job_id], state=JobState.RUNNING, start_time=self.now,
                                              allocation=d.allocation)
        return []

    def close(self) -> None:
        pass


def daemon(home: Path, policy: str, budget: int, rm: StillRM) -> Daemon:
    home.mkdir(parents=True, exist_ok=True)
    (home / "maui.cfg").write_text(f"RMCFG[still] TYPE=SLURM\nRMPOLLINTERVAL 1:00\nLOGLEVEL 0\nLOGDIR .\n"
                                   f"RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\nFORECASTPOLICY {policy}\n"
                                   f"FORECASTINTERVAL 0\nFORECASTBUDGET {budget}\nFORECASTSAMPLES 20\n")
    d = Daemon(home / "maui.cfg", adapter_factory=lambda cfg, name: rm, stderr=False, log_file=False)
    d.start()
    return d


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nodes", type=int, default=1000)
    p.add_argument("--queued", type=int, default=500)
    p.add_argument("--cycles", type=int, default=10)
    p.add_argument("--budget", type=int, default=20)
    p.add_argument("--gap", type=float, default=2.0, help="seconds between two rounds (the daemons' "
                   "wait for the next poll; the worker runs and is picked up meanwhile)")
    args = p.parse_args(argv)
    now = int(time.time())
    wall: dict[str, list[float]] = {"NONE": [], "ALL": []}
    cpu: dict[str, list[float]] = {"NONE": [], "ALL": []}
    with tempfile.TemporaryDirectory() as tmp:
        ds = {pol: daemon(Path(tmp) / pol, pol, args.budget, StillRM(args.nodes, args.queued, now))
              for pol in ("NONE", "ALL")}
        try:
            for pol in ("NONE", "ALL"):
                ds[pol].cycle()                     # the first cycle starts what fits; not timed
            for _ in range(args.cycles):
                for pol in ("NONE", "ALL"):
                    d = ds[pol]
                    c0, w0 = time.process_time(), time.perf_counter()
                    d.cycle()
                    wall[pol].append(time.perf_counter() - w0)
                    cpu[pol].append(time.process_time() - c0)
                end = time.monotonic() + args.gap
                while time.monotonic() < end:         # the loop's wait: it polls the worker
                    time.sleep(0.05)
                    ds["ALL"].forecasting.poll(ds["ALL"].store)
            runs = ds["ALL"].forecasting.runs
        finally:
            for d in ds.values():
                d.close()
    med = {k: (statistics.median(wall[k]), statistics.median(cpu[k])) for k in wall}
    print(f"{args.nodes} nodes, {args.nodes} running, {args.queued} queued; {args.cycles} cycles each, alternated; "
          f"{runs} forecasts stored during the ALL cycles")
    for k in ("NONE", "ALL"):
        print(f"FORECASTPOLICY {k:4s}: cycle wall median {med[k][0]:.3f} s, daemon CPU median {med[k][1]:.3f} s")
    print(f"ratio ALL / NONE: wall {med['ALL'][0] / med['NONE'][0]:.2f}, CPU {med['ALL'][1] / med['NONE'][1]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
