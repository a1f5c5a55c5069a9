"""The daemon's logging: LOGFILE / LOGLEVEL through the standard logging module.

LOGLEVEL (Maui's 0-9) maps onto logging levels: 0 -> WARNING (problems only), 1-3 ->
INFO (one line per cycle, every start, refusal, reload), 4 and more -> DEBUG (every
decision and admin request). Everything goes to the `maui_py` logger (the adapters log
under it too); the file handler is a WatchedFileHandler, so logrotate can move the file.
With --foreground the log goes to stderr instead (journald keeps it under systemd; one copy,
not two). USESYSLOG TRUE also sends it to syslog (/dev/log, facility daemon). The log file
is created mode 0640, like the store (LOG_MODE, whatever the umask; a file that exists keeps
its mode).

Malformed records in resource-manager output are skipped by the adapters with a
RecordWarning; RecordWarnings routes them to the log: each distinct message at WARNING
the first time, at DEBUG while it repeats in the following cycles.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
import threading
import warnings
from pathlib import Path

from ..rm.protocol import RecordWarning

LOGGER = "maui_py"
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
SYSLOG_FORMAT = "%(levelname)s %(name)s: %(message)s"
SYSLOG_SOCKET = "/dev/log"
LOG_MODE = 0o640


class LogFile(logging.handlers.WatchedFileHandler):
    """A WatchedFileHandler that creates its file (first, or after logrotate moved it) mode
    LOG_MODE: the log names users, jobs and requests, so it is as private as the store."""

    def _open(self):
        try:
            fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_EXCL, LOG_MODE)
        except FileExistsError:
            pass
        else:
            try:
                os.fchmod(fd, LOG_MODE)
            finally:
                os.close(fd)
        return super()._open()


def level_of(loglevel: int) -> int:
    if loglevel <= 0:
        return logging.WARNING
    return logging.INFO if loglevel <= 3 else logging.DEBUG


def syslog_handler(address: str = SYSLOG_SOCKET) -> logging.Handler:
    """A handler to the local syslog, lines tagged `mauid[pid]:`. OSError when there is none."""
    h = logging.handlers.SysLogHandler(address, facility=logging.handlers.SysLogHandler.LOG_DAEMON)
    if h.socket is None or h.socket.fileno() < 0:      # the handler swallows the connect error
        h.close()
        raise FileNotFoundError(f"cannot connect to {address}")
    h.ident = f"mauid[{os.getpid()}]: "
    h.setFormatter(logging.Formatter(SYSLOG_FORMAT))
    return h


def configure(path: Path | None, loglevel: int, *, stderr: bool, syslog: str | None = None) -> None:
    """(Re)install the daemon's handlers on the maui_py logger; `syslog`: the syslog socket
    to log to as well (SYSLOG_SOCKET), or None. OSError if the file cannot be opened (the
    caller keeps the old handlers then); no syslog socket is a warning."""
    new: list[logging.Handler] = []
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        new.append(LogFile(path))
    if stderr:
        new.append(logging.StreamHandler(sys.stderr))
    no_syslog = None
    if syslog:
        try:
            new.append(syslog_handler(syslog))
        except OSError as e:
            no_syslog = e
    logger = logging.getLogger(LOGGER)
    for h in [h for h in logger.handlers if getattr(h, "_mauid", False)]:
        logger.removeHandler(h)
        h.close()
    for h in new:
        if h.formatter is None:
            h.setFormatter(logging.Formatter(FORMAT))
        h._mauid = True          # type: ignore[attr-defined]
        logger.addHandler(h)
    logger.setLevel(level_of(loglevel))
    if no_syslog is not None:
        logger.warning("USESYSLOG: no syslog at %s (%s); logging without it", syslog, no_syslog)


def unconfigure() -> None:
    configure(None, 0, stderr=False)
    logging.getLogger(LOGGER).setLevel(logging.NOTSET)


class RecordWarnings:
    """Collect RecordWarnings from any thread; `flush` logs them once per cycle."""

    def __init__(self, log: logging.Logger):
        self.log = log
        self._lock = threading.Lock()
        self._pending: list[str] = []
        self._last: set[str] = set()
        self._saved = None

    def install(self) -> None:
        self._saved = (warnings.showwarning, list(warnings.filters))
        warnings.filterwarnings("always", category=RecordWarning)
        previous = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if issubclass(category, RecordWarning):
                with self._lock:
                    self._pending.append(str(message))
            else:
                previous(message, category, filename, lineno, file, line)

        warnings.showwarning = show

    def uninstall(self) -> None:
        if self._saved is not None:
            warnings.showwarning, warnings.filters[:] = self._saved[0], self._saved[1]
            self._saved = None

    def flush(self) -> list[str]:
        """Log what was collected since the last flush; returns the messages."""
        with self._lock:
            seen, self._pending = list(dict.fromkeys(self._pending)), []
        for msg in seen:
            self.log.log(logging.DEBUG if msg in self._last else logging.WARNING,
                         "resource manager record skipped: %s", msg)
        self._last = set(seen)
        return seen
