"""Queue policies: how the ordered queue is arranged before reservations and backfill.

The cycle asks its queue policy, in this order:
  charge(now, running)      once per cycle, before anything else: account usage since the
                            last cycle (fair-share windows; a FairShareHost also takes the
                            running jobs' moves, core/jobsets.Moves, to walk only those);
  subfactors(job)           the FS priority subfactors (FSUSER, FSGROUP, FSACCOUNT, FSQOS,
                            FSCLASS) of a job, for Maui's priority formula;
  cap_violation(job)        a reason when a fair-share cap (FSTARGET ^ or %) blocks the job;
  arrange(order, view)      given the eligible jobs in priority order, the order in which the
                            cycle should consider them and the jobs it must hold back this
                            cycle (with a reason: FBSNG's thresholds, Armada's slices);
  observe(started, view)    after the cycle, the jobs that started, in the order arranged, so
                            the policy can update its own priorities (FBSNG's QPD/QPI/SPG).
QUEUEPOLICY picks one of queues.POLICIES: MAUI (the default) keeps Maui's priority order and holds
nothing back; ARMADA (armada.py) and FBSNG (fbsng.py) share the cluster between queues, a queue
being the jobs with one value of the QUEUECREDENTIAL credential. Maui fair share (fairshare.py,
FSPOLICY) is composed into every policy through `FairShareHost`, so it works under any of them.
The cycle skips a policy whose type is exactly MauiOrder (no arrange, caps or observe), so
MAUI is a MauiOrder only while FSPOLICY is NONE, and a MauiFairShare otherwise.

A policy's lasting state is `dump()`able to plain JSON data ({"policy", "fairshare",
"queues"}) and restored with `restore()`, so the state store can keep it across restarts; the
fair-share windows are restored whatever policy wrote them, the queue part only by the policy
that wrote it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

from ..cfg.choices import QueueCredential
from ..cfg.params import PARAMS
from ..model import Job
from .fairshare import FairShare

DEFAULT_QUEUE = "DEFAULT"
CRED_ATTR: dict[QueueCredential, str] = {
    QueueCredential.CLASS: "class_", QueueCredential.ACCOUNT: "account", QueueCredential.USER: "user",
    QueueCredential.QOS: "qos",
}
"""QUEUECREDENTIAL -> the Job attribute that names a job's queue."""


class PolicyView:
    """What a queue policy may look at: the clock, the running jobs, the free and total
    resources of the usable nodes (procs, mem MB, gres) and the configuration. `free` may be
    given, or measured on first use by `measure()`: the cycle's measure walks every node,
    which a policy that never looks at it (fair share, MAUI) need not pay for. O(1) to make."""

    __slots__ = ("now", "running", "total", "cfg", "_free", "_measure")

    def __init__(self, now: int, running: Sequence[Job], free: dict[str, int] | None,
                 total: dict[str, int], cfg: Any = None, *,
                 measure: Callable[[], dict[str, int]] | None = None):
        if free is None and measure is None:
            raise ValueError("PolicyView needs free, or measure")
        self.now, self.running, self.total, self.cfg = now, running, total, cfg
        self._free, self._measure = free, measure

    @property
    def free(self) -> dict[str, int]:
        if self._free is None:
            self._free = self._measure()
        return self._free


@dataclass
class Arrangement:
    order: list[Job]
    held: dict[str, str] = field(default_factory=dict)


class QueuePolicy(Protocol):
    name: str

    def charge(self, now: int, running: Sequence[Job]) -> None: ...

    def subfactors(self, job: Job) -> dict[str, float]: ...

    def cap_violation(self, job: Job) -> str | None: ...

    def arrange(self, order: list[Job], view: PolicyView) -> Arrangement: ...

    def observe(self, started: list[Job], view: PolicyView) -> None: ...

    def dump(self) -> dict: ...

    def restore(self, data: dict) -> None: ...


class QueueSettings:
    """QUEUECREDENTIAL and the QUEUECFG attributes of each queue (own value, else
    QUEUECFG[DEFAULT], else the attribute's default), read once per configuration."""

    def __init__(self, cfg):
        self.attr = CRED_ATTR[cfg.get("QUEUECREDENTIAL")]
        self._objects = cfg.objects("QUEUECFG")
        self._defaults = {a: row.default for a, row in PARAMS["QUEUECFG"].attrs.items()}
        self._cache: dict[tuple[str, str], Any] = {}

    def queue(self, job: Job) -> str:
        return getattr(job, self.attr) or DEFAULT_QUEUE

    def get(self, queue: str, attr: str, fallback: Any = None) -> Any:
        key = (queue, attr)
        if key not in self._cache:
            for name in (queue, DEFAULT_QUEUE):
                obj = self._objects.get(name)
                if obj is not None and obj.get(attr) is not None:
                    self._cache[key] = obj.get(attr)
                    break
            else:
                value = self._defaults.get(attr)
                self._cache[key] = fallback if value is None else value
        return self._cache[key]

    def configured(self) -> list[str]:
        return sorted(q for q in self._objects if q != DEFAULT_QUEUE)


def request_vector(job: Job, dims: Sequence[str]) -> tuple[float, ...]:
    """What a job asks for along `dims` (procs, mem, gres names). O(dims)."""
    total = job.request.total
    out = []
    for d in dims:
        if d == "procs":
            out.append(float(total.procs))
        elif d == "mem":
            out.append(float(total.mem))
        else:
            out.append(float(total.gres_count(d)))
    return tuple(out)


class FairShareHost:
    """The fair-share half of every queue policy; arranges nothing by itself.

    Subclasses implement arrange_queues (and observe, calling this one), and keep their own
    state in dump_queues / restore_queues."""

    name = "MAUI"

    def __init__(self, cfg):
        self.fs = FairShare(cfg)
        # the per-job calls go straight to the fair share (no extra frame per job and cycle)
        self.charge = self.fs.charge
        self.subfactors = self.fs.subfactors
        self.cap_violation = self.fs.cap_violation

    def arrange(self, order: list[Job], view: PolicyView) -> Arrangement:
        """Note the cluster totals (for processor-equivalents), then arrange_queues."""
        self.fs.set_totals(view.total.get("procs", 0), view.total.get("mem", 0))
        return self.arrange_queues(order, view)

    def arrange_queues(self, order: list[Job], view: PolicyView) -> Arrangement:
        return Arrangement(order)

    def observe(self, started: list[Job], view: PolicyView) -> None:
        self.fs.note_started(started, view.now)

    def dump_queues(self) -> dict:
        return {}

    def restore_queues(self, data: dict) -> None:
        pass

    def dump(self) -> dict:
        return {"policy": self.name, "fairshare": self.fs.dump(), "queues": self.dump_queues()}

    def restore(self, data: dict | None) -> None:
        if not data:
            return
        self.fs.restore(data.get("fairshare"))
        if data.get("policy") == self.name:
            self.restore_queues(data.get("queues") or {})


class MauiOrder(FairShareHost):
    """QUEUEPOLICY MAUI without fair share: the cycle skips this class entirely (it checks
    the exact type), so it costs nothing; it still carries fair-share windows restored from
    an earlier configuration forward in dump()."""

    name = "MAUI"


class MauiFairShare(FairShareHost):
    """QUEUEPOLICY MAUI with FSPOLICY set: Maui's priority order, fair-share priority and caps;
    the cycle calls it (caps, starts) because it is not exactly MauiOrder."""

    name = "MAUI"
