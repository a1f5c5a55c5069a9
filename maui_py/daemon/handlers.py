"""The daemon's side of the admin commands: one handler per request kind.

The commands (maui_py/cli: setres, releaseres, sethold, releasehold, setspri, runjob) check
their arguments and send a request over mauid's socket; at the start of the next cycle the daemon
hands each to its handler here (admin.apply_requests), which changes that cycle's inputs:

  setres       an administrative reservation (kind User) in ctx.admin_reservations: on
               named hosts (whole nodes) or of a task count (one processor a task), from
               start to end, with its access list; the cycle places it, and it is dropped
               once it has ended (admin.with_admin_reservations)
  releaseres   removes administrative reservations
  sethold      batch: maui-py's own hold (state.batch_holds); user/system: a Hold decision
               the adapter pushes, and the job held in this cycle's snapshot already
  releasehold  the reverse (`all`: every hold and a defer)
  setspri      state.system_priority (0 unsets); the cycle ranks the job by it
  runjob       state.run_now: the cycle starts the job first, past throttling limits

The requester is the user the kernel named when the command connected to mauid's socket
(socket_server.py: SO_PEERCRED, never a name the command wrote); it must be root or in
ADMIN1 of the daemon's configuration, whatever the command checked. The socket refuses
anyone else before queueing; each handler checks again against the configuration in force
when it runs (a SIGHUP may have changed ADMIN1 meanwhile). A handler raises to fail its request (the text is the error the command shows);
applying a request twice gives the same state. Importing this module registers them.
"""

from __future__ import annotations

from dataclasses import replace

from ..model import Acl, Hold, HoldType, ReleaseHold, Reservation, ReservationKind, Resources
from ..model.times import span_text
from ..priority.engine import MAX_PRIO_VAL
from . import admin

HOLDS = {"user": HoldType.USER, "system": HoldType.SYSTEM, "batch": HoldType.BATCH}
ACL_KEYS = ("users", "groups", "accounts", "classes", "qos")


class RequestRefused(ValueError):
    """The request cannot be carried out; the message says why."""


def admin_users(cfg) -> set[str]:
    """Who may ask for an admin action: root and the ADMIN1 users."""
    return {"root", *(cfg.get("ADMIN1") or ())}


def _authorize(req: admin.AdminRequest, ctx: admin.AdminContext) -> None:
    if req.requester not in admin_users(ctx.cfg):
        raise RequestRefused(f"permission denied: {req.requester or 'an unknown user'} is not in ADMIN1")


def _job(req: admin.AdminRequest, ctx: admin.AdminContext):
    jid = str(req.args.get("job", ""))
    for j in ctx.snapshot.jobs:
        if j.id == jid and not j.state.finished:
            return j
    raise RequestRefused(f"cannot locate job '{jid}'")


def _set_holds(ctx: admin.AdminContext, job_id: str, holds) -> None:
    """This cycle sees the job with `holds` (the adapter pushes the change after it)."""
    jobs = tuple(replace(j, holds=frozenset(holds)) if j.id == job_id else j for j in ctx.snapshot.jobs)
    ctx.snapshot = replace(ctx.snapshot, jobs=jobs)


# ------------------------------------------------------------------ reservations
def setres(req: admin.AdminRequest, ctx: admin.AdminContext) -> str:
    _authorize(req, ctx)
    a, now = req.args, ctx.snapshot.now
    start = max(int(a.get("start") or now), now)
    end = int(a["end"])
    if end <= start:
        raise RequestRefused("cannot create reservation (invalid timeframe)")
    names = [n.name for n in ctx.snapshot.nodes]
    hosts = tuple(names) if a.get("all_nodes") else tuple(a.get("hosts") or ())
    unknown = sorted(set(hosts) - set(names))
    if unknown:
        raise RequestRefused(f"cannot determine nodelist: no node {', '.join(unknown)}")
    tasks = int(a.get("tasks") or 0)
    if not hosts and tasks <= 0:
        raise RequestRefused("nothing to reserve: give nodes or TASKS==N")
    acl = Acl(**{k: frozenset(a.get(k) or ()) for k in ACL_KEYS})
    acl_names = [n for k in ACL_KEYS for n in sorted(a.get(k) or ())]
    name = a.get("name") or f"{acl_names[0] if acl_names else 'SYSTEM'}.{req.id}"
    r = Reservation(name, ReservationKind.USER, start, end, hosts=hosts, tasks=tasks,
                    per_task=Resources.of(1) if tasks else None, acl=acl, owner=req.requester)
    held = ctx.admin_reservations.get(name)
    if held is not None and held[0] != r:
        raise RequestRefused(f"reservation '{name}' already exists")
    ctx.admin_reservations[name] = (r, req.requester, ctx.wall)
    ctx.reservations_changed = True
    what = f"{len(hosts)} node{'s' if len(hosts) != 1 else ''}" if hosts and not tasks else f"{tasks} tasks"
    return f"reservation '{name}' created on {what} {span_text(start, end)}"


