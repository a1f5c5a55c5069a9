"""mauid's request socket: how the admin commands reach the daemon, and who they are.

The admin commands (setres, releaseres, sethold, releasehold, setspri, runjob) connect to
the Unix-domain socket `<store>.sock` (paths.socket_path) and send ONE line of JSON:

    {"requests": [{"kind": "sethold", "args": {"job": "42", "hold": "user"}}], "wait": true}

Who sends it is what the kernel says: the daemon reads the connecting process's uid from
the socket (SO_PEERCRED) and names it with pwd. A user name in the message is ignored. A
sender who is not root or in ADMIN1 (of the daemon's configuration in force) is refused at
once and nothing is queued. An accepted message is answered with one line,
{"ids": [...], "requester": NAME}; its requests wait in memory for the next cycle, which
takes them (`take`) and, once the store has committed the cycle, reports their outcomes
(`settle`). A request stays queued until a cycle that applied it commits, so a cycle that
fails applies it again at the next one. With "wait" each outcome follows on the same
connection: {"id", "status", "result", "cycle"}. An error is {"error": TEXT}, then close.

The store is never a way in: it is written by mauid only, and mauid takes requests from
this socket only (a row left in the store's `requests` table is marked `ignored`).

One thread serves every connection through a selector over non-blocking sockets, so a
client that stalls holds up neither another client nor the scheduling cycle. Bounds: a
message of at most MAX_MESSAGE bytes nesting at most MAX_DEPTH deep (checked before
json.loads), sent within READ_TIMEOUT seconds of connecting; at most MAX_REQUESTS requests
in a message, MAX_PENDING queued. A connection that is not waiting for its requests'
outcomes is closed READ_TIMEOUT seconds after it was opened, whatever it did (sent nothing,
sent a bad line, does not read its answer). Connections: at most MAX_CLIENTS; users who are
not root or ADMIN1 share MAX_CLIENTS - ADMIN_SLOTS of them, at most MAX_PER_USER each (the
uid is the kernel's), so that no local user can crowd the admins out; a connection over
its share is told "mauid is busy" and closed at once.
"""

from __future__ import annotations

import json
import logging
import os
import pwd
import re
import selectors
import socket
import stat
import struct
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from ..store.reader import AdminRequest

log = logging.getLogger("maui_py.daemon")

MAX_MESSAGE = 64 * 1024
MAX_REQUESTS = 256
MAX_PENDING = 4096
MAX_CLIENTS = 64
ADMIN_SLOTS = 16
"""Of MAX_CLIENTS, the connections only root and ADMIN1 users may take."""
MAX_PER_USER = 4
"""Connections one user who is not an admin may hold at once."""
MAX_DEPTH = 8
"""How deep a message's [ and { may nest (a request needs 5)."""
BACKLOG = 128
READ_TIMEOUT = 5.0
SOCKET_MODE = 0o666
"""Anyone who can reach the directory may connect; the daemon decides who may act."""
MAX_PATH = 107
"""sun_path holds 108 bytes, the terminating NUL included."""


def peer_credentials(sock: socket.socket) -> tuple[int, int, str]:
    """(pid, uid, user name) of the process that connected, as the kernel recorded them at
    connect(); the name is pwd's, or `UID<n>` for a uid without a passwd entry."""
    pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                         struct.calcsize("3i")))
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        name = f"UID{uid}"
    return pid, uid, name


def encode(doc: Mapping[str, Any]) -> bytes:
    """One protocol line."""
    return (json.dumps(doc, sort_keys=True) + "\n").encode()


_TOKENS = re.compile(rb'[\[\]{}"\\]')


def nesting(line: bytes, limit: int = MAX_DEPTH) -> int:
    """How deep [ and { nest in `line` outside JSON strings, counted up to limit + 1 (a
    line of 60,000 `[` stops at once). One pass, no recursion: it runs before json.loads,
    whose recursion a deep line would exhaust."""
    depth = deepest = 0
    in_string, escaped = False, -1
    for m in _TOKENS.finditer(line):
        pos, ch = m.start(), line[m.start()]
        if in_string:
            if pos == escaped:
                continue
            if ch == 0x5C:                          # backslash: the next byte is escaped
                escaped = pos + 1
            elif ch == 0x22:
                in_string = False
        elif ch == 0x22:
            in_string = True
        elif ch in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                break
        elif ch in (0x5D, 0x7D):
            depth -= 1
    return deepest


