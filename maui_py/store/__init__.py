"""The state store: SQLite (stdlib) in WAL mode, written once per cycle by the daemon.

Store (read-write: mauid only, and maui-sim for a store of its own), StoreReader (read-only,
the commands), the JSON codec of the model, the journal. Admin requests reach mauid over
its socket (maui_py/daemon/socket_server.py), never through the store.
"""

from .journal import JournalEntry
from .reader import AdminRequest, CycleInfo, CycleStats, LastCycle, StoreDamaged, StoreError, StoreReader
from .store import Store

__all__ = ["AdminRequest", "CycleInfo", "CycleStats", "JournalEntry", "LastCycle", "Store",
           "StoreDamaged", "StoreError", "StoreReader"]
