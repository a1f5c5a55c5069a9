"""Who may ask mauid for an admin action: a real non-admin user tries every way in (each
admin command, the commands with a private configuration that calls them ADMIN1, a request
row forged into a store they were given write access to, signed root, and a message written
straight to the daemon's socket claiming to be root); none takes effect, and root's own
requests still do.

The daemon is a real mauid (tests/security/standin_mauid.py: loop, store, socket) on a
stand-in resource manager, in its own process; the non-admin is a child of this process
that drops to the test user with setgid/setuid before it acts.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import pytest

from maui_py.daemon.paths import socket_path
from maui_py.store import Store, StoreReader

from tests.cli.test_admin_commands import run_to

ROOT = Path(__file__).resolve().parents[2]
THIRTY_DAYS = 30 * 86400


def config(admins: str) -> str:
    return (f"RMCFG[standin]  TYPE=SLURM TIMEOUT=5\nRMPOLLINTERVAL  00:00:01\nLOGDIR          log\n"
            f"LOGFILE         mauid.log\nLOGLEVEL        4\nADMIN1          {admins}\n")


def wait_until(cond, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def iteration(db: Path) -> int:
    try:
        with StoreReader.open(db) as r:
            info = r.cycle_info()
        return info.iteration if info else 0
    except Exception:                       # not there yet
        return 0


def as_user(user, attack) -> dict:
    """Run `attack()` in a child that has become `user` (no supplementary groups); its
    JSON-able result, or AssertionError with the child's traceback."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                                         # the child: never returns
        code = 1
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
            assert os.getuid() == user.pw_uid and os.geteuid() == user.pw_uid
            payload = {"ok": attack()}
            code = 0
        except BaseException:
            payload = {"error": traceback.format_exc()}
        try:
            os.write(w, json.dumps(payload).encode())
        finally:
            os._exit(code)
    os.close(w)
    chunks = []
    while chunk := os.read(r, 65536):
        chunks.append(chunk)
    os.close(r)
    _pid, status = os.waitpid(pid, 0)
    payload = json.loads(b"".join(chunks) or b"{}")
    if "error" in payload or os.waitstatus_to_exitcode(status) != 0:
        raise AssertionError(f"the child acting as {user.pw_name} failed:\n{payload.get('error')}")
    return payload["ok"]


@pytest.fixture
def site(nonadmin):
    """A directory the non-admin can reach, a store readable by their group (as the docs
    say: give the group read access), and a running mauid (root) on it."""
    home = Path(tempfile.mkdtemp(prefix="maui-sec-", dir="/tmp"))
    os.chmod(home, 0o755)
    (home / "maui.cfg").write_text(config("root"))
    db = home / "maui-py.db"
    Store.open(db).close(rollback_mode=True)
    os.chown(db, 0, nonadmin.pw_gid)
    os.chmod(db, 0o660)                     # what the old docs advised: the group may write
    log = open(home / "mauid.stderr", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "tests.security.standin_mauid", str(home / "maui.cfg")],
                            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: proc.poll() is not None or (socket_path(db).exists() and iteration(db) >= 1),
                   20, "mauid's first cycle")
        assert proc.poll() is None, (home / "mauid.stderr").read_text()
        yield home, db, nonadmin
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()
        subprocess.run(["rm", "-rf", "--", str(home)], check=False)


