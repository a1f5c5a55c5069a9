"""Start forecasts in the store (issue 36): the last forecast of each queued job, and the
tracked accuracy (each job's first forecast and plan estimate, then its real start).

    save_forecasts(store, run, forecasts, about)   # one transaction: table forecast replaced
    note_starts(store, {job: start})               # real starts of tracked jobs
    forecast_run(reader); forecast_of(reader, job); tracked(reader, since)

Tables forecast and forecast_track (schema v3), the run's facts under kv key "forecast".
Only mauid writes them, between cycles (the forecast comes from its worker process); the
commands read them. Everything read back is bounded: times within the store's dates,
samples within the engine's bound, names cut to NAME_MAX characters, at most MAX_ROWS rows;
a row that cannot be read (damaged, edited) is named once on the maui_py.store logger,
recorded in the reader's `unreadable` and skipped, the others read as usual.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping

from .codec import dump_data
from .reader import LAST_DATE, QUOTE, ROW_ERRORS, StoreReader, damaged, is_damage

log = logging.getLogger("maui_py.store")

MAX_SAMPLES = 1000
"""The most replays a stored forecast may claim (the engine's bound)."""
MAX_ROWS = 200_000
"""Rows of either table read back at most."""
NAME_MAX = 256
"""Characters of a user, class or QOS name kept."""
MAX_PROCS = 10**9
MAX_TIME = 366 * 86400 * 100
"""Seconds a runtime or request of the history may be at most."""


@dataclass(frozen=True, slots=True)
class StoredForecast:
    """One job's last forecast: the range (epoch seconds), the replays behind it, in how
    many it had not started by the horizon, and the plan's point estimate (None: unknown)."""

    job_id: str
    p10: int
    p50: int
    p90: int
    samples: int
    late: int = 0
    plan: int | None = None
    raw: tuple[int, int, int] | None = None
    """The replays' own p10 / p50 / p90 when the range shown was calibrated (else None)."""


@dataclass(frozen=True, slots=True)
class ForecastRun:
    """One forecast run: when its moment was (the cycle's now), replays asked and done (the
    fewest any job got), whether the budget cut it short, how long it took, jobs forecast."""

    computed_at: int
    asked: int
    done: int
    cut: bool
    seconds: float
    jobs: int
    policy: str = ""


@dataclass(frozen=True, slots=True)
class Tracked:
    """A job's first forecast (made at first_at) and plan estimate, its real start (None:
    not started yet) and what the accuracy is broken down by."""

    job_id: str
    first_at: int
    p10: int
    p50: int
    p90: int
    plan: int | None
    start: int | None
    user: str = ""
    class_: str = ""
    qos: str = ""
    procs: int = 0
    raw: tuple[int, int, int] | None = None
    """The replays' own range of the first forecast, when the one shown was calibrated:
    what the next forecasts' calibration reads (never the calibrated one, which would feed
    on itself)."""

    def replays(self) -> tuple[int, int, int]:
        """The replays' own p10 / p50 / p90 of the first forecast."""
        return self.raw if self.raw is not None else (self.p10, self.p50, self.p90)


def _int(v: Any, lo: int = 0, hi: int = LAST_DATE) -> int:
    if type(v) is not int or not lo <= v <= hi:
        raise ValueError(f"{v!r} is not a whole number in {lo}..{hi}")
    return v


def _name(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError(f"{v!r} is not a name")
    return v[:NAME_MAX]


def _range(d: Mapping[str, Any]) -> tuple[int, int, int]:
    p10, p50, p90 = _int(d["p10"]), _int(d["p50"]), _int(d["p90"])
    if not p10 <= p50 <= p90:
        raise ValueError(f"range {p10}, {p50}, {p90} out of order")
    return p10, p50, p90


def _plan(v: Any) -> int | None:
    return None if v is None else _int(v)


def _raw(v: Any) -> tuple[int, int, int] | None:
    """A stored raw range ([p10, p50, p90] or absent), checked as _range checks."""
    if v is None:
        return None
    if not isinstance(v, list) or len(v) != 3:
        raise ValueError(f"raw range {str(v)[:60]!r} is not three times")
    return _range({"p10": v[0], "p50": v[1], "p90": v[2]})


# ----------------------------------------------------------------------- writing
def _transaction(store, body) -> None:
    conn = store.conn
    conn.execute("BEGIN IMMEDIATE")
    try:
        body(conn)
        conn.execute("COMMIT")
    except BaseException as e:
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass
        if is_damage(e):
            raise damaged(store.path, e) from e
        raise


def save_forecasts(store, run: ForecastRun, forecasts: Iterable[StoredForecast],
                   about: Mapping[str, tuple[str, str, str, int]]) -> None:
    """Replace the stored forecasts with this run's, and track the jobs forecast for the
    first time (`about`: job -> user, class, QOS, processors). One transaction. O(jobs)."""
    rows = list(forecasts)

    def body(conn: sqlite3.Connection) -> None:
        conn.execute("DELETE FROM forecast")
        conn.executemany("INSERT INTO forecast (job_id, data) VALUES (?, ?)",
                         [(f.job_id, dump_data({k: v for k, v in asdict(f).items()
                                                if k != "job_id" and (k != "raw" or v is not None)}))
                          for f in rows])
        conn.execute("INSERT OR REPLACE INTO kv (key, value) VALUES ('forecast', ?)", (dump_data(asdict(run)),))
        first = []
        for f in rows:
            user, cls, qos, procs = about.get(f.job_id, ("", "", "", 0))
            data = {"p10": f.p10, "p50": f.p50, "p90": f.p90, "plan": f.plan, "user": user, "class": cls,
                    "qos": qos, "procs": procs}
            if f.raw is not None:
                data["raw"] = list(f.raw)
            first.append((f.job_id, run.computed_at, dump_data(data)))
        conn.executemany("INSERT OR IGNORE INTO forecast_track (job_id, first_at, data) VALUES (?, ?, ?)", first)
    _transaction(store, body)


def note_starts(store, starts: Mapping[str, int]) -> None:
    """Record the real start of tracked jobs that had none yet. One transaction."""
    if not starts:
        return

    def body(conn: sqlite3.Connection) -> None:
        conn.executemany("UPDATE forecast_track SET start = ? WHERE job_id = ? AND start IS NULL",
                         [(int(s), jid) for jid, s in starts.items()])
    _transaction(store, body)


def prune_tracked(store, before: int) -> None:
    """Forget the jobs first forecast before `before` (JOURNALKEEPTIME)."""
    _transaction(store, lambda conn: conn.execute("DELETE FROM forecast_track WHERE first_at < ?", (int(before),)))


def waiting_tracked(store) -> set[str]:
    """The tracked jobs not started yet (what the daemon watches for a start)."""
    return {jid for (jid,) in store.conn.execute(
        f"SELECT job_id FROM forecast_track WHERE start IS NULL LIMIT {MAX_ROWS}")}


MAX_USERS = 100_000
"""Users of the forecast history read back at most."""


def save_history(store, history: Mapping[str, Iterable[tuple[int, int]]]) -> None:
    """The users' forecast history (user -> (runtime, request) pairs, oldest first), under
    kv key forecast_history. One transaction."""
    text = dump_data({u: [list(p) for p in pairs] for u, pairs in history.items()})
    _transaction(store, lambda conn: conn.execute(
        "INSERT OR REPLACE INTO kv (key, value) VALUES ('forecast_history', ?)", (text,)))


def load_history(store, window: int) -> dict[str, tuple[tuple[int, int], ...]]:
    """The users' forecast history, each user's last `window` pairs, at most MAX_USERS users;
    a user whose pairs cannot be read is left out (named), an unreadable value read as none."""
    row = store.conn.execute("SELECT value FROM kv WHERE key = 'forecast_history'").fetchone()
    if row is None:
        return {}
    try:
        data = json.loads(row[0])
        if not isinstance(data, dict):
            raise ValueError("not an object")
    except ROW_ERRORS as e:
        log.warning("%s: the forecast history cannot be read (%s): starting without it", store.path, e)
        return {}
    out = {}
    for user, pairs in list(data.items())[:MAX_USERS]:
        try:
            out[_name(user)] = tuple((_int(r, 0, MAX_TIME), _int(q, 0, MAX_TIME)) for r, q in pairs[-window:])
        except ROW_ERRORS as e:
            log.warning("%s: the forecast history of user %r cannot be read (%s): left out",
                        store.path, str(user)[:QUOTE], e)
    return out


# ----------------------------------------------------------------------- reading
def _skip(reader: StoreReader, table: str, key: Any, e: BaseException) -> None:
    """Name an unreadable row once (as the reader names its own) and go on without it."""
    k = (table, str(key))
    if k not in reader.unreadable:
        why = f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:200]}"
        reader.unreadable[k] = why
        log.warning("%s: %s row %r cannot be read (%s): skipped", reader.path, table, k[1][:QUOTE], why)


