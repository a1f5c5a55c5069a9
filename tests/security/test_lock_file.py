"""The store's lock file (issue 34, item 3): nobody but the daemon's user can open it, so
nobody else can hold its flock and keep mauid from starting; it is made 0600 without
following a link, and the pid the commands show is in `<store>.pid`, readable by all."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import tempfile
from pathlib import Path

import pytest

from maui_py.cli.common import daemon_status
from maui_py.daemon.lock import DaemonLock, lock_path, pid_path

from .users import finish, fork_as


@pytest.fixture
def open_dir():
    """A directory every user can enter and read (as a site's spool directory)."""
    home = Path(tempfile.mkdtemp(prefix="maui-lock-", dir="/tmp"))
    os.chmod(home, 0o755)
    yield home
    for p in sorted(home.iterdir(), reverse=True):
        p.unlink()
    home.rmdir()


def try_to_hold(lock: str, store: str, go: int, out: int) -> None:
    """The other user's side: open the lock file and flock it; report what happened and
    what the commands would say about the daemon."""
    os.read(go, 1)
    got = {"status": daemon_status(Path(store))}
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError as e:
        got["open"] = errno.errorcode[e.errno]
    else:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            got["open"] = "held"
        except OSError as e:
            got["open"] = errno.errorcode[e.errno]
        os.close(fd)
    os.write(out, json.dumps(got).encode())


def test_another_user_cannot_open_the_lock_nor_hold_it(open_dir, nonadmin):
    store = open_dir / "maui-py.db"
    lock = lock_path(store)
    lock.write_text("")
    os.chmod(lock, 0o644)                               # what mauid made before
    pid, go, out = fork_as(nonadmin, try_to_hold, str(lock), str(store))
    held = DaemonLock(lock).acquire()
    try:
        assert os.stat(lock).st_mode & 0o777 == 0o600
        assert os.stat(pid_path(store)).st_mode & 0o777 == 0o644
        assert pid_path(store).read_text() == f"{os.getpid()}\n"
        os.write(go, b"g")
        got = json.loads(out.read())
    finally:
        os.close(go)
        out.close()
        code = finish(pid)
        held.release()
    assert code == 0
    assert got == {"open": "EACCES", "status": f"mauid running, pid {os.getpid()}"}
    assert not pid_path(store).exists()                 # it stopped: the commands say so
    assert daemon_status(store) == "mauid not running"
    DaemonLock(lock).acquire().release()                # and the next start takes it


def test_the_lock_file_is_created_0600_and_never_through_a_link(tmp_path):
    old = os.umask(0)
    try:
        store = tmp_path / "s.db"
        DaemonLock(lock_path(store)).acquire().release()
        assert os.stat(lock_path(store)).st_mode & 0o777 == 0o600
    finally:
        os.umask(old)
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    os.chmod(victim, 0o644)
    other = tmp_path / "o.db"
    os.symlink(victim, lock_path(other))
    with pytest.raises(OSError, match="is a symbolic link"):
        DaemonLock(lock_path(other)).acquire()
    assert victim.read_text() == "precious\n" and os.stat(victim).st_mode & 0o777 == 0o644
    os.symlink(victim, pid_path(store))                 # a link planted as the pid file is replaced
    DaemonLock(lock_path(store)).acquire().release()
    assert victim.read_text() == "precious\n" and not pid_path(store).exists()
