"""Admin requests: what the commands (setres, releaseres, sethold, releasehold, setspri,
runjob ...) send to mauid over its socket (socket_server.py) for the daemon to carry out.

A request is generic: kind, JSON args, requester; the requester is the user the kernel
named for the socket's peer (SO_PEERCRED), never a name a client or a store row gives. The
daemon takes the queued ones at the start of a cycle, before the cycle runs, and hands each
to the handler registered for its kind; the handler changes the cycle's inputs
(AdminContext: the snapshot, the state, the admin reservations) or adds decisions to push,
and returns its answer text. The outcome (done / failed + text) is written to the store's
`requests` table in the same transaction as the cycle, and only then is the request
unqueued and its command answered; a cycle that fails before that commit applies it again
at the next one, so handlers are written to be idempotent (set, not toggle). Requests live
in the daemon's memory until then: a daemon that stops first has not applied them (the
waiting command is told).

    from maui_py.daemon import admin
    admin.register("sethold", lambda req, ctx: ...)     # the commands issue wires them
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from ..cfg import SchedulerConfig
from ..core.state import SchedulerState
from ..model import ClusterSnapshot, Decision, Reservation
from ..store.journal import REQUEST, JournalEntry
from ..store.reader import AdminRequest
from .request_args import check


@dataclass
class AdminContext:
    cfg: SchedulerConfig
    state: SchedulerState
    snapshot: ClusterSnapshot
    admin_reservations: dict[str, tuple[Reservation, str, float]]
    """name -> (reservation, owner, created); handlers that change it set reservations_changed."""
    wall: float
    decisions: list[Decision] = field(default_factory=list)
    unreadable: set[str] = field(default_factory=set)
    """Names of admin reservations whose store rows cannot be read: releaseres removes them."""
    reservations_changed: bool = False


Handler = Callable[[AdminRequest, AdminContext], str]
HANDLERS: dict[str, Handler] = {}


def register(kind: str, handler: Handler) -> None:
    HANDLERS[kind] = handler


def apply_requests(requests: list[AdminRequest], ctx: AdminContext
                   ) -> tuple[list[AdminRequest], list[JournalEntry]]:
    """Run each request's handler; (the requests with their status and result text, journal
    entries), for Store.save_cycle. A handler that raises fails its request only; so do
    arguments that are not what the kind takes (request_args), before its handler runs."""
    done, entries = [], []
    for req in requests:
        handler = HANDLERS.get(req.kind)
        if handler is None:
            status, text = "failed", f"no handler for request kind {req.kind!r}"
        else:
            try:
                check(req.kind, req.args)
                status, text = "done", handler(req, ctx) or "done"
            except Exception as e:            # the request fails, the daemon goes on
                status, text = "failed", f"{type(e).__name__}: {e}"
        done.append(replace(req, status=status, result=text))
        entries.append(JournalEntry(REQUEST, str(req.args.get("job", "")), text,
                                    {"id": req.id, "kind": req.kind, "args": dict(req.args),
                                     "requester": req.requester, "status": status}))
    return done, entries


def with_admin_reservations(ctx: AdminContext) -> ClusterSnapshot:
    """The snapshot plus the admin reservations still in force (ended ones are dropped)."""
    now = ctx.snapshot.now
    ended = [name for name, (r, _o, _c) in ctx.admin_reservations.items() if r.end <= now]
    for name in ended:
        del ctx.admin_reservations[name]
        ctx.reservations_changed = True
    if not ctx.admin_reservations:
        return ctx.snapshot
    extra = tuple(r for r, _o, _c in ctx.admin_reservations.values())
    return replace(ctx.snapshot, reservations=ctx.snapshot.reservations + extra)
