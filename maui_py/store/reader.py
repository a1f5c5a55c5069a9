"""Reading the store: what the diagnostic commands see, with or without a daemon running.

    with StoreReader.open("/var/spool/maui-py/maui-py.db") as r:     # read-only
        last = r.last_cycle()          # snapshot, reports, priorities, order, reservations
        r.job_view("1234")             # one job, without reading the rest
        r.journal(job_id="1234")       # what was decided about it, oldest first
        r.load_state()                 # the SchedulerState the daemon would restart from

Readers open the file with a `file:...?mode=ro` URI. The file is in WAL mode, so a
reader never blocks the daemon and always sees the last committed cycle whole;
`last_cycle()` reads everything inside one read transaction. Readers do not migrate: a
file of another schema version is refused with a message saying what to do.
"""

from __future__ import annotations

import functools
import json
import logging
import sqlite3
import urllib.parse
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from ..core.result import JobReport
from ..core.state import SchedulerState
from ..model import ClusterSnapshot, Job, Node, NodeState, Reservation, ReservationKind, Resources
from ..priority.engine import Breakdown
from . import schema
from .codec import decode
from .journal import JournalEntry
from .state_rows import job_record, kept_reservation, state_from

log = logging.getLogger("maui_py.store")

LAST_DATE = 253402300799
"""9999-12-31 23:59:59 UTC: the last time ctime() can show; a cycle dated later is damage."""

PRIORITY, RM, ADMIN, STANDING = "priority", "rm", "admin", "standing"
"""view_reservation sources: the cycle's priority reservations, the resource manager's, admins'."""


class StoreError(RuntimeError):
    """The store cannot be opened or used."""


class StoreDamaged(StoreError):
    """The store's file is damaged (SQLite finds it malformed, or a value that is not one
    job's, node's or reservation's row cannot be read: the last cycle's record, the queue
    policy): the message is one line naming the file and what is wrong. Nothing more is written
    to it; mauid stops (exit 2) rather than run on it."""


def is_damage(e: BaseException) -> bool:
    """Whether SQLite's error means the file is damaged: any DatabaseError but an
    OperationalError (locked, busy, full disk, I/O), which may pass."""
    return isinstance(e, sqlite3.DatabaseError) and not isinstance(e, sqlite3.OperationalError)


def damaged(path: str | Path, e: BaseException) -> StoreDamaged:
    """StoreDamaged for `path` from what reading or writing it raised."""
    return StoreDamaged(f"{path}: {_corruption(e)}")


ROW_ERRORS = (ValueError, TypeError, KeyError, IndexError, OverflowError, RecursionError)
"""What decoding one row that cannot be read raises: bad JSON, values the codec refuses
(a name that is not a string), missing fields."""
QUOTE = 120
"""Characters of a skipped row's key and of its data (job_state, reservations) a warning quotes."""
CORRUPT = (sqlite3.Error, *ROW_ERRORS)
"""What reading a damaged store raises: SQLite's own errors (not a database, malformed image,
missing table), and from the rows."""


def clean_errors(method):
    """Turn what a damaged file raises into one StoreDamaged naming the file (a read-only
    reader, `StoreReader.open`: also SQLite's other errors, as a StoreError); the daemon's
    read-write Store keeps SQLite's OperationalError (locked, busy, full disk), which its
    loop handles."""
    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except ROW_ERRORS as e:
            raise damaged(self.path, e) from e
        except sqlite3.Error as e:
            if is_damage(e):
                raise damaged(self.path, e) from e
            if not self.readonly:
                raise
            raise StoreError(f"{self.path}: {_corruption(e)}") from e
    return guarded


def _corruption(e: BaseException) -> str:
    """One line saying what is wrong with the file, from the exception reading it raised."""
    first = (str(e).splitlines() or [""])[0][:200]
    if isinstance(e, sqlite3.DatabaseError) and not isinstance(e, sqlite3.OperationalError):
        return f"damaged store: {first} (restore it or let mauid create a new one)"
    if isinstance(e, sqlite3.OperationalError):
        return f"unusable store: {first}"
    return f"damaged store: a saved row cannot be read ({type(e).__name__}: {first})"


@dataclass(frozen=True, slots=True)
class CycleInfo:
    """The last saved cycle: its number and clock, and the daemon that ran it."""

    iteration: int
    now: int
    wall: float
    config_path: str = ""
    rm: str = ""
    pid: int = 0
    host: str = ""


