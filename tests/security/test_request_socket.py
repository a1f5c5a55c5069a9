"""mauid's request socket on its own (daemon/socket_server.py): the sender is the kernel's
uid, whatever the message says; what a client sends is bounded; a stalled client holds up
nobody; a request stays queued until the store has committed its outcome."""

from __future__ import annotations

import json
import os
import pwd
import socket
import time
from dataclasses import replace

import pytest

from maui_py.daemon import socket_server
from maui_py.daemon.socket_server import MAX_MESSAGE, RequestServer

ME = pwd.getpwuid(os.getuid()).pw_name


@pytest.fixture
def server(tmp_path):
    """A server at tmp_path/s.sock; admins() and woken are the test's to change and read."""
    state = {"admins": {ME}, "woken": 0}

    def woke():
        state["woken"] += 1

    srv = RequestServer(tmp_path / "s.sock", next_id=5, admins=lambda: state["admins"],
                        kinds=lambda: {"sethold", "setres"}, on_request=woke).start()
    srv.test_state = state
    yield srv
    srv.close()


def talk(path, data: bytes, *, timeout: float = 5.0) -> list[dict]:
    """Send `data`, read until the server closes: the lines it sent."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(str(path))
    try:
        s.sendall(data)
    except BrokenPipeError:
        pass
    got = b""
    try:
        while chunk := s.recv(65536):
            got += chunk
    except ConnectionResetError:
        pass
    s.close()
    return [json.loads(line) for line in got.splitlines()]


def message(**kw) -> bytes:
    doc = {"requests": [{"kind": "sethold", "args": {"job": "7"}}], **kw}
    return json.dumps(doc).encode() + b"\n"


def test_the_requester_is_the_peer_uid_whatever_the_message_says(server):
    assert talk(server.path, message(user="root", requester="root", uid=0)) == [{"ids": [5], "requester": ME}]
    (req,) = server.take()
    assert (req.id, req.kind, dict(req.args), req.requester) == (5, "sethold", {"job": "7"}, ME)
    assert server.test_state["woken"] == 1 and server.newest() == 5
    # the name the message gives is an admin's, the kernel's is not: refused, nothing queued
    server.test_state["admins"] = {"someone-else"}
    answer = talk(server.path, message(user="someone-else", requester="someone-else"))
    assert answer == [{"error": f"permission denied: user {ME} may not run sethold "
                                "(only root and ADMIN1 users may)"}]
    assert [r.id for r in server.take()] == [5] and server.test_state["woken"] == 1


@pytest.mark.parametrize("data, error", [
    (b"x" * (MAX_MESSAGE + 10), "request too large"),
    (b"y" * (MAX_MESSAGE + 10) + b"\n", "request too large"),
    (b"{not json\n", "bad request: not JSON"),
    (b"[1, 2]\n", "bad request: not a JSON object"),
    (b'{"requests": []}\n', "bad request: 'requests' must be a list of 1 to"),
    (b'{"requests": [{"kind": "shutdown"}]}\n', "bad request: no request kind 'shutdown'"),
    (b'{"requests": [{"kind": "sethold", "args": [1]}]}\n', "bad request: a request's 'args' must be an object"),
])
def test_a_bad_or_oversized_message_is_refused_and_nothing_queued(server, data, error):
    (answer,) = talk(server.path, data)
    assert answer["error"].startswith(error)
    assert server.take() == [] and server.test_state["woken"] == 0


def test_a_stalled_client_holds_up_nobody_and_is_dropped(server, monkeypatch):
    # Answered while the stalled client still waits out its timeout: half of it is the
    # bound, so a loaded machine cannot fail this (0.4 s of 0.5 s did).
    monkeypatch.setattr(socket_server, "READ_TIMEOUT", 6.0)
    stalled = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stalled.settimeout(60)
    stalled.connect(str(server.path))
    stalled.sendall(b'{"requests": [')                  # and then nothing
    t0 = time.monotonic()
    assert talk(server.path, message()) == [{"ids": [5], "requester": ME}]
    assert time.monotonic() - t0 < 3.0
    got = stalled.recv(4096)
    assert json.loads(got) == {"error": "no request within 6 s"} and stalled.recv(4096) == b""
    stalled.close()


def test_a_request_stays_queued_until_its_outcome_is_committed_and_the_waiter_hears_it(server):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(str(server.path))
    s.sendall(message(wait=True))
    reader = s.makefile("rb")
    assert json.loads(reader.readline()) == {"ids": [5], "requester": ME}
    (req,) = server.take()
    assert server.take() == [req]                       # a failed cycle takes it again
    server.settle([replace(req, status="done", result="user hold placed on job 7", cycle=12)])
    assert json.loads(reader.readline()) == {"id": 5, "status": "done", "result": "user hold placed on job 7",
                                             "cycle": 12}
    assert reader.readline() == b"" and server.take() == []
    s.close()


def test_ids_go_above_what_the_store_recorded(tmp_path):
    floor = {"id": 40}
    srv = RequestServer(tmp_path / "f.sock", next_id=3, admins=lambda: {ME}, kinds=lambda: {"sethold"},
                        floor=lambda: floor["id"]).start()
    try:
        assert talk(srv.path, message())[0]["ids"] == [41]
        assert talk(srv.path, message())[0]["ids"] == [42]
    finally:
        srv.close()
    assert not srv.path.exists()


def test_the_socket_replaces_a_dead_daemons_socket_but_nothing_else(tmp_path):
    path = tmp_path / "d.sock"
    path.write_text("not a socket")
    with pytest.raises(OSError, match="exists and is not a socket"):
        RequestServer(path).start()
    assert path.read_text() == "not a socket"
    path.unlink()
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))
    dead.close()                                        # a socket file nobody listens on
    srv = RequestServer(path, admins=lambda: {ME}, kinds=lambda: {"sethold"}).start()
    try:
        assert oct(os.stat(path).st_mode & 0o777) == oct(socket_server.SOCKET_MODE)
        assert talk(path, message())[0]["requester"] == ME
    finally:
        srv.close()