def forecast_run(reader: StoreReader) -> ForecastRun | None:
    """The last forecast run's facts; None when there is none (or it cannot be read: named)."""
    row = reader.conn.execute("SELECT value FROM kv WHERE key = 'forecast'").fetchone()
    if row is None:
        return None
    try:
        d = json.loads(row[0])
        seconds = d["seconds"]
        if not isinstance(seconds, (int, float)) or not 0 <= seconds <= LAST_DATE:
            raise ValueError(f"seconds {seconds!r}")
        return ForecastRun(_int(d["computed_at"]), _int(d["asked"], 1, MAX_SAMPLES),
                           _int(d["done"], 0, MAX_SAMPLES), bool(d["cut"]), float(seconds),
                           _int(d["jobs"], 0, MAX_ROWS), _name(d.get("policy", "")))
    except ROW_ERRORS as e:
        _skip(reader, "kv", "forecast", e)
        return None


def _forecast(jid: Any, text: str) -> StoredForecast:
    d = json.loads(text)
    p10, p50, p90 = _range(d)
    samples = _int(d["samples"], 1, MAX_SAMPLES)
    return StoredForecast(_name(jid), p10, p50, p90, samples, _int(d.get("late", 0), 0, samples),
                          _plan(d.get("plan")), _raw(d.get("raw")))


