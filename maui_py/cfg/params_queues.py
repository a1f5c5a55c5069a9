"""maui-py's parameters for queue policies (fair share, ARMADA, FBSNG): rows of the table.

QUEUEPOLICY picks how the priority-ordered queue is arranged before reservations and backfill
(maui_py/priority/policy.py); QUEUECREDENTIAL says which job credential names a job's queue;
QUEUECFG[<queue>] holds the per-queue knobs of both queue policies (QUEUECFG[DEFAULT] applies to
queues not listed). Maui fair share keeps its own parameters (FSPOLICY ..., FSTARGET on the *CFG
credentials) in params.py. See docs/fairness.md.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .choices import QueueCredential, QueuePolicyName
from .rows import ACTIVE, BOOL, INT, OBJ, OWN, TIME, Attr, group
from .values import MAX_DOUBLE, Choice, Double, Integer


class _Bounded(Double):
    """A finite <DOUBLE> within [lo, hi] (hi None: up to MAX_DOUBLE; open_lo: lo itself excluded)."""

    def __init__(self, lo: float, hi: float | None = None, *, open_lo: bool = False):
        low = f"> {lo}" if open_lo else f">= {lo}"
        super().__init__(lo, MAX_DOUBLE if hi is None else hi, open_lo=open_lo,
                         form=f"<DOUBLE> {low}" if hi is None else f"<DOUBLE> in {lo}..{hi}")


FRACTION = _Bounded(0.0, 1.0)
FACTOR = _Bounded(0.0, open_lo=True)
QP = Double()
GAP = Integer(lo=0)


def _q(name: str, vtype, doc: str, default: Any) -> Attr:
    return Attr(name, vtype, default, doc, "maui-py", ACTIVE)


QUEUE_ATTRS = {a.name: a for a in (
    _q("PRIORITYFACTOR", FACTOR, "ARMADA: multiplies the queue's priority; a lower factor gets more", 1.0),
    _q("MAXFRACTION", FRACTION, "ARMADA: largest fraction of each cluster resource the queue may use at "
        "once (unset: ARMADAMAXFRACTIONPERQUEUE)", None),
    _q("QPMIN", QP, "FBSNG: lowest queue priority (and the priority a new queue starts at)", 0.0),
    _q("QPMAX", QP, "FBSNG: highest queue priority", 100.0),
    _q("QPI", QP, "FBSNG: queue priority increase each time a section of another queue starts", 0.0),
    _q("QPD", QP, "FBSNG: queue priority decrease each time a section of this queue starts (share ~ 1/QPD)",
       1.0),
    _q("QPG", QP, "FBSNG: queue priority gap; while first, queues more than QPG below it are held", 100.0),
    _q("SPG", GAP, "FBSNG: section priority gap; sections more than SPG below the queue's first are held",
       100),
    _q("SPMAX", GAP, "FBSNG: highest section priority", 100),
)}


ROWS: list = group(
    "Queue policies",
    OWN("QUEUEPOLICY", Choice.of(QueuePolicyName), "MAUI", "how the priority-ordered queue is arranged "
        "before reservations and backfill: MAUI (as is), ARMADA (queue slices), FBSNG (queue and section "
        "priority gaps)"),
    OWN("QUEUECREDENTIAL", Choice.of(QueueCredential), "CLASS", "the job credential that names "
        "a job's queue under ARMADA and FBSNG (a job without one is in queue DEFAULT)"),
    replace(OBJ("QUEUECFG", QUEUE_ATTRS, "per-queue ARMADA and FBSNG settings; QUEUECFG[DEFAULT] applies "
                "to queues not listed", active=True, origin="maui-py"), default_source="maui-py"),
    OWN("ARMADAPRIORITYHALFLIFE", TIME, 1200, "ARMADA: half-life with which a queue's priority follows its "
        "resource usage (priorityHalfTime)"),
    OWN("ARMADALEASEBATCHSIZE", Integer(lo=1), 200, "ARMADA: jobs of a queue looked at per batch in the "
        "deterministic stage (queueLeaseBatchSize)"),
    OWN("ARMADAPROBABILISTICALL", BOOL, False, "ARMADA: skip the deterministic slice stage and hand out "
        "everything by weighted random queue picks (useProbabilisticSchedulingForAllResources)"),
    OWN("ARMADASEED", INT, 0, "ARMADA: seed of the random queue picks (same seed, same schedule)"),
    OWN("ARMADAMAXFRACTIONPERQUEUE", FRACTION, 1.0, "ARMADA: default largest fraction of each cluster "
        "resource one queue may use at once (maximalResourceFractionPerQueue)"),
    OWN("ARMADAMAXFRACTIONTOSCHEDULE", FRACTION, 1.0, "ARMADA: largest fraction of each cluster resource "
        "one queue may get in one round (maximalResourceFractionToSchedulePerQueue)"),
)
