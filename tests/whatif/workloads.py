"""A small, busy workload with named users and QOS for the what-if tests: seeded, so every
test sees the same jobs. alice submits under QOS `gold`, everyone else under `normal`."""

from __future__ import annotations

import random

from maui_py.sim.cluster import parse_cluster
from maui_py.sim.importers.workload import Workload, WorkloadJob

USERS = ("alice", "bob", "carol", "dave", "erin", "frank")


def busy_workload(n: int = 240, seed: int = 7, procs: int = 32) -> Workload:
    rng = random.Random(seed)
    t = 1_700_000_000
    jobs = []
    for k in range(n):
        t += rng.randint(20, 160)
        user = USERS[k % len(USERS)]
        size = rng.choice((1, 2, 4, 8, 16))
        run = rng.randint(120, 2400)
        jobs.append(WorkloadJob(id=str(1000 + k), user=user, submit=t, start=t, end=t + run,
                                wallclock=run * 2, procs=size, group="g" + user[0],
                                account="proj-a" if user in ("alice", "bob") else "proj-b",
                                qos="gold" if user == "alice" else "normal",
                                class_="batch", state="COMPLETED"))
    return Workload(jobs, "busy-test-workload", parse_cluster(f"{procs // 8}x8"))