def parse_message(line: bytes, kinds: Iterable[str]) -> tuple[list[tuple[str, dict]], bool]:
    """([(kind, args)], wait) from a client's line; ValueError saying what is wrong. Any
    other key (a `user`, a `requester`) is ignored."""
    if len(line) > MAX_MESSAGE:
        raise ValueError(f"request too large (more than {MAX_MESSAGE} bytes)")
    if nesting(line) > MAX_DEPTH:
        raise ValueError(f"nested more than {MAX_DEPTH} deep")
    try:
        msg = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"not JSON ({e})") from None
    except RecursionError:                          # cannot happen below MAX_DEPTH; never fatal
        raise ValueError(f"nested more than {MAX_DEPTH} deep") from None
    if not isinstance(msg, dict):
        raise ValueError("not a JSON object")
    items = msg.get("requests")
    if not isinstance(items, list) or not 1 <= len(items) <= MAX_REQUESTS:
        raise ValueError(f"'requests' must be a list of 1 to {MAX_REQUESTS} requests")
    known = set(kinds)
    out = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("kind"), str):
            raise ValueError("a request is an object with a 'kind'")
        args = item.get("args", {})
        if not isinstance(args, dict):
            raise ValueError("a request's 'args' must be an object")
        if item["kind"] not in known:
            raise ValueError(f"no request kind {item['kind']!r}")
        out.append((item["kind"], args))
    return out, bool(msg.get("wait"))


@dataclass(eq=False)
class _Client:
    sock: socket.socket
    pid: int
    uid: int
    user: str
    opened: float
    admin: bool = False        # root or ADMIN1 when it connected (may take ADMIN_SLOTS)
    buf: bytearray = field(default_factory=bytearray)
    out: bytearray = field(default_factory=bytearray)
    waiting: set[int] = field(default_factory=set)
    read: bool = False         # its request line has been read
    closing: bool = False      # close once `out` is sent