@dataclass(frozen=True, slots=True)
class CycleStats:
    iteration: int
    now: int
    wall: float
    jobs: int | None
    running: int | None
    starts: int | None
    reservations: int | None
    snapshot_s: float | None
    schedule_s: float | None
    save_s: float | None
    apply_s: float | None


@dataclass(frozen=True, slots=True)
class AdminRequest:
    """An admin request as mauid received it on its socket (requester from the kernel) and
    recorded it: `kind` and `args` mean what the command's handler says; `status` is pending,
    done, failed or ignored (a row mauid did not write), `result` the handler's answer."""

    id: int
    kind: str
    args: Mapping[str, Any]
    requester: str
    submitted: float
    status: str = "pending"
    result: str = ""
    done: float | None = None
    cycle: int | None = None


@dataclass(frozen=True)
class LastCycle:
    """Everything the last cycle saw and decided, rebuilt as model objects."""

    info: CycleInfo
    snapshot: ClusterSnapshot
    reports: dict[str, JobReport]
    priorities: dict[str, Breakdown]
    order: list[str]
    reservations: dict[str, list[Reservation]] = field(default_factory=dict)
    """By source: priority, rm, admin."""


def _uri(path: str | Path, **params: str) -> str:
    query = urllib.parse.urlencode(params)
    return f"file:{urllib.parse.quote(str(Path(path).resolve()))}?{query}"


def connect_readonly(path: str | Path) -> sqlite3.Connection:
    """A read-only connection; StoreError when there is no store at `path`."""
    if not Path(path).exists():
        raise StoreError(f"{path}: no store here (has mauid run with this STOREFILE?)")
    if Path(path).is_dir():
        raise StoreError(f"{path}: is a directory, not a store")
    try:
        return _probe(sqlite3.connect(_uri(path, mode="ro"), uri=True, isolation_level=None,
                                      check_same_thread=False))
    except sqlite3.OperationalError as e:
        if not Path(f"{path}-wal").exists() or "readonly" not in str(e):
            raise StoreError(f"{path}: cannot open the store read-only: {e}") from e
    except sqlite3.DatabaseError as e:          # "file is not a database", "malformed"
        if "not a database" in str(e):
            raise StoreError(f"{path}: not a maui-py store (not an SQLite database)") from e
        raise damaged(path, e) from e
    # A WAL file left without its -shm (the writer is gone and we may not create one):
    # with no writer, reading it as immutable is safe.
    try:
        return _probe(sqlite3.connect(_uri(path, mode="ro", immutable="1"), uri=True,
                                      isolation_level=None, check_same_thread=False))
    except sqlite3.Error as e:
        raise StoreError(f"{path}: cannot open the store read-only: {e}") from e


def _probe(conn: sqlite3.Connection) -> sqlite3.Connection:
    try:
        conn.execute("PRAGMA busy_timeout = 10000")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error:
        conn.close()
        raise
    return conn



