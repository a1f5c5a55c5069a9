"""The admin commands' common path: check, queue a request for the daemon, maybe wait.

    setres / releaseres / sethold / releasehold / setspri / runjob
      1. who asks: root or an ADMIN1 user, else `permission denied` (exit 1) -- a courtesy
         check only: the daemon decides;
      2. what: the command checks its arguments against the last cycle (unknown job or
         reservation: Maui's `ERROR:` line on stderr, exit 1);
      3. the requests (kind, JSON arguments) go to mauid over its Unix-domain socket beside
         the store (daemon/socket_server.py); the daemon names the sender from the socket's
         peer credentials (the kernel's uid, never a name the command sends), refuses anyone
         but root and ADMIN1 of its own configuration, and applies the requests at the start
         of its next cycle (daemon/handlers.py), journals them and records their outcomes;
      4. `request N queued: ...` on stdout; with `--wait`, the outcome once the daemon has
         applied it (exit 1 if it refused it, or did not apply it within --timeout seconds);
         `--json`: {"command", "requests": [{id, kind, args, what, status, result, cycle}]}.

The commands need read access to the store (to check their arguments) and a running mauid
(no write access to anything: only mauid writes the store).
"""

from __future__ import annotations

import argparse
import json
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, TextIO

from ..daemon import paths, request_args
from .common import (CommandError, add_store_arguments, command_config, invoking_user, open_reader,
                     require_admin, run_guarded, store_location, streams)

if TYPE_CHECKING:
    from .view import View

ANSWER_SECONDS = 10.0
"""How long mauid may take to say it queued (or refused) the requests."""


def add_request_arguments(parser: argparse.ArgumentParser) -> None:
    add_store_arguments(parser)
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
    unreadable: frozenset[str] = frozenset()
    """Admin reservations whose store rows cannot be read (releaseres may name them)."""


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
        from .view import View
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
            ctx = Context(View(last, cfg, reader.load_state()), reader.admin_reservations(), user, time.time(),
                          frozenset(reader.unreadable_names("admin_reservation")))
            requests = build(ctx)
        for a, _what in requests:           # what mauid would refuse is refused here, earlier
            try:
                request_args.check(kind, a)
            except ValueError as e:
                raise CommandError(f"ERROR:    {e}", 2, prefixed=False) from None
        conn = DaemonConnection(path)
        try:
            ids = conn.submit(kind, [a for a, _what in requests], wait=args.wait)
            queued = [{"id": rid, "kind": kind, "args": a, "what": f"{prog} {what}", "status": "pending"}
                      for rid, (a, what) in zip(ids, requests)]
            as_json = getattr(args, "json", False)
            if not as_json:
                for q in queued:
                    out.write(f"request {q['id']} queued: {q['what']}; it takes effect at the next cycle\n")
                out.flush()
            status = _wait(conn, queued, args.timeout, out, err, quiet=as_json) if args.wait else 0
        finally:
            conn.close()
        if as_json:
            out.write(json.dumps({"command": prog, "requests": queued}, indent=2, sort_keys=True) + "\n")
        return status
    return run_guarded(prog, err, body)


