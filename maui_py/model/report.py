"""Where a job stands after a cycle: the status of its one-line report (checkjob, showq)."""

from __future__ import annotations

from enum import StrEnum


class ReportStatus(StrEnum):
    """JobReport.status. The values are what the store keeps and `--json` shows."""

    STARTED = "started"
    RESERVED = "reserved"
    WAITING = "waiting"
    BLOCKED = "blocked"
    DEFERRED = "deferred"
    HELD = "held"
    RUNNING = "running"
