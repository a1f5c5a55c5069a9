"""A damaged store (issue 34, item 5): each page of a small store zeroed, then filled with
random bytes (two runs per page), and `mauid --once` started on it. Every run either
refuses in one line and exits 2 (the file left byte for byte as it was: nothing written
to a damaged store) or runs correctly, after which the store reads whole and holds all it
held (journal, requests, admin reservation). Never a traceback, never exit 1 (which the
systemd unit would restart in a loop)."""

from __future__ import annotations

import json
import random
import shutil
import socket
import sqlite3
from pathlib import Path

import pytest

from maui_py.daemon.loop import Daemon
from maui_py.daemon.main import main as mauid_main
from maui_py.rm import registry
from maui_py.store import StoreReader
from tests.cli.test_admin_commands import CONFIG, FakeRM

PAGE_CHANGES = ("zero", "random")


def store_contents(db: Path) -> dict:
    """What must survive: every journal entry and request, the admin reservations, and
    the last cycle (read whole: a row that cannot be read is a failure here)."""
    with StoreReader.open(db) as r:
        last = r.last_cycle()
        state = r.load_state()
        out = {"journal": {(e.id, e.event, e.job_id) for e in r.journal()},
               "requests": {(q.id, q.kind, q.status) for q in r.requests()},
               "admin": set(r.admin_reservations()), "iteration": last.info.iteration,
               "jobs": len(last.snapshot.jobs), "unreadable": dict(r.unreadable),
               "state_iteration": state.iteration}
    return out


@pytest.fixture(scope="module")
def small_store(tmp_path_factory) -> tuple[Path, bytes, dict]:
    """(home, the store's bytes, its contents) after two cycles and a setres."""
    home = tmp_path_factory.mktemp("damaged")
    (home / "maui.cfg").write_text(CONFIG)
    d = Daemon(home / "maui.cfg", adapter_factory=lambda cfg, name: FakeRM(), stderr=False, request_poll=0)
    d.start()
    try:
        assert d.cycle()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(str(d.inbox.path))
        s.sendall(json.dumps({"requests": [{"kind": "setres", "args": {
            "name": "maint", "end": 4_000_000_000, "hosts": ["n1"]}}]}).encode() + b"\n")
        assert "ids" in json.loads(s.makefile().readline())
        s.close()
        assert d.cycle()
    finally:
        d.close()
    db = home / "maui-py.db"
    contents = store_contents(db)
    assert contents["admin"] == {"maint"} and contents["requests"] == {(1, "setres", "done")}
    return home, db.read_bytes(), contents


def damage(data: bytes, page: int, change: str, size: int) -> bytes:
    out = bytearray(data)
    rnd = random.Random(page)
    out[page * size:(page + 1) * size] = bytes(size) if change == "zero" else rnd.randbytes(size)
    return bytes(out)


def test_every_damaged_page_gives_one_line_and_exit_2_or_a_correct_run(small_store, tmp_path, capsys, monkeypatch):
    home, original, before = small_store
    size = sqlite3.connect(":memory:").execute("PRAGMA page_size").fetchone()[0]
    pages = len(original) // size
    assert 20 <= pages <= 40, pages                          # a small store: every page is tried
    monkeypatch.setattr(registry, "create", lambda cfg, name: FakeRM())
    outcomes: dict[str, int] = {}
    for change in PAGE_CHANGES:
        for page in range(pages):
            run = tmp_path / f"{change}{page}"
            run.mkdir()
            shutil.copy(home / "maui.cfg", run / "maui.cfg")
            db = run / "maui-py.db"
            broken = damage(original, page, change, size)
            db.write_bytes(broken)
            what = f"{change} page {page}"
            try:
                rc = mauid_main(["-c", str(run / "maui.cfg"), "--once"])
            except BaseException as e:                       # a traceback for the operator
                pytest.fail(f"{what}: mauid raised {type(e).__name__}: {e}")
            err = capsys.readouterr().err
            assert "Traceback" not in err, (what, err)
            said = [line for line in err.splitlines() if line.startswith("mauid: ")]
            if rc == 2:
                assert len(said) == 1, (what, err)
                assert any(w in said[0] for w in ("damaged store", "not an SQLite database")), (what, said)
                assert str(db) in said[0], (what, said)
                assert db.read_bytes() == broken, f"{what}: mauid wrote to a damaged store"
            else:
                assert (rc, said) == (0, []), (what, rc, err)
                after = store_contents(db)
                assert after["unreadable"] == {}, (what, after["unreadable"])
                assert before["journal"] <= after["journal"] and before["requests"] <= after["requests"], what
                assert after["admin"] == before["admin"] and after["iteration"] == before["iteration"] + 1, what
            outcomes[what] = rc
            shutil.rmtree(run)
    assert len(outcomes) == 2 * pages
    assert sorted(set(outcomes.values())) in ([2], [0, 2])
    print(f"{len(outcomes)} runs: {sum(v == 2 for v in outcomes.values())} refused (exit 2), "
          f"{sum(v == 0 for v in outcomes.values())} ran correctly")


def test_damage_found_while_running_stops_mauid_with_one_line_and_exit_2(small_store, tmp_path, capsys,
                                                                          monkeypatch):
    """SQLite reports the file malformed in the middle of a cycle's save (what a page damaged
    under a running mauid gives): the save is rolled back, nothing is pushed, and mauid
    stops with exit 2 (not 1, which systemd would restart) instead of retrying forever."""
    home, original, _before = small_store
    shutil.copy(home / "maui.cfg", tmp_path / "maui.cfg")
    db = tmp_path / "maui-py.db"
    db.write_bytes(original)
    rm = FakeRM()
    monkeypatch.setattr(registry, "create", lambda cfg, name: rm)
    from maui_py.store.store import Store

    def malformed(*_a, **_k):
        raise sqlite3.DatabaseError("database disk image is malformed")
    monkeypatch.setattr(Store, "_write_cycle_row", malformed)
    assert mauid_main(["-c", str(tmp_path / "maui.cfg"), "--once"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    said = [line for line in err.splitlines() if line.startswith("mauid: ")]
    assert said == [f"mauid: stopped after 1 cycles: {db}: damaged store: database disk image is malformed "
                    "(restore it or let mauid create a new one)"]
    assert rm.applied == []                                  # nothing pushed from an unsaved cycle
    with StoreReader.open(db) as r:
        events = [e.event for e in r.journal()]
    assert events[-1] == "daemon-start"                      # no stop journaled into a damaged file
    unit = (Path(__file__).resolve().parents[2] / "maui_py" / "daemon" / "data" / "mauid.service").read_text()
    (line,) = [x for x in unit.splitlines() if x.startswith("RestartPreventExitStatus=")]
    assert {"2", "3"} <= set(line.split("=", 1)[1].split())   # systemd does not loop on it
