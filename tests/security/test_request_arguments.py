"""One admin request cannot poison the store (issue 34, item 4): every argument of every
request kind is checked (type, bounds) before anything is queued or stored, by mauid on its
socket and again before the handler runs, and by the command before it sends; and a store
that already holds a row that cannot be read (an older mauid stored `"name": 7`) stays
readable by every command, which names the row and skips it, while mauid starts on it and
releaseres removes it."""

from __future__ import annotations

import json
import sqlite3

import pytest

from maui_py.daemon import admin, handlers, request_args  # noqa: F401  (handlers registers the kinds)
from maui_py.daemon.loop import Daemon
from maui_py.daemon.socket_server import RequestServer
from maui_py.store import StoreReader
from maui_py.store.reader import AdminRequest

from tests.cli.test_admin_commands import FakeRM, cmd, cycle, daemon, home, requests  # noqa: F401  (fixtures)

from .test_request_socket import ME, talk

END = 1_900_000_000
GOOD = {"setres": {"name": "maint", "start": 0, "end": END, "hosts": ["n1"], "users": ["frank"]},
        "releaseres": {"names": ["maint"]}, "sethold": {"job": "3", "hold": "user"},
        "releasehold": {"job": "3", "hold": "all"}, "setspri": {"job": "3", "priority": 7, "relative": False},
        "runjob": {"job": "3"}}
BAD = [
    ("setres", {"name": 7, "end": END, "all_nodes": True}, "'name' must be a name"),
    ("setres", {"end": END, "hosts": ["n1"], "users": [1]}, "'users[]' must be a name"),
    ("setres", {"end": END, "users": "frank", "all_nodes": True}, "'users' must be a list"),
    ("setres", {"end": END, "tasks": 10 ** 17}, "'tasks' must be an integer from 0 to 10000000"),
    ("setres", {"end": 1e300, "all_nodes": True}, "'end' must be an integer from 0 to 253402300799"),
    ("setres", {"end": 10 ** 26, "all_nodes": True}, "'end' must be an integer"),
    ("setres", {"end": True, "all_nodes": True}, "'end' must be an integer"),
    ("setres", {"end": END, "all_nodes": "yes"}, "'all_nodes' must be true or false"),
    ("setres", {"end": END, "hosts": ["n" * 300]}, "'hosts[]' must be a name of 1 to 255"),
    ("setres", {"end": END, "name": "a\nb", "all_nodes": True}, "'name' must be a name"),
    ("setres", {"end": END, "all_nodes": True, "owner": "root"}, "no argument 'owner'"),
    ("setres", {"all_nodes": True}, "'end' is missing"),
    ("releaseres", {"names": "maint"}, "'names' must be a list of 1 to"),
    ("releaseres", {"names": [{"a": 1}]}, "'names[]' must be a name"),
    ("sethold", {"job": 7}, "'job' must be a name"),
    ("sethold", {"job": "3", "hold": "everything"}, "'hold' must be one of user, system, batch"),
    ("setspri", {"job": "3", "priority": "5"}, "'priority' must be an integer from 0 to 1000"),
    ("setspri", {"job": "3", "priority": 5, "relative": 1}, "'relative' must be true or false"),
    ("runjob", {"job": ["3"]}, "'job' must be a name"),
]


@pytest.fixture
def server(tmp_path):
    srv = RequestServer(tmp_path / "s.sock", admins=lambda: {ME}, kinds=lambda: set(GOOD),
                        check=request_args.check).start()
    yield srv
    srv.close()


def line(kind: str, args: dict) -> bytes:
    return json.dumps({"requests": [{"kind": kind, "args": args}]}).encode() + b"\n"


@pytest.mark.parametrize("kind, args, error", BAD)
def test_mauid_refuses_bad_arguments_before_queueing_anything(server, kind, args, error):
    (answer,) = talk(server.path, line(kind, args))
    assert answer["error"].startswith(f"bad request: {kind}: {error}"), answer
    assert server.take() == []


def test_good_arguments_of_every_kind_are_queued(server):
    for kind, args in GOOD.items():
        assert "ids" in talk(server.path, line(kind, args))[0]
    assert [r.kind for r in server.take()] == list(GOOD)