def test_a_non_admin_gets_no_admin_action_by_any_path_and_root_still_does(site):
    home, db, user = site
    assert os.stat(db).st_mode & 0o777 == 0o640          # mauid took the group's write access away
    # root (an admin) makes a reservation the non-admin will try to release
    rc, out, err = run_to("setres", "-n", "maint", "-d", "2:00:00", "n1", "--wait", "--timeout", "20",
                          "--store", str(db))
    assert rc == 0 and "reservation 'maint' created" in out, err
    # a private configuration that makes the non-admin ADMIN1 (passes the command's own check)
    private = home / "private.cfg"
    private.write_text(config(f"root {user.pw_name}"))
    os.chmod(private, 0o644)
    # the old advice, to the letter: the admins' group may write the store (and its directory)
    os.chmod(home, 0o777)
    for f in home.glob("maui-py.db*"):
        if f.is_file():
            os.chmod(f, 0o666)
    before = iteration(db)
    end = int(time.time()) + THIRTY_DAYS
    store, sock = str(db), str(socket_path(db))

    def attack() -> dict:
        os.environ["MAUI_PY_USER"] = "root"              # counts for root only
        commands = [("setres", "-n", "pwned", "-d", "30:00:00:00", "ALL"), ("releaseres", "maint"),
                    ("sethold", "3"), ("releasehold", "-a", "3"), ("setspri", "1000", "4"), ("runjob", "5")]
        got = {"plain": [], "private": []}
        for argv in commands:
            got["plain"].append(run_to(*argv, "--store", store))
            got["private"].append(run_to(*argv, "--wait", "--timeout", "5", "--config", str(private),
                                         "--store", store))
        # a request row signed root, straight into the store (the insert must succeed)
        conn = sqlite3.connect(store, isolation_level=None, timeout=10)
        conn.execute("INSERT INTO requests (kind, args, requester, submitted) VALUES (?, ?, 'root', ?)",
                     ("setres", json.dumps({"all_nodes": True, "end": end, "name": "forged"}), time.time()))
        conn.execute("INSERT INTO requests (kind, args, requester, submitted) VALUES (?, ?, 'root', ?)",
                     ("setspri", json.dumps({"job": "4", "priority": 1000}), time.time()))
        got["forged_rows"] = conn.execute("SELECT count(*) FROM requests WHERE status = 'pending'").fetchone()[0]
        conn.close()
        # the socket, with every way to say "I am root" a message could carry
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(sock)
        s.sendall(json.dumps({"requests": [{"kind": "setres", "args": {"all_nodes": True, "end": end,
                                                                       "name": "raw"}}],
                              "wait": False, "user": "root", "requester": "root", "uid": 0}).encode() + b"\n")
        answer = b""
        while chunk := s.recv(4096):
            answer += chunk
        s.close()
        got["socket"] = answer.decode()
        return got

    got = as_user(user, attack)
    name = user.pw_name
    for rc, out, err in got["plain"]:                      # refused by the command itself
        assert (rc, out) == (1, "") and f"permission denied: user {name} may not run" in err
    for rc, out, err in got["private"]:                    # refused by mauid, from the socket's uid
        assert (rc, out) == (1, ""), err
        assert f"permission denied: user {name} may not run" in err and "queued" not in err
    assert got["forged_rows"] == 2                         # the forged rows were really written
    answer = json.loads(got["socket"])
    assert answer == {"error": f"permission denied: user {name} may not run setres "
                               "(only root and ADMIN1 users may)"}

    wait_until(lambda: iteration(db) >= before + 3, 20, "three more cycles")     # RMPOLLINTERVAL 1 s
    # root's requests still work after all that
    rc, out, err = run_to("setspri", "--wait", "--timeout", "20", "7", "6", "--store", store)
    assert rc == 0 and "applied at cycle" in out, err
    with StoreReader.open(db) as r:
        reservations = r.admin_reservations()
        state = r.load_state()
        reqs = r.requests()
        journal = r.journal()
    assert set(reservations) == {"maint"} and reservations["maint"][1] == "root"
    assert state.system_priority == {"6": 7}
    assert state.batch_holds == {} and state.run_now == set()
    assert not [e for e in journal if e.event in ("hold", "release")]
    assert [(q.kind, q.requester, q.status) for q in reqs if q.status != "ignored"] == [
        ("setres", "root", "done"), ("setspri", "root", "done")]
    assert [(q.kind, q.requester) for q in reqs if q.status == "ignored"] == [("setres", "root"), ("setspri", "root")]
    assert [e.detail["requester"] for e in journal if e.event == "request"] == ["root", "root"]
    log = (home / "log" / "mauid.log").read_text()
    assert log.count(f"request socket: {name} (uid {user.pw_uid}") == 7     # 6 commands + the raw message
    assert os.stat(home / "log" / "mauid.log").st_mode & 0o777 == 0o640
