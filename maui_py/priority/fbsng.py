"""QUEUEPOLICY FBSNG: FBSNG's queue and section priorities with gaps (seed 001, spec §6.2).

A queue is the set of jobs with one value of QUEUECREDENTIAL; a section is a job. Each queue
has a priority QP within [QPMIN, QPMAX] (a new queue starts at QPMIN); each section a priority
SP (0 when it becomes ready, never lower, at most SPMAX). The scheduler repeats, until no
section can start:

1. inter-queue: the queues with ready sections, sorted by QP, then by the submit time of their
   oldest ready section; QPT = QP(first) - QPG(first); queues below QPT are held;
2. internal: the queue's ready sections sorted by SP, then submit time; SPT = SP(first) - SPG;
   sections below SPT are held; the first one that fits the free resources starts. Every
   section that was ahead of it in that list gains 1 (at most SPMAX);
3. QP(started queue) -= QPD; every other queue with ready sections += QPI. Priorities are
   relative: when a bound would be crossed every queue (with or without sections) shifts by
   the same amount, so the differences, and so the "share ~ 1/QPD" rule, are kept; then each
   is clamped to its [QPMIN, QPMAX].

The first queue that can start a section starts one, then the lists are made again. Held
queues and sections stay held even while resources idle: that is how FBSNG guarantees that
a big section or a high-priority queue eventually starts (it does not preempt).

In the cycle: arrange() runs this loop on copies, with "fits" meaning the job fits the free
resources summed over the usable nodes, and returns the start sequence, then the other
sections of the queues not held (which did not fit: the cycle may still place them, e.g. by
backfill when a sequence job could not be placed), holding the rest. observe() applies the
priority updates for the jobs that really started, in order. Costs per cycle, n eligible
jobs, S starts: sorting the sections O(n log n), then O(n) per start at worst (each queue's
oldest section, the sections looked at and passed): O(n log n + S n).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Job
from .policy import Arrangement, FairShareHost, PolicyView, QueueSettings, request_vector

EPS = 1e-9


@dataclass
class Round:
    """Queue priorities, section priorities and each queue's ready sections in SP order.
    arrange() plays on a copy; observe() on the policy's own dicts."""

    qp: dict[str, float]
    sp: dict[str, int]
    lists: dict[str, list[Job]]


