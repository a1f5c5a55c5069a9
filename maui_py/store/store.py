"""The state store: one SQLite file (WAL) the daemon writes once per cycle.

    store = Store.open(path)                  # created mode 0640 and migrated when needed
    state = store.load_state()                # what the last committed cycle left
    store.save_cycle(result, snapshot, journal=entries, requests_done=done, ...)

`save_cycle` writes the whole cycle in ONE transaction: the state that must last (per-job
records, kept reservations, the queue policy's dump), the last cycle's view for the
commands (nodes, jobs with report and priority, reservations), the journal entries, the
admin requests it applied and the admin reservations. A kill at any instant leaves the
file at the previous cycle or at this one, never in between. Rows are written only when
their text changed since the last save (the store remembers what it wrote), so a quiet
cycle on a large cluster writes little; the journal is appended to and pruned after
JOURNALKEEPTIME. synchronous=FULL: a committed cycle survives a power cut too.

The commands use StoreReader (read-only). Only mauid writes the store (maui-sim writes
stores of its own): admin requests reach the daemon over its socket, never through the
file, and `requests_done` records them with their outcomes. Anyone who could write the file
could change what the daemon does, so opening a store read-write takes the group and
other write bits off the files (when this process owns them) and warns about a directory
others may write to. A non-empty SQLite file that is not a maui-py store is refused before
anything is written to it.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..model import ClusterSnapshot, Reservation, ReservationKind
from . import schema
from .codec import dump_data, dumps
from .journal import JournalEntry
from .reader import (ADMIN, PRIORITY, RM, STANDING, AdminRequest, StoreDamaged, StoreError, StoreReader, damaged,
                     clean_errors, is_damage, reservation_of)

log = logging.getLogger("maui_py.store")
from .state_rows import state_rows

FILE_MODE = 0o640
MAX_PROBLEMS = 20
"""quick_check stops after this many problems (the first is what mauid says)."""
KEEP_CYCLES = 10_000
"""Rows of the cycles table kept (timings of the recent cycles)."""
IGNORED = "ignored: mauid takes requests from its socket only, never from the store"
"""The result written on a `pending` row found in the store (somebody else wrote it)."""


def _create(path: Path) -> None:
    """Make an empty file with mode 0640 whatever the umask (SQLite gives its -wal and -shm
    files the same mode)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        return
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)


def _only_we_write(path: Path) -> None:
    """Take the group and other write bits off the store and its -wal and -shm files (those
    this process owns; SQLite gives new side files the store's mode), and warn when others
    may write to the directory (they could replace the file)."""
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            st = os.stat(p)
            if st.st_mode & 0o022 and st.st_uid == os.geteuid():
                os.chmod(p, stat.S_IMODE(st.st_mode) & ~0o022)
                log.warning("%s was writable by %s: write access removed (only mauid writes its store)",
                            p, "group and others" if st.st_mode & 0o022 == 0o022 else
                            "its group" if st.st_mode & 0o020 else "others")
        except OSError:
            continue
    try:
        st = os.stat(path.parent)
    except OSError:
        return
    if st.st_mode & 0o020 or (st.st_mode & 0o002 and not st.st_mode & stat.S_ISVTX):
        log.warning("%s is writable by others than its owner: they could replace the store; "
                    "make it writable by mauid's user only", path.parent)


def check_integrity(conn: sqlite3.Connection, path: str | Path) -> None:
    """StoreDamaged (one line: the first problem and how many) unless SQLite's quick_check
    finds the file sound: every page, b-tree and record well formed. Reads only; O(file)."""
    try:
        problems = [str(row[0]) for row in conn.execute(f"PRAGMA quick_check({MAX_PROBLEMS})")]
    except sqlite3.DatabaseError as e:
        if not is_damage(e):
            raise
        raise damaged(path, e) from e
    if problems != ["ok"]:
        problems = [line for p in problems for line in p.splitlines()
                    if line.strip() and not line.startswith("*** ")] or problems   # "*** in database main ***"
        more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        raise StoreDamaged(f"{path}: damaged store: {problems[0][:200]}{more} (restore it from a backup, "
                           "or move it away and let mauid create a new one)")


