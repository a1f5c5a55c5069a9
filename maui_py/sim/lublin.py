"""Synthetic rigid-job workloads from the Lublin-Feitelson model, written as SWF records.

Model: U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers: modeling
the characteristics of rigid jobs", JPDC 63(11):1105-1122, 2003. Constants and algorithms
are those of the authors' reference generator m_lublin99.c (Parallel Workloads Archive):

- size: serial with probability SERIAL_PROB; otherwise log2(size) ~ two-stage uniform
  (ULOW..UMED with probability UPROB, else UMED..UHI), UHI = log2(machine procs),
  UMED = UHI - 2 (batch; the C default 5 for UHI 7) or UHI - 2.5 (whole sample); a job
  is a power of two (log2 rounded) when u <= SERIAL_PROB + POW2_PROB, for the same u.
- runtime: log(runtime) ~ hyper-gamma (A1,B1 with probability p, else A2,B2), with
  p = PA * size + PB clamped to [0, 1]; redrawn while > 12 (runtime <= e^12 s, ~45 h).
- arrivals: log(inter-arrival) ~ gamma(AARR * ARAR, BARR), redrawn while > 13, spent as
  "points" over 48 half-hour buckets whose weights come from the gamma(ANUM, BNUM) cdf
  (daily cycle, CYCLIC_DAY_START 11); offset 0 is midnight UTC.

Batch jobs only (the C generator's *_BATCH constants); ALL_JOBS holds its typeless
"whole sample" constants. Gamma variates come from random.Random.gammavariate instead of
the C code's Jain sampler: the same distributions, not the same streams.

Requested times (the model has none) follow a simple modal model in the spirit of Tsafrir,
Etsion and Feitelson, "Modeling user runtime estimates" (JSSPP 2005): users pick round
values, so with probability EXACT_PROB the estimate is the runtime plus 10 % rounded up to
a minute; otherwise it is drawn from ESTIMATE_MODES (5 min .. 48 h, the maximum) among the
values >= the runtime, with the listed popularity weights. Every estimate is >= the runtime.
Estimates use their own Random, so they do not change sizes, runtimes or arrivals.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from .swf import SwfHeader, SwfRecord

BUCKETS = 48
SECONDS_IN_BUCKET = 86400 // BUCKETS
CYCLIC_DAY_START = 11
TOO_MUCH_TIME = 12
TOO_MUCH_ARRIVE_TIME = 13

EXACT_PROB = 0.1
MAX_ESTIMATE = 48 * 3600
ESTIMATE_MODES: tuple[tuple[int, int], ...] = (
    (300, 4), (600, 4), (900, 6), (1200, 2), (1800, 8), (3600, 12), (7200, 8),
    (3 * 3600, 3), (4 * 3600, 6), (5 * 3600, 2), (6 * 3600, 4), (8 * 3600, 4),
    (10 * 3600, 2), (12 * 3600, 6), (18 * 3600, 2), (24 * 3600, 8), (36 * 3600, 3),
    (MAX_ESTIMATE, 10),
)


@dataclass(frozen=True, slots=True)
class LublinParams:
    """One parameter set of m_lublin99.c; umed_below_uhi gives UMED = UHI - umed_below_uhi."""

    serial_prob: float
    pow2_prob: float
    ulow: float
    umed_below_uhi: float
    uprob: float
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    aarr: float
    barr: float
    anum: float
    bnum: float
    arar: float


BATCH = LublinParams(serial_prob=0.2927, pow2_prob=0.6686, ulow=1.2, umed_below_uhi=2.0,
                     uprob=0.875, a1=6.57, b1=0.823, a2=639.1, b2=0.0156, pa=-0.003,
                     pb=0.6986, aarr=6.0415, barr=0.8531, anum=6.1271, bnum=5.2740,
                     arar=1.0519)
ALL_JOBS = LublinParams(serial_prob=0.244, pow2_prob=0.576, ulow=0.8, umed_below_uhi=2.5,
                        uprob=0.86, a1=4.2, b1=0.94, a2=312.0, b2=0.03, pa=-0.0054,
                        pb=0.78, aarr=10.2303, barr=0.4871, anum=8.1737, bnum=3.9631,
                        arar=1.0225)


def gamma_cdf(x: float, alpha: float, beta: float) -> float:
    """P(G <= x) for G ~ gamma(shape alpha, scale beta): series below alpha + 1, else a
    continued fraction (Numerical Recipes gser/gcf, as in m_lublin99.c)."""
    x /= beta
    if x <= 0:
        return 0.0
    log_front = -x + alpha * math.log(x) - math.lgamma(alpha)
    if x < alpha + 1:
        term = total = 1.0 / alpha
        a = alpha
        for _ in range(1000):
            a += 1
            term *= x / a
            total += term
            if term < total * 1e-15:
                break
        return total * math.exp(log_front)
    tiny = 1e-300
    b = x + 1 - alpha
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - alpha)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return 1 - math.exp(log_front) * h


def bucket_weights(anum: float, bnum: float) -> list[float]:
    """Relative arrival rate of each half-hour bucket (mean 1), as arrive_init computes it."""
    weights = [0.0] * BUCKETS
    for i in range(CYCLIC_DAY_START, BUCKETS + CYCLIC_DAY_START):
        weights[(i - 1) % BUCKETS] = gamma_cdf(i + 0.5, anum, bnum) - gamma_cdf(i - 0.5, anum, bnum)
    mean = sum(weights) / BUCKETS
    return [w / mean for w in weights]


class _Arrivals:
    """calc_next_arrive of m_lublin99.c: inter-arrival "points" paid bucket by bucket."""

    def __init__(self, params: LublinParams, rng: random.Random, start_bucket: int) -> None:
        self.weights = bucket_weights(params.anum, params.bnum)
        self.alpha, self.beta = params.aarr * params.arar, params.barr
        self.rng = rng
        self.bucket = start_bucket
        self.points = self.reminder = 0.0
        self.time = 0
        self._advance()

    def _advance(self) -> None:
        gam = self.rng.gammavariate(self.alpha, self.beta)
        while gam > TOO_MUCH_ARRIVE_TIME:
            gam = self.rng.gammavariate(self.alpha, self.beta)
        self.points += math.exp(gam) / SECONDS_IN_BUCKET
        elapsed = 0.0
        w = self.weights
        while self.points > w[self.bucket]:
            self.points -= w[self.bucket]
            self.bucket = (self.bucket + 1) % BUCKETS
            elapsed += SECONDS_IN_BUCKET
        new_reminder = self.points / w[self.bucket]
        elapsed += SECONDS_IN_BUCKET * (new_reminder - self.reminder)
        self.reminder = new_reminder
        self.time = int(self.time + elapsed)

    def next(self) -> int:
        """Seconds from the start to this job's arrival."""
        arrival = self.time
        self._advance()
        return arrival


