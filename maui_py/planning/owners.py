"""Owner keys of the reservation tables: made and read here and nowhere else.

Every hold in a table (planning/table.py, planning/counts.py) belongs to one owner key, a
str `<kind>:<name>`. The kind is one of the fixed tokens below, none holding ':', so a key
splits at its first ':' whatever the name holds, and two owners of different kinds never
share a key. A credit (a member's usage counted inside a reservation it may use) names two
owners and, for its second and later pieces, a start time; its key writes the member's key
with its length in front (`credit:<len>:<member>:<start>:<reservation>`), so no member or
reservation name can make two credits share a key. Keys stay plain strings: the tables look
them up on every reserve and release, and a str hashes once.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple

from ..model import Reservation, ReservationKind

JOB = "job"
"""A running or starting job's hold over its run."""
PRIORITY = "res"
"""A queued job's priority reservation."""
CREDIT = "credit"
"""A member's usage given back inside a reservation it may use (planning/table.py)."""
RESERVATION_KINDS = {ReservationKind.USER: "user", ReservationKind.STANDING: "standing",
                     ReservationKind.SYSTEM: "system"}
"""Non-job reservations (standing, administrative, the resource manager's) by their kind."""
_JOB, _PRIORITY = JOB + ":", PRIORITY + ":"


class Credit(NamedTuple):
    """A credit key read back: the member, the start of its piece (None: the first piece)
    and the reservation it is counted inside."""

    member: str
    start: int | None
    reservation: str


def job(job_id: str) -> str:
    """The hold of a running (or starting) job."""
    return _JOB + job_id


def priority(job_id: str) -> str:
    """The priority reservation of a queued job."""
    return _PRIORITY + job_id


def is_priority(owner: str) -> bool:
    """A queued job's priority reservation (a key priority() made). O(1)."""
    return owner.startswith(_PRIORITY)


def priorities(job_ids: Iterable[str]) -> list[str]:
    """priority() of each, in order. O(len)."""
    return [_PRIORITY + j for j in job_ids]


def reservation(r: Reservation) -> str:
    """A non-job reservation's key; a job reservation has its own (priority())."""
    kind = RESERVATION_KINDS.get(r.kind)
    if kind is None:
        raise ValueError(f"reservation {r.name!r} of kind {r.kind.value} is held as a job's")
    return f"{kind}:{r.name}"


def credit(member: str, inside: str, start: int | None = None) -> str:
    """The credit of `member` inside reservation `inside`; `start` names a later piece."""
    return f"{CREDIT}:{len(member)}:{member}:{'' if start is None else start}:{inside}"


def job_of(owner: str) -> str | None:
    """The job id of a job hold's key, None for any other owner."""
    return owner[len(_JOB):] if owner.startswith(_JOB) else None


def parse_credit(owner: str) -> Credit:
    """The parts of a credit key (ValueError if it is not one)."""
    kind, _, rest = owner.partition(":")
    size, sep, rest = rest.partition(":")
    if kind != CREDIT or not sep or not size.isdigit():
        raise ValueError(f"not a credit key: {owner!r}")
    member, tail = rest[:int(size)], rest[int(size):]
    start, sep, inside = tail[1:].partition(":")
    if tail[:1] != ":" or not sep:
        raise ValueError(f"not a credit key: {owner!r}")
    return Credit(member, int(start) if start else None, inside)
