"""The daemon's signals: SIGHUP reload, SIGTERM / SIGINT stop after the cycle, SIGUSR1 a
cycle now. Handlers only set flags (no locks, no logging: a handler runs between two
bytecodes of whatever the main thread was doing); the wait between cycles is a select()
on a self-pipe that Python's C-level handler writes to (signal.set_wakeup_fd), so a
signal ends the wait at once. Other threads (tests, a future socket) use `poke`.
"""

from __future__ import annotations

import os
import select
import signal

RELOAD, STOP, WAKE = "reload", "stop", "wake"
_ACTIONS = {signal.SIGHUP: RELOAD, signal.SIGTERM: STOP, signal.SIGINT: STOP, signal.SIGUSR1: WAKE}


class SignalFlags:
    def __init__(self):
        self.stop = self.reload = self.wake = False
        self._r = self._w = -1                  # the self-pipe, made on first use
        self._saved: dict[int, object] | None = None
        self._saved_fd = -1

    def open(self) -> None:
        """Make the self-pipe (the loop does, in the main thread, before it waits)."""
        if self._r < 0:
            self._r, self._w = os.pipe()
            os.set_blocking(self._r, False)
            os.set_blocking(self._w, False)

    def install(self) -> None:
        """Take the signals (main thread only)."""
        self.open()
        self._saved = {sig: signal.signal(sig, self._handle) for sig in _ACTIONS}
        self._saved_fd = signal.set_wakeup_fd(self._w, warn_on_full_buffer=False)

    def restore(self) -> None:
        if self._saved is not None:
            for sig, old in self._saved.items():
                signal.signal(sig, old)
            signal.set_wakeup_fd(self._saved_fd)
            self._saved = None

    def close(self) -> None:
        self.restore()
        if self._r >= 0:
            os.close(self._r)
            os.close(self._w)
            self._r = self._w = -1

    def _handle(self, signum, _frame) -> None:
        self.set(_ACTIONS[signum])

    def set(self, action: str) -> None:
        setattr(self, action, True)

    def poke(self, action: str) -> None:
        """Set a flag from another thread and end the wait."""
        self.set(action)
        if self._w >= 0:                        # else the loop has not started: it sees the flag
            try:
                os.write(self._w, b"\0")
            except BlockingIOError:
                pass

    def wait(self, timeout: float) -> None:
        """Sleep up to `timeout` seconds or until a signal or poke."""
        self.open()
        if timeout > 0 and not (self.stop or self.reload or self.wake):
            select.select([self._r], [], [], timeout)
        try:
            while os.read(self._r, 512):
                pass
        except BlockingIOError:
            pass