def _size(params: LublinParams, rng: random.Random, machine_procs: int) -> int:
    uhi = math.log2(machine_procs)
    ulow = min(params.ulow, uhi)
    umed = min(max(uhi - params.umed_below_uhi, ulow), uhi)
    u = rng.random()
    if u <= params.serial_prob:
        return 1
    low, high = (ulow, umed) if rng.random() <= params.uprob else (umed, uhi)
    par = rng.random() * (high - low) + low
    if u <= params.serial_prob + params.pow2_prob:
        size = 1 << int(par + 0.5)
        return size if size <= machine_procs else size >> 1
    return min(int(2 ** par + 0.5), machine_procs)


def _runtime(params: LublinParams, rng: random.Random, size: int) -> int:
    p = min(max(params.pa * size + params.pb, 0.0), 1.0)
    while True:
        a, b = (params.a1, params.b1) if rng.random() <= p else (params.a2, params.b2)
        hg = rng.gammavariate(a, b)
        if hg <= TOO_MUCH_TIME:
            return int(math.exp(hg))


def estimate(rng: random.Random, runtime: int) -> int:
    """A user's requested time for a job that runs `runtime` seconds (see module doc)."""
    if rng.random() < EXACT_PROB:
        return min(math.ceil(runtime * 1.1 / 60) * 60, max(MAX_ESTIMATE, runtime))
    values = [v for v, _ in ESTIMATE_MODES if v >= runtime]
    weights = [w for v, w in ESTIMATE_MODES if v >= runtime]
    if not values:
        return runtime
    return rng.choices(values, weights)[0]


def generate(n_jobs: int, machine_procs: int, seed: int, start_time: int = 0, *,
             params: LublinParams = BATCH) -> list[SwfRecord]:
    """n_jobs SWF records (ids 1..n, submit = start_time + model arrival), deterministic
    for a seed. Fields the model has no value for are -1; status 1. O(n_jobs)."""
    _check_arguments(n_jobs, machine_procs, start_time)
    rng = random.Random(seed)
    est_rng = random.Random(f"lublin-estimates-{seed}")
    arrivals = _Arrivals(params, rng, (start_time % 86400) // SECONDS_IN_BUCKET)
    records = []
    for job_id in range(1, n_jobs + 1):
        submit = start_time + arrivals.next()
        size = _size(params, rng, machine_procs)
        runtime = _runtime(params, rng, size)
        records.append(SwfRecord(
            job_id, submit, -1, runtime, size, -1.0, -1.0, size, estimate(est_rng, runtime),
            -1, 1, -1, -1, -1, -1, -1, -1, -1))
    return records


MAX_ARGUMENT = 2**40
"""Largest job count, machine size or start time generate() takes: beyond any real machine,
small enough that sizes, logarithms and times stay exact and finite."""


def _check_arguments(n_jobs: object, machine_procs: object, start_time: object) -> None:
    """ValueError (naming the argument) unless each is a plain int in range: 0 <= n_jobs,
    1 <= machine_procs, 0 <= start_time, all <= MAX_ARGUMENT. A float, a bool or a huge value
    would otherwise fail deep inside the model, or loop for ever."""
    for name, value, lo in (("n_jobs", n_jobs, 0), ("machine_procs", machine_procs, 1),
                            ("start_time", start_time, 0)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be an integer, got {value!r}")
        if not lo <= value <= MAX_ARGUMENT:
            raise ValueError(f"{name} must be in {lo}..{MAX_ARGUMENT}, got {value}")


def header(n_jobs: int, machine_procs: int, seed: int,
           params: LublinParams = BATCH) -> SwfHeader:
    """An SWF header describing a generate() output, for write_swf. UnixStartTime is 0:
    generate's submit times are already absolute (start_time + arrival)."""
    kind = "batch" if params == BATCH else "all-jobs" if params == ALL_JOBS else "custom"
    return SwfHeader.build([
        ("Version", "2.2"),
        ("Computer", f"synthetic, {machine_procs} processors"),
        ("Acknowledge", "Lublin & Feitelson workload model (JPDC 2003), m_lublin99.c constants"),
        ("MaxJobs", n_jobs), ("MaxRecords", n_jobs),
        ("MaxNodes", machine_procs), ("MaxProcs", machine_procs),
        ("UnixStartTime", 0),
        ("Note", f"maui_py.sim.lublin.generate seed={seed} parameters={kind}"),
        ("Note", "requested times: modal user-estimate model (Tsafrir et al. 2005 style)"),
    ])