def forecast_of(reader: StoreReader, job_id: str) -> StoredForecast | None:
    """One job's last forecast, None when there is none (or it cannot be read: named)."""
    row = reader.conn.execute("SELECT job_id, data FROM forecast WHERE job_id = ?", (job_id,)).fetchone()
    if row is None:
        return None
    try:
        return _forecast(*row)
    except ROW_ERRORS as e:
        _skip(reader, "forecast", row[0], e)
        return None


def all_forecasts(reader: StoreReader) -> dict[str, StoredForecast]:
    """Every stored forecast that can be read, by job. O(rows), at most MAX_ROWS."""
    out = {}
    for jid, text in reader.conn.execute(f"SELECT job_id, data FROM forecast ORDER BY job_id LIMIT {MAX_ROWS}"):
        try:
            out[jid] = _forecast(jid, text)
        except ROW_ERRORS as e:
            _skip(reader, "forecast", jid, e)
    return out


def _tracked(jid: Any, first_at: Any, start: Any, text: str) -> Tracked:
    d = json.loads(text)
    p10, p50, p90 = _range(d)
    return Tracked(_name(jid), _int(first_at), p10, p50, p90, _plan(d.get("plan")),
                   None if start is None else _int(start), _name(d.get("user", "")),
                   _name(d.get("class", "")), _name(d.get("qos", "")), _int(d.get("procs", 0), 0, MAX_PROCS),
                   _raw(d.get("raw")))


def tracked(reader: StoreReader, since: int) -> list[Tracked]:
    """The tracked jobs first forecast at or after `since`, oldest first (the newest
    MAX_ROWS at most); unreadable rows named and skipped. O(rows)."""
    rows = reader.conn.execute(
        "SELECT * FROM (SELECT job_id, first_at, start, data FROM forecast_track WHERE first_at >= ? "
        f"ORDER BY first_at DESC, job_id LIMIT {MAX_ROWS}) ORDER BY first_at, job_id", (int(since),))
    out = []
    for jid, first_at, start, text in rows:
        try:
            out.append(_tracked(jid, first_at, start, text))
        except ROW_ERRORS as e:
            _skip(reader, "forecast_track", jid, e)
    return out