@functools.cache
def _expected_columns() -> dict[str, frozenset[str]]:
    """table -> columns of a store of this version, from the migrations run in memory once."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        schema.migrate(conn)
        return _columns(conn)
    finally:
        conn.close()


def _columns(conn: sqlite3.Connection) -> dict[str, frozenset[str]]:
    tables = [name for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    return {t: frozenset(row[1] for row in conn.execute(f'PRAGMA table_info("{t}")')) for t in tables}


def _has_table(conn: sqlite3.Connection, table: str) -> bool:
    try:
        return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                            (table,)).fetchone() is not None
    except sqlite3.Error:
        return False


def _schema_mismatch(conn: sqlite3.Connection) -> str:
    """"" when every table and column this version reads is there; else what is missing
    (a file that claims our version but was made by something else, or damaged)."""
    have = _columns(conn)
    for table, columns in sorted(_expected_columns().items()):
        if table not in have:
            return f"table {table} missing"
        lacking = sorted(columns - have[table])
        if lacking:
            return f"table {table} lacks column {', '.join(lacking)}"
    return ""


class StoreReader:
    """Queries over a store connection (read-only when made by `open`)."""

    readonly = False
    """True when made by `open`: errors of a damaged file then become StoreError."""

    def __init__(self, conn: sqlite3.Connection, path: str | Path):
        self.conn, self.path = conn, Path(path)
        self.unreadable: dict[tuple[str, str], str] = {}
        """(table, key) -> why, of the rows a read skipped because they cannot be decoded
        (an older mauid stored an admin's `"name": 7`, a row edited or damaged in place):
        rows of one job, node or reservation (job_state, reservations, view_job, view_node,
        view_reservation, admin_reservation). Each is named once, as a warning on the
        `maui_py.store` logger, and everything else is read as usual. What is not one such
        row (the kv values: the cycle, the queue policy) cannot be skipped: that is damage
        (StoreDamaged)."""

    @classmethod
    def open(cls, path: str | Path) -> "StoreReader":
        """A read-only reader; StoreError (one line, naming the file) when there is no store,
        the file is not SQLite or is damaged, or its tables are not this maui-py's."""
        conn = connect_readonly(path)
        try:
            have = schema.version(conn)
            missing = _schema_mismatch(conn) if have == schema.VERSION else ""
            foreign = have == 0 and not _has_table(conn, "kv")
        except sqlite3.Error as e:
            conn.close()
            raise (damaged(path, e) if is_damage(e) else StoreError(f"{path}: {_corruption(e)}")) from e
        if foreign:
            conn.close()
            raise StoreError(f"{path}: not a maui-py store (an SQLite file without its tables)")
        if have != schema.VERSION:
            conn.close()
            what = "newer than this maui-py" if have > schema.VERSION else "older: start mauid to upgrade it"
            raise StoreError(f"{path}: store schema version {have} ({what}; this maui-py reads {schema.VERSION})")
        if missing:
            conn.close()
            raise StoreError(f"{path}: not a maui-py store of schema version {have} ({missing})")
        reader = cls(conn, path)
        reader.readonly = True
        return reader

    def close(self) -> None:
        self.conn.close()

    def _skip(self, table: str, key: Any, e: BaseException, text: Any = None) -> None:
        """Name a row that cannot be read (once) and go on without it; `text`, the row's
        data, is quoted (its start, escaped) so that the operator sees what is lost."""
        k = (table, str(key))          # whole: mauid keeps unreadable admin rows by their name
        if k not in self.unreadable:
            why = f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:200]}"
            if text is not None:
                why += f"; it held {str(text)[:QUOTE]!r}" + ("..." if len(str(text)) > QUOTE else "")
            self.unreadable[k] = why
            log.warning("%s: %s row %r cannot be read (%s): skipped", self.path, table, k[1][:QUOTE], why)

    def _decoded(self, table: str, rows: Iterable[tuple], make: Callable[[tuple], Any],
                 quote: int | None = None) -> Iterator[Any]:
        """make(row) for each row; a row it cannot decode (ROW_ERRORS) is named and skipped,
        its column `quote` quoted. The first column is the row's key."""
        for row in rows:
            try:
                yield make(row)
            except ROW_ERRORS as e:
                self._skip(table, row[0], e, None if quote is None else row[quote])

    def skipped(self) -> list[dict[str, str]]:
        """The rows reads so far skipped, as {table, key, why}, in table and key order (keys
        shortened to QUOTE characters: they are shown)."""
        return [{"table": t, "key": k[:QUOTE], "why": why} for (t, k), why in sorted(self.unreadable.items())]

    def unreadable_names(self, table: str) -> set[str]:
        """Keys of the rows of `table` that reads so far skipped."""
        return {key for t, key in self.unreadable if t == table}

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def consistent(self) -> Iterator[None]:
        """Several queries from one committed state (one read transaction)."""
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            self.conn.execute("COMMIT")

    # ------------------------------------------------------------------ state
    @clean_errors
    def kv(self) -> dict[str, Any]:
        return {k: json.loads(v) for k, v in self.conn.execute("SELECT key, value FROM kv")}

    @clean_errors
    def load_state(self) -> SchedulerState:
        """The SchedulerState saved by the last committed cycle (caches empty). A job_state
        or reservations row that cannot be read is named and skipped: that job then has no
        saved state, and mauid's next cycle takes it as a new job from what the resource
        manager reports (its holds, its submit time; priority and reservation made again)."""
        with self.consistent():
            jobs = dict(self._decoded("job_state", self.conn.execute("SELECT job_id, data FROM job_state"),
                                      lambda row: (row[0], job_record(row[0], json.loads(row[1]))), 1))
            res = dict(self._decoded("reservations", self.conn.execute("SELECT job_id, data FROM reservations"),
                                     lambda row: (row[0], kept_reservation(row[0], json.loads(row[1]))), 1))
            return state_from(jobs, res, self.kv())

    @clean_errors
    def admin_reservations(self) -> dict[str, tuple[Reservation, str, float]]:
        """name -> (reservation, owner, created) of the reservations admins made."""
        def make(row: tuple) -> tuple[str, tuple[Reservation, str, float]]:
            name, d, owner, created = row
            r = decode(Reservation, json.loads(d))
            if r.name != name or not isinstance(owner, str) or not isinstance(created, (int, float)):
                raise ValueError(f"reservation {r.name!r}, owner {owner!r}, created {created!r}")
            return name, (r, owner, float(created))
        rows = self.conn.execute("SELECT name, data, owner, created FROM admin_reservation ORDER BY name")
        return dict(self._decoded("admin_reservation", rows, make))

    # -------------------------------------------------------------- last cycle
    @clean_errors
    def cycle_info(self) -> CycleInfo | None:
        row = self.conn.execute("SELECT value FROM kv WHERE key = 'cycle'").fetchone()
        if row is None:
            return None
        info = decode(CycleInfo, json.loads(row[0]))
        if not (0 <= info.now <= LAST_DATE and 0 <= info.wall <= LAST_DATE and info.iteration >= 0):
            raise ValueError(f"cycle record out of range (iteration {info.iteration}, now {info.now}, "
                             f"wall {info.wall})")
        return info

    @clean_errors
    def last_cycle(self) -> LastCycle | None:
        """The last cycle's view, or None before the first cycle. O(jobs + nodes). A node,
        job or reservation row that cannot be read is named and skipped (the view is what
        the commands show; mauid never schedules from it); a job's report or priority that
        cannot be read is named and left out, the job kept."""
        with self.consistent():
            info = self.cycle_info()
            if info is None:
                return None
            nodes = self._view_nodes()
            jobs, reports, prios, queue = [], {}, {}, []
            for row in self.conn.execute("SELECT job_id, data, report, priority, queue_pos FROM view_job "
                                         "ORDER BY pos"):
                one = self._view_job(row)
                if one is None:
                    continue
                job, rep, pri, qpos = one
                jobs.append(job)
                if rep is not None:
                    reports[job.id] = rep
                if pri is not None:
                    prios[job.id] = pri
                if qpos is not None:
                    queue.append((qpos, job.id))
            reservations: dict[str, list[Reservation]] = {PRIORITY: [], RM: [], ADMIN: []}
            for src, r in self._decoded("view_reservation", self.conn.execute(
                    "SELECT name, source, data FROM view_reservation ORDER BY source, name"),
                    lambda row: (row[1], decode(Reservation, json.loads(row[2])))):
                reservations.setdefault(src, []).append(r)
        nodes = _stand_ins(nodes, jobs, [r for rs in reservations.values() for r in rs])
        snap = ClusterSnapshot(info.now, nodes, tuple(jobs),
                               tuple(reservations[RM] + reservations[ADMIN]), seq=info.iteration)
        return LastCycle(info, snap, reports, prios, [j for _q, j in sorted(queue)], reservations)

    def _view_nodes(self) -> list[Node | str]:
        """The view's nodes in order; in the place of a row that cannot be read (named and
        skipped), its name (a str) for _stand_ins."""
        nodes: list[Node | str] = []
        for name, data in self.conn.execute("SELECT name, data FROM view_node ORDER BY pos"):
            try:
                nodes.append(_node(name, data))
            except ROW_ERRORS as e:
                self._skip("view_node", name, e)
                if isinstance(name, str):
                    nodes.append(name)
        return nodes

    @clean_errors
    def job_view(self, job_id: str) -> tuple[Job, JobReport | None, Breakdown | None, int | None] | None:
        """(job, report, priority breakdown, place in the queue order) of one job."""
        row = self.conn.execute("SELECT job_id, data, report, priority, queue_pos FROM view_job "
                                "WHERE job_id = ?", (job_id,)).fetchone()
        return None if row is None else self._view_job(row)

    def _view_job(self, row: tuple) -> tuple[Job, JobReport | None, Breakdown | None, int | None] | None:
        """(job, report, priority, queue place) of a view_job row (job_id, data, report,
        priority, queue_pos); None, named, when the job cannot be read; a report or priority
        that cannot be read is named and given as None."""
        jid, d, rep, pri, qpos = row
        try:
            job = decode(Job, json.loads(d))
            if job.id != jid or not (qpos is None or type(qpos) is int):
                raise ValueError(f"job {job.id!r} in the row of {jid!r}, queue place {qpos!r}")
        except ROW_ERRORS as e:
            self._skip("view_job", jid, e)
            return None
        parts: list[Any] = []
        for column, tp, text in (("report", JobReport, rep), ("priority", Breakdown, pri)):
            try:
                parts.append(None if text is None else decode(tp, json.loads(text)))
            except ROW_ERRORS as e:
                self._skip("view_job", jid, ValueError(f"its {column}: {type(e).__name__}: {e}"))
                parts.append(None)
        return job, parts[0], parts[1], qpos

    # ----------------------------------------------------------------- journal
    @clean_errors
    def journal(self, *, job_id: str | None = None, events: tuple[str, ...] = (),
                since_id: int = 0, limit: int | None = None) -> list[JournalEntry]:
        """Journal entries, oldest first (the last `limit` when given)."""
        where, args = ["id > ?"], [since_id]
        if job_id is not None:
            where.append("job_id = ?")
            args.append(job_id)
        if events:
            where.append(f"event IN ({','.join('?' * len(events))})")
            args.extend(events)
        sql = f"SELECT id, cycle, at, event, job_id, reason, detail FROM journal WHERE {' AND '.join(where)}"
        if limit is not None:
            sql = f"SELECT * FROM ({sql} ORDER BY id DESC LIMIT {int(limit)})"
        rows = self.conn.execute(sql + " ORDER BY id", args).fetchall()
        return [JournalEntry(ev, jid, reason, json.loads(detail), cycle, at, i)
                for i, cycle, at, ev, jid, reason, detail in rows]

    @clean_errors
    def cycles(self, limit: int = 100) -> list[CycleStats]:
        rows = self.conn.execute("SELECT iteration, now, wall, jobs, running, starts, reservations, "
                                 "snapshot_s, schedule_s, save_s, apply_s FROM cycles "
                                 "ORDER BY iteration DESC LIMIT ?", (limit,)).fetchall()
        return [CycleStats(*r) for r in reversed(rows)]

    # ---------------------------------------------------------------- requests
    @clean_errors
    def requests(self, status: str | None = None) -> list[AdminRequest]:
        sql = "SELECT id, kind, args, requester, submitted, status, result, done, cycle FROM requests"
        rows = self.conn.execute(sql + (" WHERE status = ?" if status else "") + " ORDER BY id",
                                 (status,) if status else ()).fetchall()
        return [AdminRequest(i, k, json.loads(a), who, sub, st, res, done, cyc)
                for i, k, a, who, sub, st, res, done, cyc in rows]


