"""systemd's readiness protocol (sd_notify) for `Type=notify` units, without libsystemd.

systemd passes a datagram socket in $NOTIFY_SOCKET (a path, or an abstract address written
with a leading `@`); a service sends it newline-separated `KEY=VALUE` lines: READY=1 once it
is up, WATCHDOG=1 as a keep-alive when the unit sets WatchdogSec, STATUS=... for
`systemctl status`, STOPPING=1 when it shuts down. Without $NOTIFY_SOCKET (not under systemd)
every call does nothing. A send that fails is logged once and never stops the daemon.
"""

from __future__ import annotations

import logging
import os
import socket
from typing import Mapping

log = logging.getLogger("maui_py.daemon")
MAX_STATUS = 200
"""STATUS= text is cut to this many characters (systemctl shows one line)."""


def socket_address(value: str) -> str | bytes | None:
    """$NOTIFY_SOCKET as an AF_UNIX address: `@name` is the abstract `\\0name`; a path must be
    absolute. None for anything else (ignored, as libsystemd does)."""
    if value.startswith("@") and len(value) > 1:
        return b"\0" + value[1:].encode()
    if value.startswith("/"):
        return value
    return None


class Notifier:
    """Sends sd_notify messages to the socket named at construction (None: sends nothing)."""

    def __init__(self, address: str | bytes | None):
        self.address = address
        self.ready_sent = False
        self._failed = False

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> "Notifier":
        env = os.environ if environ is None else environ
        return cls(socket_address(env.get("NOTIFY_SOCKET", "")))

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, *lines: str) -> bool:
        """One datagram of `lines`; True if it was sent."""
        if self.address is None:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as s:
                s.connect(self.address)
                s.sendall("\n".join(lines).encode())
        except OSError as e:
            if not self._failed:
                log.warning("systemd notification socket %r: %s", self.address, e)
                self._failed = True
            return False
        return True

    def cycle_done(self, status: str) -> None:
        """After every cycle, whatever its outcome: READY=1 the first time (the daemon is up
        even while the resource manager is down: the status says so), WATCHDOG=1 always."""
        lines = ["WATCHDOG=1", f"STATUS={status[:MAX_STATUS]}"]
        if not self.ready_sent:
            lines.insert(0, "READY=1")
        if self.send(*lines):
            self.ready_sent = True

    def stopping(self) -> None:
        self.send("STOPPING=1", "STATUS=stopping")


def watchdog_seconds(environ: Mapping[str, str] | None = None) -> float | None:
    """The unit's WatchdogSec ($WATCHDOG_USEC, when $WATCHDOG_PID is unset or this process)."""
    env = os.environ if environ is None else environ
    usec, pid = env.get("WATCHDOG_USEC", ""), env.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0 or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 1e6
