"""Input shaking (Tsafrir, Ouaknine & Feitelson, "Reducing performance evaluation sensitivity
and variability by input shaking", MASCOTS 2007): replay a workload several times, each with
small seeded perturbations, so a policy difference can be told from the noise of one replay
(a flurry, ties at one timestamp, a lucky packing).

Each job's arrival moves by a whole number of seconds drawn uniformly from
[-submit_jitter, +submit_jitter] (never before 0) and its runtime is scaled by a factor drawn
uniformly from [1 - runtime_jitter, 1 + runtime_jitter] (at least 1 s, and never past its
wallclock when it ended within it, so shaking creates no kills). The draw for shake k with
seed s comes from its own generator seeded with the string `shake:s:k` (stable across Python
versions and processes): configurations compared under the same (s, k) see the same input.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from .swf import SimJob


@dataclass(frozen=True, slots=True)
class ShakeSpec:
    submit_jitter: int = 60
    runtime_jitter: float = 0.05

    def __post_init__(self) -> None:
        if self.submit_jitter < 0 or not 0.0 <= self.runtime_jitter < 1.0:
            raise ValueError("submit jitter must be >= 0 s and runtime jitter in [0, 1)")


def shake(jobs: list[SimJob], spec: ShakeSpec, seed: int, k: int) -> list[SimJob]:
    """The jobs of shake k (a new list; jobs keep their order and ids). O(n)."""
    if spec.submit_jitter == 0 and spec.runtime_jitter == 0.0:
        return list(jobs)
    rng = random.Random(f"shake:{seed}:{k}")
    out = []
    j_s, j_r = spec.submit_jitter, spec.runtime_jitter
    for sj in jobs:
        ds = rng.randint(-j_s, j_s)
        factor = 1.0 + rng.uniform(-j_r, j_r)
        job = sj.job
        run = sj.runtime
        if run > 0:
            new_run = max(1, round(run * factor))
            if run <= job.wallclock:
                new_run = min(new_run, job.wallclock)
            run = new_run
        out.append(SimJob(replace(job, submit_time=max(0, job.submit_time + ds)), run))
    return out
