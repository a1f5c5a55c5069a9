"""The store's tables and how a file of an older version is brought up to date.

The schema version is SQLite's `PRAGMA user_version`. MIGRATIONS[k] takes a file from
version k to k + 1; a new file is made by running all of them in order, so the upgrade
path is exercised every time a store is created. A file newer than this code is refused
rather than guessed at. Only the daemon migrates; readers open read-only and refuse a
file whose version they do not know.

Tables (JSON columns hold maui_py.store.codec text):
  kv                 key -> JSON value: iteration, last_now, queue_policy {name, data},
                     cycle {iteration, now, wall, config_path, rm, pid, host}
  job_state          per job, what SchedulerState keeps about it (queue time, bypass,
                     start count, defer record, batch hold, pending start, failed start)
  reservations       kept priority reservations (KeptReservation), by job
  view_node          the last snapshot's nodes, in the resource manager's order
  view_job           the last snapshot's jobs, each with its JobReport, its priority
                     Breakdown and its place in the queue order
  view_reservation   the reservations of the last cycle: priority ones (from the state),
                     the resource manager's and the admin ones
  journal            decisions and events: start, reserve, defer, hold, release ...
  cycles             timings of the recent cycles
  requests           (v2) admin requests written by the commands, applied by the daemon
  admin_reservation  (v2) reservations made by admins (setres), kept until released or ended
  forecast           (v3) the last start forecast of each queued job (FORECASTPOLICY; store/forecasts.py)
  forecast_track     (v3) each job's first forecast and plan estimate, and its real start once
                     it started: the tracked accuracy (showstart --accuracy)

`requests` is a record, written by mauid only: each request it received on its socket, with
its outcome, in the transaction of the cycle that applied it. mauid never acts on a row it
finds there (a `pending` row is somebody else's and is marked `ignored`).
"""

from __future__ import annotations

import sqlite3

_V1 = """
CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE job_state (job_id TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE reservations (job_id TEXT PRIMARY KEY, start INTEGER NOT NULL,
                           "end" INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE view_node (name TEXT PRIMARY KEY, pos INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE view_job (job_id TEXT PRIMARY KEY, pos INTEGER NOT NULL, queue_pos INTEGER,
                       data TEXT NOT NULL, report TEXT, priority TEXT);
CREATE TABLE view_reservation (source TEXT NOT NULL, name TEXT NOT NULL, data TEXT NOT NULL,
                               PRIMARY KEY (source, name));
CREATE TABLE journal (id INTEGER PRIMARY KEY AUTOINCREMENT, cycle INTEGER, at REAL NOT NULL,
                      event TEXT NOT NULL, job_id TEXT NOT NULL DEFAULT '',
                      reason TEXT NOT NULL DEFAULT '', detail TEXT NOT NULL DEFAULT '{}');
CREATE INDEX journal_cycle ON journal (cycle);
CREATE TABLE cycles (iteration INTEGER PRIMARY KEY, now INTEGER NOT NULL, wall REAL NOT NULL,
                     jobs INTEGER, running INTEGER, starts INTEGER, reservations INTEGER,
                     snapshot_s REAL, schedule_s REAL, save_s REAL, apply_s REAL);
"""

_V2 = """
CREATE TABLE requests (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL,
                       args TEXT NOT NULL DEFAULT '{}', requester TEXT NOT NULL DEFAULT '',
                       submitted REAL NOT NULL, status TEXT NOT NULL DEFAULT 'pending',
                       result TEXT NOT NULL DEFAULT '', done REAL, cycle INTEGER);
CREATE INDEX requests_status ON requests (status);
CREATE TABLE admin_reservation (name TEXT PRIMARY KEY, data TEXT NOT NULL,
                                owner TEXT NOT NULL DEFAULT '', created REAL NOT NULL);
CREATE INDEX journal_job ON journal (job_id);
CREATE INDEX journal_at ON journal (at);
"""

_V3 = """
CREATE TABLE forecast (job_id TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE forecast_track (job_id TEXT PRIMARY KEY, first_at INTEGER NOT NULL, start INTEGER,
                             data TEXT NOT NULL);
CREATE INDEX forecast_track_first ON forecast_track (first_at);
"""

MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3)
VERSION = len(MIGRATIONS)
APPLICATION_ID = 0x4D415550
"""SQLite's `PRAGMA application_id` of a maui-py store ("MAUP"): set by `migrate`, so that
a file says what it is (stores made before it was set are known by their tables)."""


class SchemaError(RuntimeError):
    """The file is not a store this code can use."""


def version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def foreign(conn: sqlite3.Connection) -> str:
    """Why the SQLite file behind `conn` is not a maui-py store and must not be made one
    ("" when it is one, or is empty). Reads only: call it before anything writes (switching
    to WAL rewrites the header)."""
    app = int(conn.execute("PRAGMA application_id").fetchone()[0])
    if app not in (0, APPLICATION_ID):
        return f"an SQLite file of another application (application_id {app:#x})"
    tables = sorted(name for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
    if not tables and app == 0:
        return ""
    if version(conn) >= 1 and {"kv", "journal"} <= set(tables):
        return ""
    shown = ", ".join(tables[:6]) + (", ..." if len(tables) > 6 else "")
    return f"an SQLite file of something else (tables: {shown or 'none'})"


def migrate(conn: sqlite3.Connection, target: int = VERSION) -> int:
    """Bring the file to `target`, one transaction per step; returns the version it had.

    The connection must be in autocommit mode (isolation_level=None)."""
    have = version(conn)
    if have > VERSION:
        raise SchemaError(f"store schema version {have} is newer than this maui-py knows ({VERSION})")
    for step in range(have, target):
        conn.execute("BEGIN IMMEDIATE")
        try:
            if version(conn) != step:           # another process migrated meanwhile
                conn.execute("ROLLBACK")
                continue
            for statement in _statements(MIGRATIONS[step]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {step + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    if int(conn.execute("PRAGMA application_id").fetchone()[0]) != APPLICATION_ID:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    return have


def _statements(script: str) -> list[str]:
    """The statements of a migration script (they hold no `;` inside)."""
    return [s.strip() for s in script.split(";") if s.strip()]