def releaseres(req: admin.AdminRequest, ctx: admin.AdminContext) -> str:
    _authorize(req, ctx)
    names = list(req.args.get("names") or ())
    missing = [n for n in names if n not in ctx.admin_reservations and n not in ctx.unreadable]
    if missing:
        raise RequestRefused(f"cannot locate reservation '{missing[0]}'")
    for n in names:                       # an unreadable row (ctx.unreadable) is released too
        ctx.admin_reservations.pop(n, None)
        ctx.unreadable.discard(n)
    ctx.reservations_changed = True
    return "".join(f"released User reservation '{n}'\n" for n in names).rstrip("\n")


# -------------------------------------------------------------------------- holds
def sethold(req: admin.AdminRequest, ctx: admin.AdminContext) -> str:
    _authorize(req, ctx)
    job = _job(req, ctx)
    kind = str(req.args.get("hold", "user"))
    if kind not in HOLDS:
        raise RequestRefused(f"invalid hold type '{kind}'")
    if job.state.active:
        raise RequestRefused(f"job '{job.id}' is {job.state.value.lower()}: only waiting jobs can be held")
    why = f"set by {req.requester} (sethold)"
    if kind == "batch":
        ctx.state.batch_holds[job.id] = why
    else:
        ctx.decisions.append(Hold(job.id, HOLDS[kind], why))
        _set_holds(ctx, job.id, job.holds | {HOLDS[kind]})
    return f"{kind} hold placed on job {job.id}"


def releasehold(req: admin.AdminRequest, ctx: admin.AdminContext) -> str:
    _authorize(req, ctx)
    job = _job(req, ctx)
    kind = str(req.args.get("hold", "user"))
    if kind not in (*HOLDS, "all"):
        raise RequestRefused(f"invalid hold type '{kind}'")
    kinds = list(HOLDS) if kind == "all" else [kind]
    released = []
    holds = set(job.holds)
    why = f"released by {req.requester} (releasehold)"
    for k in kinds:
        if k == "batch":
            if ctx.state.batch_holds.pop(job.id, None) is not None:
                released.append(k)
        elif HOLDS[k] in holds:
            ctx.decisions.append(ReleaseHold(job.id, HOLDS[k], why))
            holds.discard(HOLDS[k])
            released.append(k)
    if kind == "all" and ctx.state.deferred.pop(job.id, None) is not None:
        holds.discard(HoldType.DEFER)
        released.append("defer")
    _set_holds(ctx, job.id, holds)
    if not released:
        return f"job {job.id} has no hold to release" if kind == "all" else f"job {job.id} has no {kind} hold"
    return f"{', '.join(released)} hold{'s' if len(released) > 1 else ''} released on job {job.id}"


# --------------------------------------------------------------- priority, start
def setspri(req: admin.AdminRequest, ctx: admin.AdminContext) -> str:
    _authorize(req, ctx)
    job = _job(req, ctx)
    prio = int(req.args.get("priority", 0))
    if not 0 <= prio <= 1000:
        raise RequestRefused("system priority must be in the range 0 - 1000")
    if req.args.get("relative"):
        ctx.state.system_priority[job.id] = prio + 2 * MAX_PRIO_VAL
    elif prio == 0:
        ctx.state.system_priority.pop(job.id, None)
    else:
        ctx.state.system_priority[job.id] = prio
    return f"job system priority adjusted: {job.id} {'+' if req.args.get('relative') else ''}{prio}"


def runjob(req: admin.AdminRequest, ctx: admin.AdminContext) -> str:
    _authorize(req, ctx)
    job = _job(req, ctx)
    if job.state.active:
        raise RequestRefused(f"job '{job.id}' is in state '{job.state.value}'  (state must be idle)")
    if job.holds or job.id in ctx.state.batch_holds:
        raise RequestRefused(f"job '{job.id}' has a hold in place (releasehold first)")
    ctx.state.run_now.add(job.id)
    return f"job '{job.id}' will start at this cycle if its resources are free (else it is reserved first)"


for _kind, _handler in (("setres", setres), ("releaseres", releaseres), ("sethold", sethold),
                        ("releasehold", releasehold), ("setspri", setspri), ("runjob", runjob)):
    admin.register(_kind, _handler)