class FbsngPolicy(FairShareHost):
    """QUEUEPOLICY FBSNG. State: QP of every queue seen, SP of every section passed."""

    name = "FBSNG"

    def __init__(self, cfg):
        super().__init__(cfg)
        self.queues = QueueSettings(cfg)
        self.qp: dict[str, float] = {}
        self.sp: dict[str, int] = {}
        self._lists: dict[str, list[Job]] = {}
        for q in self.queues.configured():
            self._known(q)

    def setting(self, queue: str, attr: str) -> float:
        """A QUEUECFG attribute of the queue (its own, DEFAULT's, or the default)."""
        return self.queues.get(queue, attr)

    def _known(self, queue: str) -> None:
        if queue not in self.qp:
            self.qp[queue] = float(self.setting(queue, "QPMIN"))

    # ------------------------------------------------------------ the rules
    def queue_order(self, r: Round) -> list[str]:
        """Queues with ready sections by QP (high first), then oldest ready section. O(n)."""
        ready = [q for q, lst in r.lists.items() if lst]
        return sorted(ready, key=lambda q: (-r.qp[q], min(j.submit_time for j in r.lists[q]), q))

    def threshold(self, r: Round, order: list[str]) -> float:
        """QPT = QP(first) - QPG(first)."""
        return r.qp[order[0]] - float(self.setting(order[0], "QPG"))

    def section_threshold(self, r: Round, queue: str) -> float:
        """SPT = SP(first ready section) - SPG of the queue."""
        return r.sp.get(r.lists[queue][0].id, 0) - float(self.setting(queue, "SPG"))

    def start(self, r: Round, queue: str, index: int) -> Job:
        """Start section `index` of `queue`: SP +1 for the sections ahead of it, QP -QPD for
        the queue, +QPI for the other queues with ready sections, then shift and clamp."""
        lst = r.lists[queue]
        job = lst.pop(index)
        cap = int(self.setting(queue, "SPMAX"))
        for ahead in lst[:index]:
            r.sp[ahead.id] = min(r.sp.get(ahead.id, 0) + 1, cap)
        r.sp.pop(job.id, None)
        r.qp[queue] -= float(self.setting(queue, "QPD"))
        for other, others in r.lists.items():
            if other != queue and others:
                r.qp[other] += float(self.setting(other, "QPI"))
        self.normalize(r.qp)
        return job

    def normalize(self, qp: dict[str, float]) -> None:
        """Shift every queue by the amount that brings the one furthest below its QPMIN up
        to it (or, if none is below, the one furthest above its QPMAX down), then clamp."""
        low = max((self.setting(q, "QPMIN") - v for q, v in qp.items()), default=0.0)
        high = max((v - self.setting(q, "QPMAX") for q, v in qp.items()), default=0.0)
        shift = low if low > EPS else (-high if high > EPS else 0.0)
        for q, v in qp.items():
            qp[q] = round(min(max(v + shift, self.setting(q, "QPMIN")), self.setting(q, "QPMAX")), 9)

    # ------------------------------------------------------------ one cycle
    def arrange_queues(self, order: list[Job], view: PolicyView) -> Arrangement:
        lists: dict[str, list[Job]] = {}
        for job in order:
            lists.setdefault(self.queues.queue(job), []).append(job)
        for q, lst in lists.items():
            self._known(q)
            lst.sort(key=lambda j: (-self.sp.get(j.id, 0), j.submit_time, j.id))
        if len(self.sp) > 2 * len(order) + 1000:
            ids = {j.id for j in order}
            self.sp = {k: v for k, v in self.sp.items() if k in ids}
        self._lists = lists
        r = Round(dict(self.qp), {j.id: self.sp[j.id] for j in order if j.id in self.sp},
                  {q: list(lst) for q, lst in lists.items()})
        dims = tuple(view.total)
        free = [float(view.free.get(d, 0)) for d in dims]
        sequence: list[Job] = []
        while True:
            picked = self._pick(r, dims, free)
            if picked is None:
                break
            q, i = picked
            job = self.start(r, q, i)
            free = [f - n for f, n in zip(free, request_vector(job, dims))]
            sequence.append(job)
        held, rest = self._holds(r)
        return Arrangement(sequence + rest, held)

    def _pick(self, r: Round, dims, free) -> tuple[str, int] | None:
        """The first (queue, index) that may start and fits, in FBSNG order; None if none."""
        order = self.queue_order(r)
        if not order:
            return None
        qpt = self.threshold(r, order)
        for q in order:
            if r.qp[q] < qpt - EPS:
                break
            spt = self.section_threshold(r, q)
            for i, job in enumerate(r.lists[q]):
                if r.sp.get(job.id, 0) < spt - EPS:
                    break
                if all(n <= f + EPS for n, f in zip(request_vector(job, dims), free)):
                    return q, i
        return None

    def _holds(self, r: Round) -> tuple[dict[str, str], list[Job]]:
        """The sections held by the thresholds as they stand, and the others in FBSNG order."""
        held: dict[str, str] = {}
        rest: list[Job] = []
        order = self.queue_order(r)
        if not order:
            return held, rest
        qpt = self.threshold(r, order)
        for q in order:
            if r.qp[q] < qpt - EPS:
                why = (f"queue {q} priority {r.qp[q]:.4g} is below the threshold {qpt:.4g} "
                       f"(queue {order[0]} priority minus its QPG)")
                held.update((j.id, why) for j in r.lists[q])
                continue
            spt = self.section_threshold(r, q)
            for job in r.lists[q]:
                sp = r.sp.get(job.id, 0)
                if sp < spt - EPS:
                    held[job.id] = (f"section priority {sp} is below the threshold {spt:.4g} of queue {q} "
                                    "(its first section's priority minus SPG)")
                else:
                    rest.append(job)
        return held, rest

    def observe(self, started: list[Job], view: PolicyView) -> None:
        """Apply the priority updates of the jobs that really started, in order."""
        super().observe(started, view)
        r = Round(self.qp, self.sp, self._lists)
        for job in started:
            q = self.queues.queue(job)
            self._known(q)
            lst = r.lists.setdefault(q, [])
            index = next((i for i, j in enumerate(lst) if j.id == job.id), None)
            if index is None:
                lst.insert(0, job)
                index = 0
            self.start(r, q, index)

    # ------------------------------------------------------------ state
    def dump_queues(self) -> dict:
        return {"qp": dict(self.qp), "sp": dict(self.sp)}

    def restore_queues(self, data: dict) -> None:
        self.qp.update({q: float(v) for q, v in (data.get("qp") or {}).items()})
        self.sp = {j: int(v) for j, v in (data.get("sp") or {}).items()}