def connect_readwrite(path: str | Path, *, create: bool = True) -> sqlite3.Connection:
    """A read-write connection to the store at `path` (created mode 0640 when missing and
    `create`), checked (check_integrity) and migrated. StoreError when the file is not
    SQLite, or is an SQLite file of something else that is not empty, StoreDamaged when it
    is damaged (nothing is written to it then)."""
    path = Path(path)
    if not path.exists():
        if not create:
            raise StoreError(f"{path}: no store here")
        _create(path)
    _only_we_write(path)
    conn = None
    try:
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout = 10000")
        other = schema.foreign(conn)
        if other:
            conn.close()
            raise StoreError(f"{path} is {other}, not a maui-py store: refusing to add the store's "
                             "tables to it (give another STOREFILE or --store)")
        check_integrity(conn, path)
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(f"{path}: cannot switch to WAL mode (got {mode})")
        conn.execute("PRAGMA synchronous = FULL")
        schema.migrate(conn)
    except StoreError:
        conn.close()
        raise
    except (sqlite3.Error, schema.SchemaError) as e:
        if conn is not None:
            conn.close()
        if is_damage(e) and "not a database" in str(e):     # a header mauid cannot read
            raise StoreDamaged(f"{path}: not an SQLite database (a damaged store, or another file): restore it "
                               "from a backup, or move it away and let mauid create a new one") from e
        if is_damage(e):
            raise damaged(path, e) from e
        raise StoreError(f"{path}: {e}") from e
    return conn


class _Rows:
    """One table's rows as last written, so that a save writes only what changed.

    keys: the key columns; cols: the other columns. The cache is loaded on first use and
    replaced only after a commit (`plan` returns the new cache, `adopt` installs it)."""

    def __init__(self, table: str, keys: Sequence[str], cols: Sequence[str]):
        self.table, self.keys, self.cols = table, tuple(keys), tuple(cols)
        self.cache: dict[Any, tuple] | None = None

    def _key(self, row: tuple) -> Any:
        return row[0] if len(self.keys) == 1 else tuple(row[: len(self.keys)])

    def write(self, conn: sqlite3.Connection, rows: Mapping[Any, tuple]) -> dict[Any, tuple]:
        """Upsert changed rows, delete missing ones. O(rows)."""
        if self.cache is None:
            sel = ", ".join(f'"{c}"' for c in self.keys + self.cols)
            self.cache = {self._key(r): tuple(r[len(self.keys):])
                          for r in conn.execute(f"SELECT {sel} FROM {self.table}")}
        old = self.cache
        upserts = [k for k, v in rows.items() if old.get(k) != v]
        deletes = [k for k in old if k not in rows]
        if deletes:
            where = " AND ".join(f'"{k}" = ?' for k in self.keys)
            conn.executemany(f"DELETE FROM {self.table} WHERE {where}",
                             [k if isinstance(k, tuple) else (k,) for k in deletes])
        if upserts:
            names = ", ".join(f'"{c}"' for c in self.keys + self.cols)
            marks = ", ".join("?" * (len(self.keys) + len(self.cols)))
            conn.executemany(f"INSERT OR REPLACE INTO {self.table} ({names}) VALUES ({marks})",
                             [(*(k if isinstance(k, tuple) else (k,)), *rows[k]) for k in upserts])
        return dict(rows)


