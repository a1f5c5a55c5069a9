"""Fault injection for the crash-safety tests; inert unless MAUID_FAULT is set.

    MAUID_FAULT="after-save@2"              SIGKILL itself at that point of its 2nd cycle
    MAUID_FAULT="mid-save@3,after-apply@5"  several points
    MAUID_FAULT="after-save@1:pause=3"      sleep 3 s there instead (a test acts meanwhile)

Points, in the order a cycle reaches them: after-snapshot, after-cycle (decided, nothing
saved), mid-save (inside the store transaction, before COMMIT), after-save (committed,
nothing pushed), mid-apply (half of the starts pushed), after-apply (pushed, failures
not yet saved). Cycles are counted from 1 in each daemon process. A kill here is exactly
`kill -9` at that instant: nothing is flushed or cleaned up.
"""

from __future__ import annotations

import os
import signal
import time

ENV = "MAUID_FAULT"
POINTS = ("after-snapshot", "after-cycle", "mid-save", "after-save", "mid-apply", "after-apply")


def parse(spec: str) -> dict[tuple[str, int], str]:
    """{(point, cycle): action}; ValueError on an unknown point or a malformed item."""
    out = {}
    for item in filter(None, (s.strip() for s in spec.split(","))):
        where, _, action = item.partition(":")
        point, _, cycle = where.partition("@")
        if point not in POINTS:
            raise ValueError(f"{ENV}: unknown point {point!r} (known: {', '.join(POINTS)})")
        if action and not action.startswith("pause="):
            raise ValueError(f"{ENV}: unknown action {action!r} (kill, the default, or pause=<seconds>)")
        out[(point, int(cycle or 1))] = action or "kill"
    return out


class Faults:
    def __init__(self, spec: str | None = None):
        self.plan = parse(spec if spec is not None else os.environ.get(ENV, ""))

    def armed(self, point: str, cycle: int) -> bool:
        return (point, cycle) in self.plan

    def hit(self, point: str, cycle: int) -> None:
        action = self.plan.get((point, cycle))
        if action is None:
            return
        if action.startswith("pause="):
            time.sleep(float(action.split("=", 1)[1]))
            return
        die()


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(60)                            # never reached: SIGKILL cannot be caught
