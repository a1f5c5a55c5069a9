"""The daemon's files: `maui-sim --store` never touches a daemon's store (or any file that is
not a store maui-sim wrote), mauid never adds its tables to somebody else's SQLite file, the
log is created 0640 like the store, and a store others may write loses that access."""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
from pathlib import Path

import pytest

from maui_py.cli.main import maui_sim_main
from maui_py.daemon import logsetup
from maui_py.daemon.lock import DaemonLock, lock_path
from maui_py.daemon.loop import Daemon
from maui_py.daemon.main import main as mauid_main
from maui_py.store import Store, StoreError, StoreReader
from tests.cli.test_admin_commands import CONFIG, FakeRM

SIM = ["--synthetic", "30", "-q"]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.delenv("MAUIHOMEDIR", raising=False)
    (tmp_path / "maui.cfg").write_text(CONFIG)
    return tmp_path


def refused(capsys, db: Path) -> str:
    """maui-sim --store db: exit 2, one line on stderr, the file byte for byte as it was."""
    before = digest(db)
    assert maui_sim_main([*SIM, "--store", str(db)]) == 2
    err = capsys.readouterr().err
    assert digest(db) == before and err.count("\n") == 1 and err.startswith("maui-sim: ")
    return err


def test_maui_sim_leaves_a_daemons_store_alone_running_or_not(home, capsys):
    d = Daemon(home / "maui.cfg", adapter_factory=lambda cfg, name: FakeRM(), stderr=False)
    d.start()
    try:
        assert d.cycle()
        db = home / "maui-py.db"
        assert "holds this store's lock" in refused(capsys, db)
    finally:
        d.close()
    assert not Path(f"{db}.sock").exists()
    assert "is a mauid store, not one maui-sim wrote" in refused(capsys, db)
    with StoreReader.open(db) as r:
        assert r.cycle_info().rm == "fake"


def test_maui_sim_leaves_a_locked_path_and_foreign_files_alone(tmp_path, capsys):
    sim = tmp_path / "sim.db"
    assert maui_sim_main([*SIM, "--store", str(sim)]) == 0
    assert maui_sim_main([*SIM, "--seed", "2", "--store", str(sim)]) == 0      # its own store: replaced
    capsys.readouterr()
    lock = DaemonLock(lock_path(sim)).acquire()                              # a mauid starting on it
    try:
        assert "holds this store's lock" in refused(capsys, sim)
    finally:
        lock.release()
    other = tmp_path / "app.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE accounts (id INTEGER PRIMARY KEY, owner TEXT)")
    conn.execute("INSERT INTO accounts (owner) VALUES ('alice')")
    conn.commit()
    conn.close()
    assert "not a maui-py store" in refused(capsys, other)
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all\n" * 100)
    assert "not touching it" in refused(capsys, text)
    assert not list(tmp_path.glob(".*.tmp*"))


def test_mauid_refuses_to_add_its_tables_to_a_foreign_sqlite_file(home, capsys):
    other = home / "app.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE kv (k TEXT, v TEXT)")            # even a table of the same name
    conn.commit()
    conn.close()
    before = digest(other)
    assert mauid_main(["-c", str(home / "maui.cfg"), "--store", str(other), "--once"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mauid: cannot start: ") and "not a maui-py store" in err and err.count("\n") == 1
    assert digest(other) == before
    with pytest.raises(StoreError, match="refusing to add the store's tables"):
        Store.open(other)
    assert digest(other) == before and not Path(f"{other}.sock").exists()


def test_the_log_file_is_created_0640_also_after_rotation(tmp_path, monkeypatch):
    old = os.umask(0o002)
    try:
        path = tmp_path / "log" / "maui.log"
        logsetup.configure(path, 3, stderr=False)
        log = logging.getLogger("maui_py.test")
        log.warning("one")
        assert os.stat(path).st_mode & 0o777 == 0o640
        path.rename(tmp_path / "log" / "maui.log.1")             # logrotate without copytruncate
        log.warning("two")
        assert os.stat(path).st_mode & 0o777 == 0o640 and "two" in path.read_text()
    finally:
        logsetup.unconfigure()
        os.umask(old)


def test_a_store_others_may_write_loses_that_access(tmp_path):
    db = tmp_path / "s.db"
    Store.open(db).close()
    os.chmod(db, 0o666)
    Store.open(db).close()
    assert os.stat(db).st_mode & 0o777 == 0o644
    os.chmod(db, 0o660)
    store = Store.open(db)
    assert all(os.stat(p).st_mode & 0o022 == 0 for p in tmp_path.glob("s.db*") if p.is_file())
    store.close()
