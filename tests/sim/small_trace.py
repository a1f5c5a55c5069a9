"""A small SWF trace with a real site's header (KTH's start time and zone), four queues,
six users and sizes 1-32 on a 32-processor machine: a replay of it takes well under a second."""

from __future__ import annotations

import random
from pathlib import Path

START = 843480031  # Mon Sep 23 14:00:31 CEST 1996


def write_trace(path: Path, jobs: int = 240, seed: int = 3, zone: str = "Europe/Stockholm") -> Path:
    rng = random.Random(seed)
    lines = ["; Version: 2.2", "; Installation: Test Site", "; Computer: Test Cluster",
             f"; UnixStartTime: {START}", "; TimeZone: 3600", f"; TimeZoneString: {zone}",
             "; MaxNodes: 32", "; MaxProcs: 32"]
    t = 0
    for k in range(1, jobs + 1):
        t += rng.randint(0, 900)
        procs = rng.choice((1, 1, 2, 4, 8, 16, 32))
        run = rng.randint(30, 4 * 3600)
        req = run + rng.randint(0, 3600)
        queue, user = k % 4 + 1, k % 6 + 1
        lines.append(f"{k} {t} -1 {run} {procs} -1 -1 {procs} {req} -1 1 {user} 1 -1 {queue} -1 -1 -1")
    path.write_text("\n".join(lines) + "\n")
    return path
