"""QUEUEPOLICY ARMADA: Armada's legacy queue priorities and leasing (seeds 000/002/003, spec §6.1).

A queue is the set of jobs with one value of QUEUECREDENTIAL. Each cycle (Armada: each lease
request of an executor):

1. usage: a queue's running jobs weighed by resource scarcity, cpu = 1 and every other resource
   `cluster cpus / cluster total of it` (10 cpus, 20 GB, 5 gpus: 5 cpu + 2 GB + 1 gpu = 8);
2. priority follows usage with a half-life (the code's form, priority.go):
   `p = f*p + (1-f)*usage, f = 0.5^(dt/ARMADAPRIORITYHALFLIFE)`; effective priority
   `max(p, 0.5) * PRIORITYFACTOR`, or 0.5 for a queue never recorded. Lower gets more;
3. the free resources are sliced between the queues with eligible jobs (sliceResource):
   `share_q = max(0, all * (1/e_q) / sum(1/e) - usage_q)`, `all` = their usage plus the free
   resources' usage, and each queue's slice is the free resources times its share of the
   shares, cut to its limits (MAXFRACTION of the cluster minus what it uses, and
   ARMADAMAXFRACTIONTOSCHEDULE per round);
4. deterministic stage (skipped with ARMADAPROBABILISTICALL): each queue, lowest effective
   priority first, leases jobs in its priority order that fit what is left of its slice,
   ARMADALEASEBATCHSIZE jobs per look, until a look leases less than a batch;
5. probabilistic stage: a queue picked at random with probability proportional to what is left
   of its slice (seeded: random.Random from ARMADASEED and the clock) leases one job that fits
   the remainder; a queue with nothing that fits leaves and the remainder is sliced again
   between the others; until less than a processor is left, no queue is left, or every queue
   failed once in a row.

The leased jobs go to the cycle in lease order, which places them (reservations and backfill
as usual); the other jobs are held for this cycle. Within a queue jobs keep Maui's priority
order (Armada's per-job priority). Costs per cycle, n eligible jobs in Q queues, S leased:
O(n + running) to group jobs and usage, O(batch) per look of a lease, O(Q) per slicing, and
a re-slice each time a queue leaves the probabilistic stage: O(n + S x batch + Q^2).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Mapping

from ..model import Job
from .policy import Arrangement, FairShareHost, PolicyView, QueueSettings, request_vector

MIN_PRIORITY = 0.5
FIRST_TIME_CHANGE = 60
"""Seconds assumed since the previous usage report when there is none (priority.go)."""
EPS = 1e-9
Vec = tuple[float, ...]


def resource_scarcity(total: Mapping[str, float]) -> dict[str, float]:
    """Usage weight of each resource: procs (cpu) 1, any other `cpu total / its total`
    (resources.go calculateResourceScarcity). O(resources)."""
    cpu = float(total.get("procs", 0))
    out = {"procs": 1.0}
    for name, quantity in total.items():
        if name != "procs" and quantity >= 1e-5:
            out[name] = cpu / quantity
    return out


def as_usage(scarcity: Mapping[str, float], amounts: Mapping[str, float]) -> float:
    """One number for a resource vector: sum of quantity x scarcity (1 when unknown)."""
    return sum(q * scarcity.get(name, 1.0) for name, q in amounts.items())


def _dot(v: Vec, w: Vec) -> float:
    return sum(a * b for a, b in zip(v, w))


def _sub(v: Vec, w: Vec) -> Vec:
    return tuple(a - b for a, b in zip(v, w))


def _min(v: Vec, w: Vec) -> Vec:
    return tuple(min(a, b) for a, b in zip(v, w))


def _valid(v: Vec) -> bool:
    return all(a >= -EPS for a in v)


def slice_resource(scarcity: Vec, queues: Mapping[str, tuple[float, float]], quantity: Vec) -> dict[str, Vec]:
    """Split `quantity` between queues {name: (effective priority, current usage)} in
    proportion to `max(0, all * (1/p_q) / sum(1/p) - usage_q)` (resources.go sliceResource).
    The slices add up to `quantity` whenever it is not empty. O(Q x resources)."""
    if not queues:
        return {}
    inverse = {q: 1.0 / p for q, (p, _u) in queues.items()}
    inverse_sum = sum(inverse.values())
    all_usage = _dot(quantity, scarcity) + sum(u for _p, u in queues.values())
    shares = {q: max(0.0, all_usage * inverse[q] / inverse_sum - queues[q][1]) for q in queues}
    total = sum(shares.values())
    if total <= 0:
        return {q: tuple(0.0 for _ in quantity) for q in queues}
    return {q: tuple(x * s / total for x in quantity) for q, s in shares.items()}


@dataclass
class QueueInfo:
    """QueueSchedulingInfo: what a queue may still take this round and its slice of it:
    `share` the slice as cut (schedulingShare), `adjusted` the slice within the queue's limit."""

    limit: Vec
    share: Vec
    adjusted: Vec

    def update(self, used: Vec) -> None:
        """UpdateLimits: take `used` off the limit and both slices (the uncut slice in
        proportion to how much the cut made it smaller)."""
        scaled = []
        for s, a, u in zip(self.share, self.adjusted, used):
            factor = s / a if a > 0 else 0.0
            scaled.append(max(s - u * factor, 0.0))
        self.share = tuple(scaled)
        self.limit = tuple(max(x, 0.0) for x in _sub(self.limit, used))
        self.adjusted = tuple(max(x, 0.0) for x in _sub(self.adjusted, used))


