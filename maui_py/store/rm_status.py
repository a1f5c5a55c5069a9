"""The resource-manager outage mark: what the commands need to say the data is stale.

While the resource manager cannot be read, mauid runs no cycle, so the last committed cycle
grows old without saying why. The daemon writes one `kv` row, `rm_down` = {"since": epoch
seconds of the first failed read, "error": its message}, when an outage starts and deletes
it when the resource manager answers again; the commands read it with `rm_down()` and print
"data is stale: resource manager unreachable since ...". A key of the existing kv table:
no schema change, and an older reader simply ignores it.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

KEY = "rm_down"


def mark_rm_down(conn: sqlite3.Connection, since: float, error: str) -> None:
    """Record the outage (its own transaction; the connection is in autocommit mode)."""
    value = json.dumps({"since": since, "error": error[:500]}, sort_keys=True)
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)", (KEY, value))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def clear_rm_down(conn: sqlite3.Connection) -> None:
    """The resource manager answers again: drop the mark (a no-op when there is none)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("DELETE FROM kv WHERE key = ?", (KEY,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def rm_down(conn: sqlite3.Connection) -> dict[str, Any] | None:
    """{"since", "error"} while an outage is recorded, else None (also for a value that
    is not what mark_rm_down wrote: the mark is advisory)."""
    row = conn.execute("SELECT value FROM kv WHERE key = ?", (KEY,)).fetchone()
    if row is None:
        return None
    try:
        value = json.loads(row[0])
        return {"since": float(value["since"]), "error": str(value.get("error", ""))}
    except (ValueError, TypeError, KeyError):
        return None
