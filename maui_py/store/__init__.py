"""The state store: SQLite (stdlib) in WAL mode, written once per cycle by the daemon.

Store (read-write, the daemon; `submit_request` for the admin commands), StoreReader
(read-only, the diagnostic commands), the JSON codec of the model, the journal.
"""

from .journal import JournalEntry
from .reader import AdminRequest, CycleInfo, CycleStats, LastCycle, StoreError, StoreReader
from .store import Store

__all__ = ["AdminRequest", "CycleInfo", "CycleStats", "JournalEntry", "LastCycle", "Store",
           "StoreError", "StoreReader"]
