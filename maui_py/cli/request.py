"""The admin commands' common path: check, queue a request for the daemon, maybe wait.

    setres / releaseres / sethold / releasehold / setspri / runjob
      1. who asks: root or an ADMIN1 user, else `permission denied` (exit 1);
      2. what: the command checks its arguments against the last cycle (unknown job or
         reservation: Maui's `ERROR:` line on stderr, exit 1);
      3. a request (kind, JSON arguments, requester) in the store (Store.submit_request): the
         daemon applies it at the start of its next cycle (daemon/handlers.py), journals it
         and records its outcome;
      4. `request N queued: ...` on stdout; with `--wait`, the outcome once the daemon has
         applied it (exit 1 if it refused it, or did not apply it within --timeout seconds);
         `--json`: {"command", "requests": [{id, kind, args, what, status, result, cycle}]}.

Writing a request needs write access to the store (and its directory, for SQLite's
journal): give the admins' group write permission, or run the commands as the daemon's
user. The daemon checks ADMIN1 again against its own configuration.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, TextIO

from ..store import Store, StoreError, StoreReader
from .common import (CommandError, add_store_arguments, command_config, invoking_user, open_reader,
                     require_admin, run_guarded, store_location, streams)
from .view import View

POLL_SECONDS = 0.2


def add_request_arguments(parser: argparse.ArgumentParser) -> None:
    add_store_arguments(parser, short_config=False)
    parser.add_argument("--wait", action="store_true",
                        help="wait until the daemon has applied the request and show its answer")
    parser.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                        help="--wait at most this long (default 60)")


@dataclass
class Context:
    """What a command checks its arguments against: the last cycle's view, the store's admin
    reservations, the user and the wall clock."""

    view: View
    admin_reservations: dict
    user: str
    wall: float


def unknown_job(jid: str) -> CommandError:
    return CommandError(f"ERROR:  cannot locate job '{jid}'", prefixed=False)


def waiting_job(ctx: Context, jid: str):
    """The job, if it is known and has not finished (else Maui's error)."""
    job = ctx.view.jobs.get(jid)
    if job is None or job.state.finished:
        raise unknown_job(jid)
    return job


Build = Callable[[Context], list[tuple[dict[str, Any], str]]]
"""From the context, the requests to queue: [(JSON arguments, what it asks, for the user)]."""


def submit(args: argparse.Namespace, prog: str, kind: str, build: Build,
           out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = streams(out, err)

    def body() -> int:
        path = store_location(args)
        with open_reader(args) as reader:
            last = reader.last_cycle()
            if last is None:
                raise CommandError(f"{path}: no cycle saved yet (has mauid run a cycle?)")
            if last.info.rm == "sim":
                raise CommandError(f"{path} is a simulation's store: no daemon applies requests to it")
            cfg, _source = command_config(args, last.info.config_path)
            user = invoking_user()
            require_admin(cfg, user, prog)
            ctx = Context(View(last, cfg, reader.load_state()), reader.admin_reservations(), user, time.time())
            requests = build(ctx)
        ids = _queue(path, kind, requests, user)
        queued = [{"id": rid, "kind": kind, "args": a, "what": f"{prog} {what}", "status": "pending"}
                  for rid, (a, what) in zip(ids, requests)]
        as_json = getattr(args, "json", False)
        if not as_json:
            for q in queued:
                out.write(f"request {q['id']} queued: {q['what']}; it takes effect at the next cycle\n")
        status = _wait(path, queued, args.timeout, out, err, quiet=as_json) if args.wait else 0
        if as_json:
            out.write(json.dumps({"command": prog, "requests": queued}, indent=2, sort_keys=True) + "\n")
        return status
    return run_guarded(prog, err, body)


def _queue(path, kind: str, requests, user: str) -> list[int]:
    try:
        store = Store.open(path, create=False)
    except StoreError as e:
        raise CommandError(f"cannot queue the request: {e} (admin commands need write access to "
                           "the store and its directory)") from e
    try:
        return [store.submit_request(kind, a, user) for a, _what in requests]
    finally:
        store.close(rollback_mode=True)


def _wait(path, queued: list[dict], timeout: float, out: TextIO, err: TextIO, quiet: bool) -> int:
    """Poll the store until every request is applied; note (and unless quiet, print) each
    outcome in `queued`. 0 when all were carried out, 1 when one was refused or is late."""
    deadline = time.monotonic() + timeout
    pending = {q["id"]: q for q in queued}
    status = 0
    while pending:
        with StoreReader.open(path) as reader:
            done = [r for r in reader.requests() if r.id in pending and r.status != "pending"]
        for r in done:
            pending.pop(r.id).update(status=r.status, result=r.result, cycle=r.cycle)
            if r.status != "done":
                status = 1
            if quiet:
                continue
            if r.status == "done":
                out.write(f"request {r.id} applied at cycle {r.cycle}: {r.result}\n")
            else:
                err.write(f"ERROR:    request {r.id} refused at cycle {r.cycle}: {r.result}\n")
        if pending and time.monotonic() > deadline:
            late = ", ".join(map(str, sorted(pending)))
            err.write(f"request{'s' if len(pending) > 1 else ''} {late} not applied after {timeout:g} s "
                      "(is mauid running?)\n")
            return 1
        if pending:
            time.sleep(POLL_SECONDS)
    return status


def job_requests(jobs, ctx: Context, payload: Mapping[str, Any], what: str) -> list[tuple[dict, str]]:
    """One request per job (the journal files each under its job)."""
    out = []
    for jid in jobs:
        waiting_job(ctx, jid)
        out.append(({"job": jid, **payload}, what.format(job=jid)))
    return out
