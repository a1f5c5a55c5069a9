"""Mirror maui-py's priority reservations as Slurm reservations (optional, off by default).

Why: users see in `scontrol show res` which nodes wait for which job, and Slurm itself
keeps other work (anything started outside maui-py) off them. Each Reserve decision
becomes `maui.<job id>` (Users=root, Flags=IGNORE_JOBS so that jobs still running there do
not block the creation); a reservation whose job got no Reserve this cycle (it started,
left, or lost its reservation) is deleted; one that moved (nodes, or a time by a minute or
more) is updated. Deletes are issued before any release in the same apply, so a job is
never kept off its own nodes by its own mirror. Linear in the number of reservations.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterable, Mapping

from maui_py.model import Reserve

from . import hostlist
from .batch import Batch
from .reservations import MIRROR_PREFIX, is_mirror
from .values import epoch, text

TOLERANCE = 60


@dataclass(frozen=True, slots=True)
class Mirror:
    start: int
    end: int
    nodes: frozenset[str]


def mirror_name(job_id: str) -> str:
    return f"{MIRROR_PREFIX}{job_id}"


def mirror_from_record(d: Mapping[str, str]) -> tuple[str, Mirror] | None:
    """A `scontrol show reservation -o` record of one of our mirrors, else None."""
    name = text(d.get("ReservationName"))
    if not is_mirror(name):
        return None
    start, end = epoch(d["StartTime"]), epoch(d["EndTime"])
    if start is None or end is None:
        raise ValueError("StartTime/EndTime missing")
    return name, Mirror(start, end, frozenset(hostlist.expand(text(d.get("Nodes")))))


def _when(t: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))


def _minutes(seconds: int) -> int:
    return max(1, -(-seconds // 60))


def plan(current: Mapping[str, Mirror], reserves: Iterable[Reserve], now: int,
         batch: Batch) -> dict[str, Mirror | None]:
    """Add create/update/delete commands to batch; returns {name: new Mirror or None
    (deleted)} to record once scontrol accepted them."""
    desired: dict[str, Mirror] = {}
    for r in reserves:
        nodes = frozenset(n for n, _ in r.allocation)
        if nodes and r.end > max(r.start, now):
            desired[mirror_name(r.job_id)] = Mirror(max(r.start, now), r.end, nodes)
    changes: dict[str, Mirror | None] = {}
    for name in sorted(set(current) - set(desired)):
        batch.add(("resv", name), f"delete ReservationName={name}")
        changes[name] = None
    for name, want in sorted(desired.items()):
        have = current.get(name)
        spec = (f"StartTime={_when(want.start) if want.start > now else 'now'} "
                f"Duration={_minutes(want.end - want.start)} Nodes={hostlist.compress(want.nodes)}")
        moved = have is not None and (have.nodes != want.nodes
                                      or abs(have.start - want.start) >= TOLERANCE
                                      or abs(have.end - want.end) >= TOLERANCE)
        if have is not None and not moved:
            continue
        if moved and have.start > now:
            batch.add(("resv", name), f"update ReservationName={name} {spec}")
        else:
            if moved:  # an active reservation cannot move its start: replace it
                batch.add(("resv-old", name), f"delete ReservationName={name}")
            batch.add(("resv", name), f"create reservation ReservationName={name} {spec} "
                                      f"Users=root Flags=IGNORE_JOBS")
        changes[name] = want
    return changes
