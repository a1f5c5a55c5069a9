"""One daemon per store: an exclusive flock on `<store>.lock`, holding the daemon's pid.

flock locks belong to the open file, so the lock goes away with the process however it
ends (kill -9 included): no stale lock to clean up, and a second mauid started on the same
store is refused at once with the pid of the one that holds it. The file is never
unlinked (a process could be about to lock the old inode).

Nobody but the daemon's user may open the lock file: anyone who can open a file can flock
it, and a user holding the lock would keep mauid from starting (exit 3, which systemd does
not retry). So it is created mode 0600 without following a link (O_NOFOLLOW), an older
file open to others is made 0600, and one open to others that mauid cannot fix (another
user's) is refused. The pid is also written to `<store>.pid` (0644, replaced by rename),
which the commands read to say whether mauid runs.
"""

from __future__ import annotations

import fcntl
import os
import stat
from pathlib import Path

LOCK_MODE = 0o600
PID_MODE = 0o644


class LockHeld(RuntimeError):
    """Another daemon holds the lock."""


def lock_path(store_path: str | Path) -> Path:
    return Path(str(store_path) + ".lock")


def pid_path(store_path: str | Path) -> Path:
    """`<store>.pid`: the running daemon's pid, for everyone to read."""
    return Path(str(store_path) + ".pid")


def _open_private(path: Path) -> int:
    """The lock file's descriptor, made 0600; OSError when it is a link or not a regular
    file, or others may open it and it is not ours to fix."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, LOCK_MODE)
    except OSError as e:
        what = "is a symbolic link" if os.path.islink(path) else (e.strerror or str(e))
        raise OSError(f"{path}: cannot open the lock file: {what}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{path}: the lock file is not a regular file")
        if stat.S_IMODE(st.st_mode) != LOCK_MODE:
            if st.st_uid != os.geteuid() and os.geteuid() != 0:
                raise OSError(f"{path}: the lock file is open to others (mode {stat.S_IMODE(st.st_mode):04o}) "
                              f"and belongs to uid {st.st_uid}: remove it")
            os.fchmod(fd, LOCK_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd


class DaemonLock:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.fd: int | None = None

    @property
    def pid_file(self) -> Path:
        return pid_path(str(self.path)[: -len(".lock")] if str(self.path).endswith(".lock") else self.path)

    def acquire(self) -> "DaemonLock":
        """Take the lock or raise LockHeld naming the holder's pid (OSError: the lock file
        cannot be used, see _open_private)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = _open_private(self.path)
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
        if self.fd is None:
            return
        text = f"{os.getpid()}\n".encode()
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, text, 0)
        target = self.pid_file
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, PID_MODE)
            try:
                os.fchmod(fd, PID_MODE)
                os.write(fd, text)
            finally:
                os.close(fd)
            os.replace(tmp, target)             # a link planted at `target` is replaced, not followed
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass

    def release(self) -> None:
        if self.fd is not None:
            try:
                os.unlink(self.pid_file)
            except OSError:
                pass
            os.ftruncate(self.fd, 0)
            os.close(self.fd)
            self.fd = None
