"""Counterfactual advice for a queued job: the smallest changes that start it now or
sooner, each a promise kept in a replay (issue 36, item 4).

For one job of a Situation (advice/replay.py):

1. the replay as it is, one cycle at `now` with its report (explain): if the job starts,
   there is nothing to advise; else what it waits for (advice/waits.py) and its planned
   start S (its reservation, else the table's earliest start; None: unknown);
2. per numeric change (walltime, processors or tasks, nodes: advice/changes.py), the
   earliest time T it could start with the least of it (one second, one task or node:
   its start in a replay stopped before S; now when it starts now; for a job deferred
   over a per-job limit, where the defer ends), then the largest value that still starts
   by T
   (advice/search.largest over exact replays, guided by the planner's boundary,
   advice/guide.py): "with <= 2:50:00 the job starts now";
3. per QOS or class the user's credentials allow (advice/creds.py), the job's start
   under it in a replay stopped at S: kept when sooner.

Nothing is advised that a replay did not show: every (change, value, start) is checked by
`replay.start_of` with that change, and the value of a numeric change is a boundary (one
more does not start by then). Cost (measured in docs/commands.md, "To start sooner"):
per change, two or three replays when the planner guesses the boundary right, O(log
value) more when it does not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from ..model import Job
from ..model.times import duration
from . import changes
from .creds import allowed
from .guide import Guide
from .replay import Situation, Undecided, start_of
from .search import largest
from .waits import Wait, waits

HORIZON = 30 * 86400
"""How far a QOS or class replay looks when the job has no planned start."""


@dataclass(frozen=True)
class Advice:
    """One suggestion: `change` (walltime, procs, tasks, nodes, qos, class) to `value`
    (seconds, a count, a name), and the start it gives (epoch seconds); or what the job
    waits for (`change` "waits", `value` what, `start` when it ends if known)."""

    change: str
    value: int | str | None
    start: int | None
    reason: str


@dataclass
class Advised:
    """Everything advised for one job, with what it cost."""

    job_id: str
    now: int
    planned: int | None = None
    starts_now: bool = False
    advice: list[Advice] = field(default_factory=list)
    replays: int = 0
    cycles: int = 0
    planner_questions: int = 0


def _later(t: int | None, now: int) -> int | None:
    """A planned start: the table's earliest start, unknown (None) when the table puts it
    now although the cycle did not start the job (a limit, say, which the table ignores)."""
    return t if t is not None and t > now else None


def _when(start: int, now: int) -> str:
    return "now" if start <= now else f"in {duration(start - now)}"


def numeric(sit: Situation, kind: changes.Numeric, guide: Guide, planned: int | None,
            reason) -> Advice | None:
    """The largest value of a numeric change that starts the job by T, the start the least
    of it gets in a replay stopped before `planned` (now when it starts now); None when the
    least does not start before `planned` or the job starts by T as it is."""
    now, hi = sit.now, kind.current - 1
    if hi < kind.least:
        return None
    t = start_of(sit, kind.make(kind.least), planned - 1 if planned is not None else now + HORIZON).start
    try:
        if t is None or (t > now and start_of(sit, kind.make(kind.current), t).by()):
            return None                 # the least does not start sooner, or it starts by then as it is
        guess = guide.boundary(kind.make, kind.least, hi, t)
        v = largest(lambda x: start_of(sit, kind.make(x), t).by(), kind.least, hi, guess)
    except Undecided:                   # a replay ran out of cycles: no claim
        return None
    return Advice(kind.name, v, t, reason(kind, v, t)) if v is not None else None


def _numeric_reason(now: int, planned: int | None):
    def reason(kind: changes.Numeric, v: int, t: int) -> str:
        unit = kind.name[:-1] if v == 1 else kind.name
        what = f"with <= {duration(v)} walltime" if kind.name == "walltime" else \
            f"with {v} {unit} (of {kind.current})"
        tail = ", in the backfill window" if t <= now and kind.name == "walltime" else ""
        gain = f", {duration(planned - t)} sooner" if planned is not None and planned > t else ""
        return f"{what} the job starts {_when(t, now)}{tail}{gain}"
    return reason


def credentials(sit: Situation, job: Job, planned: int | None,
                names: Iterable[tuple[str, str]]) -> list[Advice]:
    """Each (qos|class, name) under which the job starts before `planned`; with no planned
    start, before it would start as it is (checked by a replay up to that start)."""
    now, out = sit.now, []
    until = planned - 1 if planned is not None else now + HORIZON
    as_is: dict[int, bool] = {}
    for kind, name in names:
        s = start_of(sit, changes.credential(job, kind, name), until).start
        if s is not None and planned is None and s not in as_is:
            try:
                as_is[s] = start_of(sit, job, s).by()
            except Undecided:
                as_is[s] = True         # not known to be sooner: no claim
        if s is not None and not as_is.get(s, False):
            label = "QOS" if kind == "qos" else "class"
            gain = f", {duration(planned - s)} sooner" if planned is not None else ""
            out.append(Advice(kind, name, s, f"under {label} {name} the job starts {_when(s, now)}{gain}"))
    return out


def advise(sit: Situation, job_id: str, alternatives: bool = True) -> Advised:
    """The advice for queued job `job_id` of the situation (see the module)."""
    job = sit.job(job_id)
    if job is None or job.state.active or job.state.finished:
        raise ValueError(f"job {job_id} is not queued at {sit.now}")
    q0, c0 = sit.questions, sit.cycles
    out = Advised(job_id, sit.now)
    first = start_of(sit, job, sit.now, keep_first=True)
    result = first.first
    table = result.state.caches.plan.table if result is not None else None
    guide = Guide(table, sit.now, sit.cfg.get("NODEALLOCATIONPOLICY"), job_id)
    if first.start is not None:
        out.starts_now = True
    else:
        kept = result.state.reservations if result is not None else {}
        report = result.reports.get(job_id) if result is not None else None
        found = waits(report, job, sit.cfg, sit.moment, guide, kept)
        own = kept.get(job_id)
        out.planned = own.start if own is not None else _later(guide.earliest(job), sit.now)
        out.advice.extend(Advice("waits", w.what, w.until, w.reason) for w in found)
        if not any(w.what in ("hold", "dependency") for w in found):
            reason = _numeric_reason(sit.now, out.planned)
            for kind in (changes.walltime(job), changes.size(job)):
                a = numeric(sit, kind, guide, out.planned, reason)
                if a is not None:
                    out.advice.append(a)
            if alternatives:
                out.advice.extend(credentials(sit, job, out.planned, allowed(sit.cfg, job, sit.moment.nodes)))
    out.replays, out.cycles = sit.questions - q0, sit.cycles - c0
    out.planner_questions = guide.asked
    return out


def as_data(a: Advised) -> list[dict]:
    """The `advice` list of checkjob --json: {change, value, start, reason} each."""
    return [{"change": x.change, "value": x.value, "start": x.start, "reason": x.reason} for x in a.advice]


__all__ = ["Advice", "Advised", "Wait", "advise", "as_data"]