@pytest.mark.parametrize("kind, args, error", BAD)
def test_a_handler_never_runs_on_bad_arguments(kind, args, error):
    """A request that reached the daemon another way (or an older queue) fails, stores nothing."""
    ctx = admin.AdminContext(None, None, None, {}, 0.0)
    (done,), _entries = admin.apply_requests([AdminRequest(1, kind, args, "root", 0.0)], ctx)
    assert done.status == "failed" and error in done.result
    assert ctx.admin_reservations == {} and not ctx.reservations_changed and not ctx.decisions


def test_the_command_refuses_an_unbounded_time_before_sending(home, daemon, capsys):
    cycle(daemon)
    rc, out, err = cmd(capsys, "setres", "-e", "99999999999999999999999999", "n1", store=home / "maui-py.db")
    assert (rc, out) == (2, "") and err == ("ERROR:    setres: 'end' must be an integer from 0 to "
                                            "253402300799\n")
    assert daemon.inbox.take() == []


POISONS = {
    "name": ("7", lambda d: d.replace('"name":"maint"', '"name":7')),
    "users": ("u1", lambda d: d.replace('"name":"maint"', '"name":"u1"').replace('"users":["frank"]', '"users":[1]')),
}
READERS = [("showq",), ("showres",), ("showbf",), ("checkjob", "3"), ("diagnose", "-r"), ("diagnose", "-p")]


def poison(db, key: str, change) -> None:
    """What an older mauid stored for a setres that named the reservation 7 (or gave users
    [1]): the admin row and the cycle's view of it."""
    conn = sqlite3.connect(db)
    (data, owner, created), = conn.execute("SELECT data, owner, created FROM admin_reservation WHERE name = 'maint'")
    conn.execute("INSERT INTO admin_reservation VALUES (?, ?, ?, ?)", (key, change(data), owner, created))
    (view,), = conn.execute("SELECT data FROM view_reservation WHERE name = 'maint'")
    conn.execute("INSERT INTO view_reservation VALUES ('admin', ?, ?)", (key, change(view)))
    conn.commit()
    conn.close()


@pytest.mark.parametrize("poisoned", sorted(POISONS))
def test_an_unreadable_row_is_named_and_skipped_by_every_command_and_mauid_releases_it(
        home, daemon, capsys, monkeypatch, poisoned):
    db = home / "maui-py.db"
    cycle(daemon)
    assert cmd(capsys, "setres", "-n", "maint", "-d", "1:00:00", "-u", "frank", "n1", store=db)[0] == 0
    cycle(daemon)
    daemon.close()
    key, change = POISONS[poisoned]
    poison(db, key, change)
    for argv in READERS:
        rc, out, err = cmd(capsys, *argv, store=db)
        assert rc == 0 and out and "Traceback" not in err, (argv, err)
        assert f"{argv[0]}: warning: {db}: " in err and f"row '{key}' cannot be read" in err, (argv, err)
    # mauid starts on it, keeps it (named in its log) until releaseres names it
    d = Daemon(home / "maui.cfg", adapter_factory=lambda cfg, name: FakeRM(), stderr=False, request_poll=0)
    d.start()
    try:
        assert d.unreadable_admin == {key} and set(d.admin_reservations) == {"maint"}
        cycle(d)
        with StoreReader.open(db) as r:
            assert set(r.admin_reservations()) == {"maint"} and r.unreadable_names("admin_reservation") == {key}
        rc, out, err = cmd(capsys, "releaseres", key, store=db)
        assert rc == 0 and f"request 2 queued: releaseres release {key}" in out, err
        cycle(d)
    finally:
        d.close()
    assert [(r.kind, r.status, r.result) for r in requests(home)][-1] == (
        "releaseres", "done", f"released User reservation '{key}'")
    with StoreReader.open(db) as r:
        assert set(r.admin_reservations()) == {"maint"} and r.unreadable == {}
        assert [x.name for x in r.last_cycle().reservations["admin"]] == ["maint"]
    for argv in READERS:
        rc, _out, err = cmd(capsys, *argv, store=db)
        assert rc == 0 and "warning" not in err, (argv, err)