def _node(name: Any, data: str) -> Node:
    """A view_node row's node; ValueError when it is not the node the row names."""
    node = decode(Node, json.loads(data))
    if node.name != name:
        raise ValueError(f"node {node.name!r} in the row of {name!r}")
    return node


def _stand_ins(nodes: list[Node | str], jobs: list[Job], reservations: list[Reservation]) -> tuple[Node, ...]:
    """The nodes, each skipped one (a name) that running jobs or reservations use replaced by
    a stand-in: state Unknown (no new work planned on it), resources what they hold on it.
    So that the commands still place those jobs and reservations (showbf, showstart plan
    around them) and show them whole; a skipped node nothing uses is left out."""
    skipped = {n for n in nodes if isinstance(n, str)}
    if not skipped:
        return tuple(nodes)        # type: ignore[arg-type]
    used: dict[str, Resources] = {}
    holders = [j.allocation for j in jobs if j.state.active] + [r.allocation for r in reservations]
    for allocation in holders:
        for name, res in allocation:
            if name in skipped:
                used[name] = used.get(name, Resources()) + res
    return tuple(n if isinstance(n, Node) else Node(n, used[n], NodeState.UNKNOWN)
                 for n in nodes if isinstance(n, Node) or n in used)


def reservation_of(kept, user: str = "") -> Reservation:
    """A kept priority reservation as the Reservation the commands show (showres Type Job)."""
    return Reservation(kept.job_id, ReservationKind.JOB, kept.start, kept.end, kept.allocation,
                       owner=user, job_id=kept.job_id)
