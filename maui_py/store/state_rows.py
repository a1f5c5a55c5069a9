"""SchedulerState <-> the rows of the store: what must last between cycles, nothing else.

    rows = state_rows(state)         # StateRows: per-job rows, reservation rows, kv values
    state = build_state(jobs, reservations, kv)      # a SchedulerState with empty caches
    record = job_record(jid, data)   # one row decoded (ValueError when it cannot be read)

Per job (table job_state): queue_time, bypass, start_count, deferred, batch_hold,
pending, failed, system_priority (setspri), predictions (PREDICTIONPOLICY) and run_now
(runjob, kept as `true`). The users' runtime history (predictions) is one kv value. Kept
reservations (table reservations) by themselves: the stamp saying when they were last at
their earliest (SchedulerState.reserved_stamp) refers to one in-memory reservation table
(its `freed` counter) and would be wrong for the fresh table a restarted daemon builds, so
it is a cache, and a loaded reservation is always re-checked.
The queue policy (fair-share usage windows, queue priorities) is kept as
{name, data: policy.dump()}; until the first cycle rebuilds the real policy and
restores it, a SavedQueuePolicy stands in for it.

Cost: O(jobs with state + reservations).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.records import DeferRecord, KeptReservation, PendingStart
from ..core.state import SchedulerState
from ..predict.predictors import Prediction
from .codec import decode, dump_data, encode


class SavedQueuePolicy:
    """A queue policy's dump() as loaded from the store, before a cycle restores it."""

    def __init__(self, name: str, data: dict):
        self.name, self.data = name, data

    def dump(self) -> dict:
        return self.data

    def __repr__(self) -> str:
        return f"SavedQueuePolicy({self.name!r})"


@dataclass
class StateRows:
    jobs: dict[str, str] = field(default_factory=dict)
    """job id -> JSON text of what is kept about it."""
    reservations: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    """job id -> (start, end, KeptReservation JSON)."""
    kv: dict[str, str] = field(default_factory=dict)


_PER_JOB = ("queue_time", "bypass", "start_counts", "deferred", "batch_holds", "pending", "failed",
            "system_priority", "predictions")
_TYPES = {"deferred": DeferRecord, "pending": PendingStart, "queue_time": int, "bypass": int,
          "start_counts": int, "batch_holds": str, "failed": str, "system_priority": int,
          "predictions": Prediction}


def state_rows(state: SchedulerState) -> StateRows:
    rows = StateRows()
    per_job: dict[str, dict[str, Any]] = {}
    for name in _PER_JOB:
        for jid, value in getattr(state, name).items():
            per_job.setdefault(jid, {})[name] = encode(value)
    for jid in state.run_now:
        per_job.setdefault(jid, {})["run_now"] = True
    rows.jobs = {jid: dump_data(d) for jid, d in per_job.items()}
    for jid, kr in state.reservations.items():
        rows.reservations[jid] = (kr.start, kr.end, dump_data(encode(kr)))
    policy = state.queue_policy
    rows.kv = {"iteration": dump_data(state.iteration), "last_now": dump_data(state.last_now),
               "queue_policy": dump_data(None if policy is None else
                                         {"name": policy.name, "data": policy.dump()})}
    if state.history:
        rows.kv["runtime_history"] = dump_data(state.history)
    return rows


def job_record(jid: str, data: Any) -> dict[str, Any]:
    """What one job_state row keeps about job `jid`, decoded: {field: value}. ValueError
    (or TypeError, KeyError) when the row cannot be read (not an object, a value of the
    wrong type, a field this version does not write, a pending start of another job): the
    reader then skips the row whole."""
    if not isinstance(jid, str) or not isinstance(data, dict):
        raise ValueError(f"job {jid!r}: expected an object, got {type(data).__name__}")
    out: dict[str, Any] = {}
    for name, value in data.items():
        if name in _TYPES:
            out[name] = decode(_TYPES[name], value)
        elif name == "run_now":
            if not isinstance(value, bool):
                raise ValueError(f"run_now: expected true or false, got {value!r}")
            out[name] = value
        else:
            raise ValueError(f"unknown field {str(name)[:40]!r}")
    pending = out.get("pending")
    if pending is not None and pending.job_id != jid:
        raise ValueError(f"pending start of job {pending.job_id!r} in the row of job {jid!r}")
    return out


def kept_reservation(jid: str, data: Any) -> KeptReservation:
    """One reservations row (a kept priority reservation of job `jid`), decoded; ValueError
    (or TypeError, KeyError) when it cannot be read or is another job's."""
    kr = decode(KeptReservation, data)
    if not isinstance(jid, str) or kr.job_id != jid:
        raise ValueError(f"reservation of job {kr.job_id!r} in the row of job {jid!r}")
    return kr


def build_state(jobs: dict[str, Any], reservations: dict[str, Any], kv: dict[str, Any]) -> SchedulerState:
    """A SchedulerState from decoded JSON: {job: {field: value}}, {job: KeptReservation data},
    {key: value}."""
    return state_from({jid: job_record(jid, d) for jid, d in jobs.items()},
                      {jid: kept_reservation(jid, d) for jid, d in reservations.items()}, kv)


def state_from(jobs: dict[str, dict[str, Any]], reservations: dict[str, KeptReservation],
               kv: dict[str, Any]) -> SchedulerState:
    """A SchedulerState from rows already decoded (job_record, kept_reservation) and the kv
    values: the reader decodes row by row, so that one row it cannot read is skipped alone."""
    state = SchedulerState(iteration=int(kv.get("iteration") or 0), last_now=kv.get("last_now"))
    for jid, record in jobs.items():
        for name, value in record.items():
            if name == "run_now":
                if value:
                    state.run_now.add(jid)
            else:
                getattr(state, name)[jid] = value
    state.reservations.update(reservations)
    for user, pairs in (kv.get("runtime_history") or {}).items():
        state.history[str(user)] = tuple((int(r), int(q)) for r, q in pairs)
    policy = kv.get("queue_policy")
    if policy:
        state.queue_policy = SavedQueuePolicy(policy["name"], policy["data"])
    return state
