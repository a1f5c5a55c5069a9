"""Slurm reservations (`scontrol show reservation -o`) -> maui_py Reservations (kind USER).

A Slurm reservation is used only by jobs that ask for it (`--reservation`), so the ACL
admits exactly the jobs whose `resv_name` names it; its Users= go to `owner` for display.
A reservation on whole nodes holds them whole; one with fewer cores (CoreCnt) than its
nodes have holds that many processors, spread over the nodes. Reservations named
`maui.<job id>` are maui-py's own mirrors and never come back as input.
Linear in the record size.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

from maui_py.model import Acl, Job, Node, Reservation, ReservationKind, Resources

from . import hostlist
from .jobs import spread
from .values import epoch, opt_int, text

MIRROR_PREFIX = "maui."
_MIRROR = re.compile(r"^" + re.escape(MIRROR_PREFIX) + r"\d+(_\d+)?$")


def is_mirror(name: str) -> bool:
    """`maui.<job id>`: a name maui-py gives the reservations it mirrors."""
    return bool(_MIRROR.match(name))


def reservation_from_text(d: Mapping[str, str], nodes: Mapping[str, Node],
                          jobs: Iterable[Job] = ()) -> Reservation | None:
    """One record; None for a mirror of ours or one without nodes (licenses only)."""
    name = text(d["ReservationName"])
    if is_mirror(name):
        return None
    hosts = tuple(hostlist.expand(text(d.get("Nodes"))))
    if not hosts:
        return None
    start, end = epoch(d["StartTime"]), epoch(d["EndTime"])
    if start is None or end is None:
        raise ValueError("StartTime/EndTime missing")
    users = text(d.get("Users"))
    acl = Acl(jobs=frozenset(j.id for j in jobs if j.reservation == name))
    flags = frozenset(f for f in text(d.get("Flags")).split(",") if f)
    cores = opt_int(d.get("CoreCnt"))
    total = sum(nodes[h].resources.procs for h in hosts if h in nodes)
    if cores and total and cores < total:
        return Reservation(name, ReservationKind.USER, start, end,
                           allocation=spread(hosts, Resources(procs=cores)), acl=acl,
                           flags=flags, owner=users)
    return Reservation(name, ReservationKind.USER, start, end, hosts=hosts, acl=acl,
                       flags=flags, owner=users)
