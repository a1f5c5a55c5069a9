"""One daemon per store: an exclusive flock on `<store>.lock`, holding the daemon's pid.

flock locks belong to the open file, so the lock goes away with the process however it
ends (kill -9 included): no stale lock to clean up, and a second mauid started on the same
store is refused at once with the pid of the one that holds it. The file is never
unlinked (a process could be about to lock the old inode).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


class LockHeld(RuntimeError):
    """Another daemon holds the lock."""


def lock_path(store_path: str | Path) -> Path:
    return Path(str(store_path) + ".lock")


class DaemonLock:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.fd: int | None = None

    def acquire(self) -> "DaemonLock":
        """Take the lock or raise LockHeld naming the holder's pid."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise LockHeld(f"{self.path}: another mauid (pid {holder}) is driving this store") from None
        self.fd = fd
        self.write_pid()
        return self

    def write_pid(self) -> None:
        """(Re)write our pid, e.g. after daemonizing (the lock passes to the child)."""
        if self.fd is not None:
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, f"{os.getpid()}\n".encode(), 0)

    def release(self) -> None:
        if self.fd is not None:
            os.ftruncate(self.fd, 0)
            os.close(self.fd)
            self.fd = None
