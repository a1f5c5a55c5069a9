"""Calling the resource-manager adapter with a deadline, off the main thread.

Adapters time out each command they run (RMCFG TIMEOUT), so a hung `squeue` already comes
back as RMError. This is the backstop for everything else that can hang in an adapter
(a stuck NFS read, a library call): the call runs in a worker thread and the daemon waits
at most `timeout` seconds. A call that does not return in time raises RMTimeout; its thread
is left to finish on its own and, while it runs, further calls raise RMBusy instead of
running two calls into one adapter at once.

`observe(what, seconds, ok)`, when given, hears about every call (the metrics): its wall
time (None when it could not run: RMBusy) and whether it returned.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from ..rm.protocol import RMError


class RMTimeout(RMError):
    """The adapter did not answer in time."""


class RMBusy(RMError):
    """An earlier call that timed out is still running."""


class RMCaller:
    def __init__(self, timeout: float, observe: Callable[[str, float | None, bool], None] | None = None):
        self.timeout = timeout
        self.observe = observe
        self._stuck: threading.Thread | None = None
        self._stuck_what = ""

    def call(self, what: str, fn: Callable[..., Any], *args: Any) -> Any:
        """fn(*args); its exception, RMTimeout or RMBusy when it cannot."""
        if self._stuck is not None:
            if self._stuck.is_alive():
                self._observed(what, None, False)
                raise RMBusy(f"{self._stuck_what} from an earlier cycle has still not returned")
            self._stuck = None
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["value"] = fn(*args)
            except BaseException as e:          # handed to the caller
                box["error"] = e

        t = threading.Thread(target=work, name=f"rm-{what}", daemon=True)
        t0 = time.perf_counter()
        t.start()
        t.join(self.timeout)
        if t.is_alive():
            self._stuck, self._stuck_what = t, what
            self._observed(what, time.perf_counter() - t0, False)
            raise RMTimeout(f"{what}: no answer within {self.timeout:g} s")
        self._observed(what, time.perf_counter() - t0, "error" not in box)
        if "error" in box:
            raise box["error"]
        return box["value"]

    def _observed(self, what: str, seconds: float | None, ok: bool) -> None:
        if self.observe is not None:
            self.observe(what, seconds, ok)