class DaemonConnection:
    """One connection to mauid's request socket (`<store>.sock`): send the requests, read
    the answer (ids, or the daemon's refusal) and, for --wait, the outcomes as they come."""

    def __init__(self, store: str | Path):
        self.path = paths.socket_path(store)
        self.buf = b""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(ANSWER_SECONDS)
        try:
            sock.connect(str(self.path))
        except (TimeoutError, BlockingIOError) as e:   # its queue of connections is full
            sock.close()
            raise CommandError(f"mauid is busy (it accepted no connection within {ANSWER_SECONDS:g} s); "
                               "try again") from e
        except OSError as e:
            sock.close()
            raise CommandError(f"cannot reach mauid at {self.path}: {e.strerror or e} "
                               "(is mauid running on this store?)") from None
        self.sock = sock

    def close(self) -> None:
        self.sock.close()

    def submit(self, kind: str, args: list[dict], *, wait: bool) -> list[int]:
        """Send the requests; their ids. CommandError with the daemon's reason if it refuses."""
        from ..daemon.socket_server import MAX_MESSAGE, MAX_REQUESTS, encode
        if len(args) > MAX_REQUESTS:
            raise CommandError(f"at most {MAX_REQUESTS} requests at a time (got {len(args)})")
        msg = encode({"requests": [{"kind": kind, "args": a} for a in args], "wait": wait})
        if len(msg) > MAX_MESSAGE:
            raise CommandError(f"request too large ({len(msg)} bytes, at most {MAX_MESSAGE})")
        try:
            self.sock.sendall(msg)
            answer = self.answer(time.monotonic() + ANSWER_SECONDS)
        except TimeoutError:
            raise CommandError(f"mauid did not answer within {ANSWER_SECONDS:g} s") from None
        except OSError as e:
            refusal = self._parting_words()
            if refusal:                         # it refused us before reading (busy): say why
                raise CommandError(refusal) from None
            raise CommandError(f"lost the connection to mauid: {e.strerror or e}") from None
        if answer is None:
            raise CommandError("mauid closed the connection without answering")
        if "error" in answer:
            raise CommandError(str(answer["error"]))
        ids = answer.get("ids")
        if not isinstance(ids, list) or len(ids) != len(args):
            raise CommandError(f"unexpected answer from mauid: {answer!r}")
        return [int(i) for i in ids]

    def _parting_words(self) -> str:
        """The error line mauid sent before it closed the connection ("mauid is busy ..."),
        or "" when it sent none: the reason a send failed with a broken pipe."""
        try:
            answer = self.answer(time.monotonic() + 1.0)
        except (OSError, ValueError):
            return ""
        return str(answer["error"]) if isinstance(answer, dict) and "error" in answer else ""

    def answer(self, deadline: float) -> dict | None:
        """The next line from the daemon; None when it closed the connection; TimeoutError
        at `deadline`."""
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            self.sock.settimeout(left)
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return json.loads(line)


def _wait(conn: DaemonConnection, queued: list[dict], timeout: float, out: TextIO, err: TextIO,
          quiet: bool) -> int:
    """Read the outcomes mauid sends once the cycle that applied the requests has committed;
    note (and unless quiet, print) each in `queued`. 0 when all were carried out, 1 when one
    was refused or is late."""
    deadline = time.monotonic() + timeout
    pending = {q["id"]: q for q in queued}
    status = 0
    while pending:
        late = ", ".join(map(str, sorted(pending)))
        plural = "s" if len(pending) > 1 else ""
        try:
            msg = conn.answer(deadline)
        except (TimeoutError, OSError):
            err.write(f"request{plural} {late} not applied after {timeout:g} s (mauid keeps "
                      f"{'them' if plural else 'it'} queued for its next cycle)\n")
            return 1
        if msg is None:
            err.write(f"mauid closed the connection before applying request{plural} {late} "
                      "(it stopped: not applied)\n")
            return 1
        q = pending.pop(msg.get("id"), None)
        if q is None:
            continue
        q.update(status=msg.get("status"), result=msg.get("result", ""), cycle=msg.get("cycle"))
        if q["status"] != "done":
            status = 1
        if quiet:
            continue
        if q["status"] == "done":
            out.write(f"request {q['id']} applied at cycle {q['cycle']}: {q['result']}\n")
        else:
            err.write(f"ERROR:    request {q['id']} refused at cycle {q['cycle']}: {q['result']}\n")
    return status


def job_requests(jobs, ctx: Context, payload: Mapping[str, Any], what: str) -> list[tuple[dict, str]]:
    """One request per job (the journal files each under its job)."""
    out = []
    for jid in jobs:
        waiting_job(ctx, jid)
        out.append(({"job": jid, **payload}, what.format(job=jid)))
    return out