class RequestServer:
    """The socket, its serving thread and the queue of accepted requests.

    admins(): the user names that may act (read at each message, so a reload counts);
    kinds(): the request kinds there is a handler for; check(kind, args): ValueError when
    the arguments are not what the kind takes (request_args.check; nothing of a message
    with one bad request is queued); on_request(): called (from the serving thread) after
    requests were queued; floor(): the highest id already recorded
    in the store (new ids go above it)."""

    def __init__(self, path: str | Path, *, next_id: int = 1,
                 admins: Callable[[], Iterable[str]] = lambda: ("root",),
                 kinds: Callable[[], Iterable[str]] = lambda: (),
                 check: Callable[[str, Mapping[str, Any]], None] = lambda kind, args: None,
                 on_request: Callable[[], None] = lambda: None,
                 floor: Callable[[], int] = lambda: 0,
                 clock: Callable[[], float] = time.time):
        self.path = Path(path)
        self.admins, self.kinds, self.on_request, self.clock = admins, kinds, on_request, clock
        self.floor, self.check = floor, check
        self._lock = threading.Lock()
        self._pending: dict[int, AdminRequest] = {}
        self._waiters: dict[int, _Client] = {}
        self._outbox: list[tuple[_Client, AdminRequest]] = []
        self._next_id = max(1, next_id)
        self._newest = self._next_id - 1
        self._clients: set[_Client] = set()
        self._closing = False
        self._listener: socket.socket | None = None
        self._wake_r = self._wake_w = None
        self._sel: selectors.BaseSelector | None = None
        self._thread: threading.Thread | None = None
        self._ino: int | None = None

    # ------------------------------------------------------------- lifecycle
    def start(self) -> "RequestServer":
        """Bind (replacing a dead daemon's socket, never anything else), listen, serve.
        OSError when the socket cannot be made."""
        path = str(self.path)
        if len(os.fsencode(path)) > MAX_PATH:
            raise OSError(f"{path}: socket path too long ({len(os.fsencode(path))} bytes, at most "
                          f"{MAX_PATH}): give the store a shorter path")
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            st = None
        if st is not None:
            if not stat.S_ISSOCK(st.st_mode):
                raise OSError(f"{path} exists and is not a socket: mauid will not replace it")
            os.unlink(path)                 # a dead daemon's: we hold the store's lock
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(path)
            os.chmod(path, SOCKET_MODE)
            listener.listen(BACKLOG)
            listener.setblocking(False)
            self._ino = os.lstat(path).st_ino
        except BaseException:
            listener.close()
            raise
        self._listener = listener
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(listener, selectors.EVENT_READ, "listen")
        self._sel.register(self._wake_r, selectors.EVENT_READ, "wake")
        self._thread = threading.Thread(target=self._serve, name="mauid-requests", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving, close every connection (a waiting command is told the daemon went
        away by the end of its connection) and remove the socket if it is still ours."""
        if self._thread is None:
            return
        self._closing = True
        self._wake()
        self._thread.join(5)
        for c in list(self._clients):
            self._drop(c)
        self._sel.close()
        for s in (self._listener, self._wake_r, self._wake_w):
            s.close()
        try:
            if os.lstat(self.path).st_ino == self._ino:
                os.unlink(self.path)
        except OSError:
            pass
        self._thread = None

    # ---------------------------------------------------------- the daemon's side
    def take(self) -> list[AdminRequest]:
        """The queued requests, oldest first; they stay queued until `settle`."""
        with self._lock:
            return [self._pending[k] for k in sorted(self._pending)]

    def newest(self) -> int:
        """The id of the last request queued (0: none yet)."""
        return self._newest

    def settle(self, outcomes: Iterable[AdminRequest]) -> None:
        """The store has committed these outcomes: unqueue them and answer who waits."""
        with self._lock:
            for o in outcomes:
                self._pending.pop(o.id, None)
                c = self._waiters.pop(o.id, None)
                if c is not None:
                    self._outbox.append((c, o))
            told = bool(self._outbox)
        if told:
            self._wake()

    # --------------------------------------------------------------- serving
    def _wake(self) -> None:
        try:
            self._wake_w.send(b"\0")
        except (BlockingIOError, OSError):
            pass

    def _serve(self) -> None:
        while not self._closing:
            try:
                for key, mask in self._sel.select(timeout=0.5):
                    if key.data == "listen":
                        self._accept()
                    elif key.data == "wake":
                        try:
                            while self._wake_r.recv(512):
                                pass
                        except (BlockingIOError, OSError):
                            pass
                    elif key.data in self._clients:
                        if mask & selectors.EVENT_READ:
                            self._read(key.data)
                        if mask & selectors.EVENT_WRITE and key.data in self._clients:
                            self._flush(key.data)
                self._deliver()
                self._expire()
            except Exception:                   # never let the socket die with one bad client
                log.exception("request socket: unexpected error; going on")

    def _accept(self) -> None:
        try:
            conn, _addr = self._listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        except OSError as e:
            log.warning("request socket: accept failed: %s", e)
            return
        conn.setblocking(False)
        try:
            pid, uid, user = peer_credentials(conn)
        except OSError:
            conn.close()
            return
        admin = user in set(self.admins())
        busy = self._over_share(uid, admin)
        if busy:
            try:
                conn.send(encode({"error": f"mauid is busy ({busy}); try again"}))
            except OSError:
                pass
            conn.close()
            return
        c = _Client(conn, pid, uid, user, time.monotonic(), admin=admin)
        self._clients.add(c)
        self._sel.register(conn, selectors.EVENT_READ, c)

    def _over_share(self, uid: int, admin: bool) -> str:
        """Why a new connection of `uid` is refused ("": it is not): admins may take every
        slot; the others share all but ADMIN_SLOTS, MAX_PER_USER each."""
        if len(self._clients) >= MAX_CLIENTS:
            return "too many connections"
        if admin:
            return ""
        others = [c for c in self._clients if not c.admin]
        if len(others) >= MAX_CLIENTS - ADMIN_SLOTS:
            return "too many connections from users who are not admins"
        if sum(1 for c in others if c.uid == uid) >= MAX_PER_USER:
            return f"uid {uid} holds {MAX_PER_USER} connections already"
        return ""

    def _read(self, c: _Client) -> None:
        try:
            data = c.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._drop(c)
            return
        if not data:                            # gone; what it queued stays queued
            self._drop(c)
            return
        if c.read:
            return                              # anything after the request line is ignored
        c.buf += data
        end = c.buf.find(b"\n")
        if end < 0 and len(c.buf) <= MAX_MESSAGE:
            return
        if end < 0 or end > MAX_MESSAGE:
            log.warning("request socket: %s (uid %d, pid %d) sent more than %d bytes: refused",
                        c.user, c.uid, c.pid, MAX_MESSAGE)
            self._refuse(c, f"request too large (more than {MAX_MESSAGE} bytes)")
            return
        line = bytes(c.buf[:end])
        c.buf = bytearray()
        c.read = True
        try:
            self._handle(c, line)
        except Exception:                   # answered and closed, whatever went wrong
            log.exception("request socket: %s (uid %d, pid %d): cannot handle its request", c.user, c.uid, c.pid)
            if c in self._clients and not c.closing:
                self._refuse(c, "mauid could not handle the request (see its log)")

    def _handle(self, c: _Client, line: bytes) -> None:
        try:
            items, wait = parse_message(line, self.kinds())
        except ValueError as e:
            self._refuse(c, f"bad request: {e}")
            return
        what = ", ".join(sorted({k for k, _a in items}))
        if c.user not in set(self.admins()):
            log.warning("request socket: %s (uid %d, pid %d) asked for %s: permission denied",
                        c.user, c.uid, c.pid, what)
            self._refuse(c, f"permission denied: user {c.user} may not run {what} "
                            "(only root and ADMIN1 users may)")
            return
        try:
            for kind, args in items:
                self.check(kind, args)
        except ValueError as e:
            log.warning("request socket: %s (uid %d, pid %d): bad arguments: %s", c.user, c.uid, c.pid, e)
            self._refuse(c, f"bad request: {e}")
            return
        with self._lock:
            if len(self._pending) + len(items) > MAX_PENDING:
                busy = True
            else:
                busy, ids = False, []
                self._next_id = max(self._next_id, self.floor() + 1)
                for kind, args in items:
                    rid, self._next_id = self._next_id, self._next_id + 1
                    self._pending[rid] = AdminRequest(rid, kind, args, c.user, self.clock())
                    ids.append(rid)
                    if wait:
                        self._waiters[rid] = c
                        c.waiting.add(rid)
                self._newest = ids[-1]
        if busy:
            self._refuse(c, f"too many requests queued (at most {MAX_PENDING}); try again after the next cycle")
            return
        log.info("request socket: %s (uid %d, pid %d) queued request%s %s (%s)", c.user, c.uid, c.pid,
                 "s" if len(ids) > 1 else "", ", ".join(map(str, ids)), what)
        self.on_request()
        c.out += encode({"ids": ids, "requester": c.user})
        c.closing = not wait
        self._flush(c)

    def _refuse(self, c: _Client, text: str) -> None:
        c.out += encode({"error": text})
        c.closing = True
        self._flush(c)

    def _deliver(self) -> None:
        with self._lock:
            box, self._outbox = self._outbox, []
        for c, o in box:
            if c not in self._clients:
                continue
            c.waiting.discard(o.id)
            c.out += encode({"id": o.id, "status": o.status, "result": o.result, "cycle": o.cycle})
            c.closing = not c.waiting
            self._flush(c)

    def _flush(self, c: _Client) -> None:
        while c.out:
            try:
                n = c.sock.send(c.out)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                self._drop(c)
                return
            del c.out[:n]
        if not c.out and c.closing:
            self._drop(c)
            return
        self._sel.modify(c.sock, selectors.EVENT_READ | (selectors.EVENT_WRITE if c.out else 0), c)

    def _expire(self) -> None:
        """Every connection not waiting for outcomes ends READ_TIMEOUT s after it opened: one
        that sent no request is told so; one that was answered (or refused) but has not taken
        its answer is dropped."""
        now = time.monotonic()
        for c in [c for c in self._clients if not c.waiting and now - c.opened > READ_TIMEOUT]:
            if c.read or c.closing:
                self._drop(c)
            else:
                self._refuse(c, f"no request within {READ_TIMEOUT:g} s")

    def _drop(self, c: _Client) -> None:
        if c not in self._clients:
            return
        self._clients.discard(c)
        with self._lock:
            for rid in c.waiting:
                self._waiters.pop(rid, None)
        try:
            self._sel.unregister(c.sock)
        except (KeyError, ValueError):
            pass
        c.sock.close()


def for_daemon(daemon) -> RequestServer:
    """The daemon's request socket, started: beside its store; admins from the configuration
    in force; a queued request starts a cycle at once unless REQUESTPOLLINTERVAL is 0; the
    outcomes go back to the commands once the store has committed them."""
    from . import admin, handlers, paths, request_args
    server = RequestServer(paths.socket_path(daemon.store_path), next_id=daemon.store.next_request_id(),
                           admins=lambda: handlers.admin_users(daemon.cfg), kinds=lambda: admin.HANDLERS,
                           check=request_args.check,
                           on_request=lambda: daemon.cycle_now() if daemon.request_poll > 0 else None,
                           floor=lambda: getattr(daemon.store, "last_request_id", 0),
                           clock=daemon.clock)
    daemon.store.on_requests_saved = server.settle
    return server.start()