class Store(StoreReader):
    """The daemon's read-write store. Not thread-safe: one writer thread."""

    def __init__(self, conn: sqlite3.Connection, path: str | Path, *, journal_keep: int = 0,
                 clock: Callable[[], float] = time.time):
        super().__init__(conn, path)
        self.journal_keep, self.clock = journal_keep, clock
        self._tables = {
            "job_state": _Rows("job_state", ["job_id"], ["data"]),
            "reservations": _Rows("reservations", ["job_id"], ["start", "end", "data"]),
            "view_node": _Rows("view_node", ["name"], ["pos", "data"]),
            "view_job": _Rows("view_job", ["job_id"], ["pos", "queue_pos", "data", "report", "priority"]),
            "view_reservation": _Rows("view_reservation", ["source", "name"], ["data"]),
            "admin_reservation": _Rows("admin_reservation", ["name"], ["data", "owner", "created"]),
        }
        self._late: dict[str, float] = {}
        self._last_iteration: int | None = None
        self.on_requests_saved: Callable[[list[AdminRequest]], None] | None = None
        """Called after a commit with the requests it recorded (the daemon's socket answers)."""
        self.last_request_id = 0
        """The highest id in the requests table at the last commit (the daemon numbers its
        next requests above it, so a row somebody else put there keeps its place)."""

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True, journal_keep: int = 0,
             clock: Callable[[], float] = time.time) -> "Store":
        """Open (and create, mode 0640, and migrate) the store at `path`.

        journal_keep: seconds journal entries and finished requests are kept (0: forever)."""
        return cls(connect_readwrite(path, create=create), path, journal_keep=journal_keep, clock=clock)

    # ------------------------------------------------------------------ cycle
    def note_apply(self, seconds: float) -> None:
        """How long pushing the last saved cycle's decisions took (written with the next cycle)."""
        self._late["apply_s"] = seconds

    def save_cycle(self, result, snapshot: ClusterSnapshot, *, journal: Iterable[JournalEntry] = (),
                   requests_done: Iterable[AdminRequest] = (),
                   admin_reservations: Mapping[str, tuple[Reservation, str, float]] | None = None,
                   unreadable_kept: Iterable[str] = (),
                   info: Mapping[str, Any] | None = None, timings: Mapping[str, float] | None = None,
                   before_commit: Callable[[], None] | None = None) -> float:
        """Write one cycle in one transaction; returns the seconds it took.

        result: the CycleResult (its state is what lasts); snapshot: what the cycle saw;
        journal: this cycle's entries; requests_done: the requests this cycle applied, with
        their status and result (recorded with done time and cycle; a `pending` row somebody
        else put in the table is marked ignored);
        admin_reservations: name -> (reservation, owner, created) when they changed, None
        to leave them; unreadable_kept: with them, the names of rows a read skipped as
        unreadable (self.unreadable) to keep as they are (the others are deleted: released);
        info: config_path, rm, pid, host; timings: snapshot_s, schedule_s.
        before_commit is called inside the transaction (tests kill the process there).
        On any error the transaction is rolled back and nothing of this cycle is kept."""
        t0 = time.perf_counter()
        wall = self.clock()
        state = result.state
        rows = state_rows(state)
        view_res, view_jobs = self._view_rows(result, snapshot, admin_reservations)
        wanted: dict[str, Mapping[Any, tuple]] = {
            "job_state": {k: (v,) for k, v in rows.jobs.items()},
            "reservations": rows.reservations,
            "view_node": {n.name: (pos, dumps(n)) for pos, n in enumerate(snapshot.nodes)},
            "view_job": view_jobs,
            "view_reservation": view_res,
        }
        if admin_reservations is not None:
            wanted["admin_reservation"] = self._admin_rows(admin_reservations, unreadable_kept)
        cycle_kv = {"iteration": result.iteration, "now": result.now, "wall": wall, **(info or {})}
        kv = {**rows.kv, "cycle": dump_data(cycle_kv)}
        timings = dict(timings or {})
        outcomes = [replace(r, done=wall, cycle=result.iteration) for r in requests_done]
        conn = self.conn
        new_caches: dict[str, dict] = {}
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany("INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)", kv.items())
            for name, want in wanted.items():
                new_caches[name] = self._tables[name].write(conn, want)
            self._append_journal(journal, result.iteration, wall)
            conn.execute("UPDATE requests SET status = 'ignored', result = ?, done = ?, cycle = ? "
                         "WHERE status = 'pending'", (IGNORED, wall, result.iteration))
            conn.executemany(
                "INSERT OR REPLACE INTO requests (id, kind, args, requester, submitted, status, result, "
                "done, cycle) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(r.id, r.kind, dump_data(dict(r.args)), r.requester, r.submitted, r.status, r.result,
                  r.done, r.cycle) for r in outcomes])
            last_request_id = int(conn.execute("SELECT coalesce(max(id), 0) FROM requests").fetchone()[0])
            self._write_cycle_row(result, snapshot, wall, timings)
            self._prune(wall, result.iteration)
            if before_commit is not None:
                before_commit()
            conn.execute("COMMIT")
        except BaseException as e:
            self._rollback()
            for table in self._tables.values():
                table.cache = None          # reload from the file: it is what counts
            if is_damage(e):
                raise damaged(self.path, e) from e
            raise
        for name, cache in new_caches.items():
            self._tables[name].cache = cache
        # the rows of the tables written are this cycle's now (an unreadable one was replaced
        # or deleted); the unreadable admin rows not kept were released
        self.unreadable = {k: v for k, v in self.unreadable.items() if k[0] not in wanted
                           or (k[0] == "admin_reservation" and k[1] in wanted["admin_reservation"])}
        self._last_iteration = result.iteration
        self.last_request_id = last_request_id
        seconds = time.perf_counter() - t0
        self._late = {"save_s": seconds}
        if outcomes and self.on_requests_saved is not None:
            try:
                self.on_requests_saved(outcomes)
            except Exception:               # the cycle is committed; answering is best effort
                log.exception("could not report the outcomes of %d admin requests", len(outcomes))
        return seconds

    def _view_rows(self, result, snapshot: ClusterSnapshot,
                   admin_reservations: Mapping[str, Any] | None) -> tuple[dict, dict]:
        """The rows of view_reservation and view_job for this cycle."""
        users = {j.id: j.user for j in snapshot.jobs}
        admin_names = set(admin_reservations) if admin_reservations is not None else \
            {name for name, in self.conn.execute("SELECT name FROM admin_reservation")}
        view_res: dict[tuple[str, str], tuple] = {}
        for jid, kr in result.state.reservations.items():
            view_res[(PRIORITY, jid)] = (dumps(reservation_of(kr, users.get(jid, ""))),)
        placed = {r.name: r for r in result.held if r.kind is not ReservationKind.JOB}
        for r in snapshot.reservations:
            if r.name not in placed:
                placed[r.name] = r
        for name, r in placed.items():
            source = (ADMIN if name in admin_names else
                      STANDING if r.kind is ReservationKind.STANDING else RM)
            view_res[(source, name)] = (dumps(r),)
        queue_pos = {jid: k for k, jid in enumerate(result.order)}
        view_jobs = {}
        for pos, j in enumerate(snapshot.jobs):
            rep, pri = result.reports.get(j.id), result.priorities.get(j.id)
            view_jobs[j.id] = (pos, queue_pos.get(j.id), dumps(j),
                               None if rep is None else dumps(rep), None if pri is None else dumps(pri))
        return view_res, view_jobs

    def _admin_rows(self, admin_reservations: Mapping[str, tuple[Reservation, str, float]],
                    unreadable_kept: Iterable[str]) -> dict[str, tuple]:
        """The admin_reservation rows: the reservations, and as they are the rows a read
        skipped as unreadable that are still kept (not released)."""
        out = {name: (dumps(r), owner, created) for name, (r, owner, created) in admin_reservations.items()}
        for name in set(unreadable_kept) & self.unreadable_names("admin_reservation"):
            row = self.conn.execute("SELECT data, owner, created FROM admin_reservation WHERE name = ?",
                                    (name,)).fetchone()
            if row is not None:
                out[name] = tuple(row)
        return out

    def _append_journal(self, entries: Iterable[JournalEntry], cycle: int | None, wall: float) -> None:
        self.conn.executemany(
            "INSERT INTO journal (cycle, at, event, job_id, reason, detail) VALUES (?, ?, ?, ?, ?, ?)",
            [(e.cycle if e.cycle is not None else cycle, e.at if e.at is not None else wall, e.event,
              e.job_id, e.reason, dump_data(dict(e.detail))) for e in entries])

    def _write_cycle_row(self, result, snapshot: ClusterSnapshot, wall: float, timings: dict) -> None:
        running = sum(1 for j in snapshot.jobs if j.state.active)
        starts = sum(1 for _ in result.starts())
        self.conn.execute(
            "INSERT OR REPLACE INTO cycles (iteration, now, wall, jobs, running, starts, reservations, "
            "snapshot_s, schedule_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (result.iteration, result.now, wall, len(snapshot.jobs), running, starts,
             len(result.state.reservations), timings.get("snapshot_s"), timings.get("schedule_s")))
        if self._last_iteration is not None and self._late:
            self.conn.execute("UPDATE cycles SET save_s = coalesce(?, save_s), apply_s = coalesce(?, apply_s) "
                              "WHERE iteration = ?", (self._late.get("save_s"), self._late.get("apply_s"),
                                                      self._last_iteration))

    def _prune(self, wall: float, iteration: int) -> None:
        self.conn.execute("DELETE FROM cycles WHERE iteration <= ?", (iteration - KEEP_CYCLES,))
        if self.journal_keep > 0:
            cutoff = wall - self.journal_keep
            self.conn.execute("DELETE FROM journal WHERE at < ?", (cutoff,))
            self.conn.execute("DELETE FROM requests WHERE status != 'pending' AND done < ?", (cutoff,))

    # ----------------------------------------------------- outside the cycle
    def journal_event(self, event: str, reason: str = "", *, job_id: str = "",
                      detail: Mapping[str, Any] | None = None, cycle: int | None = None) -> None:
        """One daemon event (start, stop, reload, resource manager trouble) in its own transaction."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            self._append_journal([JournalEntry(event, job_id, reason, dict(detail or {}), cycle)],
                                 cycle, self.clock())
            self.conn.execute("COMMIT")
        except BaseException as e:
            self._rollback()
            if is_damage(e):
                raise damaged(self.path, e) from e
            raise

    def _rollback(self) -> None:
        """Undo the open transaction, if any; a file too damaged to roll back raises nothing
        here (what failed before is what counts)."""
        try:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    def close(self, *, rollback_mode: bool = False) -> None:
        """rollback_mode (the daemon, when it stops): leave the file in rollback-journal
        mode. WAL needs a writable -shm file, so a reader without write access to the
        directory could not open a WAL file whose writer has gone; the daemon switches back
        to WAL when it opens the store again. Skipped, without waiting, while any other
        connection is open."""
        if rollback_mode:
            try:
                self.conn.execute("PRAGMA busy_timeout = 0")
                self.conn.execute("PRAGMA journal_mode = DELETE")
            except sqlite3.Error:
                pass
        super().close()

    @clean_errors
    def next_request_id(self) -> int:
        """The id the daemon gives the first request it receives (after every recorded one)."""
        self.last_request_id = int(self.conn.execute("SELECT coalesce(max(id), 0) FROM requests").fetchone()[0])
        return self.last_request_id + 1