def slice_with_limits(scarcity: Vec, infos: Mapping[str, QueueInfo],
                      priorities: Mapping[str, tuple[float, float]], quantity: Vec) -> dict[str, QueueInfo]:
    """SliceResourceWithLimits: slice between the queues with some limit left; each slice is
    cut to its queue's limit."""
    open_queues = {q: priorities[q] for q, info in infos.items() if any(x > EPS for x in info.limit)}
    return {q: QueueInfo(infos[q].limit, s, _min(s, infos[q].limit))
            for q, s in slice_resource(scarcity, open_queues, quantity).items()}


class _Pending:
    """A queue's eligible jobs in priority order; leased ones are skipped. peek is amortised
    O(batch) because the leased prefix is passed once."""

    def __init__(self) -> None:
        self.jobs: list[tuple[Job, Vec]] = []
        self.taken: set[str] = set()
        self.head = 0

    def peek(self, n: int) -> list[tuple[Job, Vec]]:
        while self.head < len(self.jobs) and self.jobs[self.head][0].id in self.taken:
            self.head += 1
        out = []
        for item in self.jobs[self.head:]:
            if item[0].id not in self.taken:
                out.append(item)
                if len(out) >= n:
                    break
        return out


def lease(pending: _Pending, slice_: Vec, limit: int, batch: int) -> tuple[list[Job], Vec]:
    """leaseJobs: take, in order, the jobs that fit what is left of `slice_`, looking at
    `batch` jobs at a time, until a look takes less than a batch or `limit` jobs are taken.
    Returns (jobs, what is left of the slice)."""
    out: list[Job] = []
    while _valid(slice_) and limit > 0:
        took = 0
        for job, need in pending.peek(batch):
            rest = _sub(slice_, need)
            if _valid(rest):
                slice_ = rest
                pending.taken.add(job.id)
                out.append(job)
                took += 1
                limit -= 1
                if limit <= 0:
                    break
        if took < batch:
            break
    return out, slice_


def pick_queue(shares: Mapping[str, float], rng: random.Random) -> str:
    """pickQueueRandomly: a queue with probability proportional to its share, in name order;
    uniformly when every share is 0 (Go then takes whichever its map yields first)."""
    names = sorted(shares)
    total = sum(shares[q] for q in names)
    if total <= 0:
        return names[rng.randrange(len(names))]
    pick = total * rng.random()
    current = 0.0
    for q in names:
        current += shares[q]
        if current >= pick:
            return q
    return names[-1]


