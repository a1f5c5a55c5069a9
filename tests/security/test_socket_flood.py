"""A local user who is not an admin cannot delay or deny root's admin commands through
mauid's socket (issue 34, items 1 and 2): a deeply nested line is answered and closed, a
connection is closed READ_TIMEOUT after it opened whatever it sent, a flood of idle
connections from one user leaves root its slots, and the command says "mauid is busy"
where the daemon turned it away, not "Broken pipe"."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from maui_py.cli.common import CommandError
from maui_py.cli.request import DaemonConnection
from maui_py.daemon import socket_server
from maui_py.daemon.socket_server import MAX_DEPTH, MAX_PER_USER, RequestServer, nesting, parse_message

from .test_request_socket import ME, message, talk
from .users import finish, fork_as

KINDS = {"sethold", "setres"}


@pytest.fixture
def open_dir():
    """A directory every user can reach (the flooder is another user)."""
    home = Path(tempfile.mkdtemp(prefix="maui-flood-", dir="/tmp"))
    os.chmod(home, 0o755)
    yield home
    subprocess.run(["rm", "-rf", "--", str(home)], check=False)


def serve(path: Path, admins=("root", ME)) -> RequestServer:
    return RequestServer(path, next_id=1, admins=lambda: set(admins), kinds=lambda: KINDS).start()


@pytest.mark.parametrize("line", [b"[" * 60000, b"{\"a\":" * 12000, b'{"requests": ' + b"[" * 9000 + b"]" * 9000 + b"}"])
def test_a_deeply_nested_line_is_answered_and_closed(tmp_path, line):
    srv = serve(tmp_path / "s.sock")
    try:
        (answer,) = talk(srv.path, line + b"\n", timeout=10)        # before: no answer, never closed
        assert answer == {"error": f"bad request: nested more than {MAX_DEPTH} deep"}
        assert srv.take() == [] and not srv._clients
        # 65 such connections, then an admin is still served at once
        for _ in range(65):
            assert talk(srv.path, line + b"\n", timeout=10)[0]["error"].startswith("bad request: nested")
        assert talk(srv.path, message()) == [{"ids": [1], "requester": ME}]
    finally:
        srv.close()


def test_nesting_is_counted_outside_strings_only():
    assert nesting(b'{"requests": [{"kind": "setres", "args": {"users": ["a"]}}]}') == 5
    assert nesting(b'{"a": "[[[[[[[[[[[[[[[[[[[[\\\\", "b": "\\"[[[[[[[[[[[["}') == 1
    assert nesting(b"[" * 100, limit=3) == 4                     # stops counting past the limit
    args = {"users": ["x"], "hosts": ["n1"], "name": "r"}
    line = json.dumps({"requests": [{"kind": "setres", "args": args}]}).encode()
    assert parse_message(line, KINDS) == ([("setres", args)], False)


def flood(path: str, seconds: float, go: int, out: int) -> None:
    """The non-admin's side (in a child that has become that user): wait for `go`, hold 100
    connections to `path`, reconnecting as each is dropped, for `seconds`; write "ready"
    once they are open, then the JSON list of every answer the daemon sent them."""
    os.read(go, 1)
    held, answers = [], []

    def connect() -> socket.socket:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(2)
        s.connect(path)
        s.setblocking(False)
        return s
    for _ in range(100):
        held.append(connect())
    os.write(out, b"ready\n")
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for k, s in enumerate(held):
            try:
                got = s.recv(4096)
            except BlockingIOError:
                continue
            answers.append(got.decode())
            s.close()
            held[k] = connect()
        time.sleep(0.01)
    os.write(out, json.dumps(answers).encode() + b"\n")


def test_a_flood_of_idle_connections_by_one_user_leaves_root_its_way_in(open_dir, nonadmin, monkeypatch):
    monkeypatch.setattr(socket_server, "READ_TIMEOUT", 1.0)
    path = open_dir / "m.sock"
    pid, go, out = fork_as(nonadmin, flood, str(path), 4.0)
    srv = serve(path, admins=("root",))
    try:
        os.write(go, b"g")
        assert out.readline() == b"ready\n"
        held = [c for c in srv._clients if c.uid == nonadmin.pw_uid]
        assert len(held) <= MAX_PER_USER
        for k in range(10):                               # root: 10 of 10 served
            assert talk(srv.path, message(), timeout=5) == [{"ids": [k + 1], "requester": "root"}]
            time.sleep(0.1)
        answers = json.loads(out.readline())
    finally:
        os.close(go)
        out.close()
        code = finish(pid)
        srv.close()
    assert code == 0
    busy = [a for a in answers if "mauid is busy" in a]
    assert busy and all(json.loads(a)["error"] == f"mauid is busy (uid {nonadmin.pw_uid} holds {MAX_PER_USER} "
                                                  "connections already); try again" for a in busy)
    assert [a for a in answers if "no request within" in a]     # those it held were closed after 1 s


def test_the_command_says_mauid_is_busy_not_broken_pipe(tmp_path, monkeypatch):
    monkeypatch.setattr(socket_server, "MAX_CLIENTS", 2)
    monkeypatch.setattr(socket_server, "ADMIN_SLOTS", 0)
    store = tmp_path / "x.db"
    srv = serve(Path(f"{store}.sock"))
    idle = []
    try:
        for _ in range(2):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(str(srv.path))
            idle.append(s)
        deadline = time.monotonic() + 5
        while len(srv._clients) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)
        conn = DaemonConnection(store)
        time.sleep(0.3)                                   # mauid has turned it away and closed
        try:
            with pytest.raises(CommandError, match=r"^mauid is busy \(too many connections\); try again$"):
                conn.submit("sethold", [{"job": "1"}], wait=False)
        finally:
            conn.close()
    finally:
        for s in idle:
            s.close()
        srv.close()