class ArmadaPolicy(FairShareHost):
    """QUEUEPOLICY ARMADA. State: each queue's priority and when it was last updated."""

    name = "ARMADA"
    BIG = 10_000
    """maxJobsPerLease: the deterministic stage's job limit per round."""

    def __init__(self, cfg):
        super().__init__(cfg)
        self.queues = QueueSettings(cfg)
        self.halflife = float(cfg.get("ARMADAPRIORITYHALFLIFE"))
        self.batch = max(1, int(cfg.get("ARMADALEASEBATCHSIZE")))
        self.probabilistic_all = bool(cfg.get("ARMADAPROBABILISTICALL"))
        self.seed = int(cfg.get("ARMADASEED"))
        self.max_fraction = float(cfg.get("ARMADAMAXFRACTIONPERQUEUE"))
        self.round_fraction = float(cfg.get("ARMADAMAXFRACTIONTOSCHEDULE"))
        self.priority: dict[str, float] = {}
        self.updated: int | None = None

    # ------------------------------------------------------------ priorities
    def update_priorities(self, now: int, usage: Mapping[str, float]) -> None:
        """calculatePriorityUpdate: every recorded queue moves toward its usage (0 when it
        runs nothing); a queue seen for the first time starts at (1-f)*usage. O(queues)."""
        dt = now - self.updated if self.updated is not None else FIRST_TIME_CHANGE
        if self.halflife > 0:
            f = 0.5 ** (max(dt, 0) / self.halflife)
        else:
            f = 1.0 if dt <= 0 else 0.0
        new = {q: f * p + (1 - f) * usage.get(q, 0.0) for q, p in self.priority.items()}
        for q, u in usage.items():
            new.setdefault(q, (1 - f) * u)
        self.priority = new
        self.updated = now

    def effective(self, queue: str) -> float:
        """max(priority, 0.5) x PRIORITYFACTOR; 0.5 for a queue with no recorded priority."""
        p = self.priority.get(queue)
        if p is None:
            return MIN_PRIORITY
        return max(p, MIN_PRIORITY) * float(self.queues.get(queue, "PRIORITYFACTOR", 1.0))

    # ------------------------------------------------------------ one round
    def arrange_queues(self, order: list[Job], view: PolicyView) -> Arrangement:
        dims = tuple(view.total)
        total = tuple(float(view.total[d]) for d in dims)
        free = tuple(max(0.0, float(view.free.get(d, 0))) for d in dims)
        weights = resource_scarcity(view.total)
        scarcity = tuple(weights.get(d, 1.0) for d in dims)
        used: dict[str, Vec] = {}
        for job in view.running:
            q = self.queues.queue(job)
            v = request_vector(job, dims)
            used[q] = tuple(a + b for a, b in zip(used[q], v)) if q in used else v
        usage = {q: _dot(v, scarcity) for q, v in used.items()}
        self.update_priorities(view.now, usage)
        pending: dict[str, _Pending] = {}
        for job in order:
            pending.setdefault(self.queues.queue(job), _Pending()).jobs.append((job, request_vector(job, dims)))
        priorities = {q: (self.effective(q), usage.get(q, 0.0)) for q in pending}
        zero = tuple(0.0 for _ in dims)
        infos = {q: QueueInfo(self._limit(q, total, used.get(q, zero)), zero, zero) for q in pending}
        full = {q for q, info in infos.items() if not any(x > EPS for x in info.limit)}
        infos = slice_with_limits(scarcity, infos, priorities, free)
        leased: list[Job] = []
        if not self.probabilistic_all:
            for q in sorted(infos, key=lambda q: (priorities[q][0], q)):
                info = infos[q]
                got, left = lease(pending[q], info.adjusted, self.BIG, self.batch)
                info.update(_sub(info.adjusted, left))
                leased += got
        leased += self._remainder(pending, infos, dict(priorities), scarcity, view.now)
        held = {}
        for q, p in pending.items():
            why = (f"queue {q} is at its resource limit" if q in full else
                   f"queue {q} (effective priority {priorities[q][0]:.4g}) leased no more this round")
            for job, _v in p.jobs:
                if job.id not in p.taken:
                    held[job.id] = why
        return Arrangement(leased, held)

    def _limit(self, queue: str, total: Vec, used: Vec) -> Vec:
        """What the queue may still take this round: its MAXFRACTION of the cluster less what
        it uses, within ARMADAMAXFRACTIONTOSCHEDULE of the cluster."""
        fraction = float(self.queues.get(queue, "MAXFRACTION", self.max_fraction))
        return tuple(min(self.round_fraction * t, max(0.0, fraction * t - u)) for t, u in zip(total, used))

    def _remainder(self, pending: Mapping[str, _Pending], infos: dict[str, QueueInfo],
                   priorities: dict[str, tuple[float, float]], scarcity: Vec, now: int) -> list[Job]:
        """distributeRemainder: one job at a time from a queue picked at random in proportion
        to what is left of its slice."""
        if not infos:
            return []
        remainder = tuple(sum(xs) for xs in zip(*(info.adjusted for info in infos.values())))
        shares = {q: _dot(info.share, scarcity) for q, info in infos.items()}
        count, empty = len(infos), 0
        rng = random.Random(f"armada:{self.seed}:{now}")
        out: list[Job] = []
        while remainder[0] >= 1 - EPS and shares and empty < count:
            q = pick_queue(shares, rng)
            empty += 1
            amount = _min(remainder, infos[q].limit)
            got, left = lease(pending[q], amount, 1, self.batch)
            if got:
                empty = 0
                out += got
                scheduled = _sub(amount, left)
                infos[q].update(scheduled)
                remainder = _sub(remainder, scheduled)
                shares[q] = max(0.0, _dot(infos[q].share, scarcity))
            else:
                del infos[q]
                del priorities[q]
                infos = slice_with_limits(scarcity, infos, priorities, remainder)
                shares = {r: _dot(info.share, scarcity) for r, info in infos.items()}
        return out

    # ------------------------------------------------------------ state
    def dump_queues(self) -> dict:
        return {"priority": dict(self.priority), "updated": self.updated}

    def restore_queues(self, data: dict) -> None:
        self.priority = {q: float(p) for q, p in (data.get("priority") or {}).items()}
        self.updated = data.get("updated")

