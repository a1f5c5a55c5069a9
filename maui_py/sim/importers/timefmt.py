"""Timestamps and sizes as accounting logs spell them, read without the machine's time zone.

A Slurm or Torque timestamp without a zone (`2026-11-20T10:00:00`, `11/20/2026 10:00:00`)
is read as UTC: a replay only uses differences, and reading it in the local zone would make
the result depend on the machine (and jump at daylight-saving changes only there).
"""

from __future__ import annotations

import calendar
import re

from .workload import MAX_SECONDS

_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$", re.ASCII)
_MDY = re.compile(r"^(\d{2})/(\d{2})/(\d{4}) (\d{2}):(\d{2}):(\d{2})$", re.ASCII)
UNSET = frozenset({"", "unknown", "none", "n/a", "(null)", "0"})
"""Spellings of "not set" (compared in lower case: jobcomp writes `unknown`, sacct `Unknown`)."""
MAX_EPOCH = 4_102_444_800   # 2100-01-01: a later time is a corrupt field


def _seconds(y: int, mo: int, d: int, h: int, mi: int, s: int, text: str) -> int:
    if not (1970 <= y < 2100 and 1 <= mo <= 12 and 1 <= d <= 31 and h < 24 and mi < 60 and s < 61):
        raise ValueError(f"bad timestamp {text[:40]!r}")
    return calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))


def slurm_time(text: str) -> int | None:
    """`2026-11-20T10:00:00` (or epoch digits) -> seconds; None for Unknown/None/empty."""
    t = text.strip()
    if t.lower() in UNSET:
        return None
    if t.isascii() and t.isdigit() and len(t) <= 12:
        n = int(t)
        if n > MAX_EPOCH:
            raise ValueError(f"time {t!r} out of range")
        return n
    m = _ISO.match(t)
    if not m:
        raise ValueError(f"bad timestamp {t[:40]!r}")
    return _seconds(*map(int, m.groups()), text=t)


def torque_stamp(text: str) -> int:
    """The `MM/DD/YYYY HH:MM:SS` that starts a Torque accounting record."""
    m = _MDY.match(text.strip())
    if not m:
        raise ValueError(f"bad timestamp {text[:40]!r}")
    mo, d, y, h, mi, s = map(int, m.groups())
    return _seconds(y, mo, d, h, mi, s, text)


def epoch_field(text: str) -> int | None:
    """A Torque epoch field (ctime=, start=...); None when absent or 0."""
    t = text.strip()
    if t.lower() in UNSET:
        return None
    if not (t.isascii() and t.isdigit() and len(t) <= 12) or int(t) > MAX_EPOCH:
        raise ValueError(f"bad epoch {t[:40]!r}")
    return int(t)


def bounded_seconds(n: int | None, what: str) -> int:
    if n is None:
        return 0
    if not 0 <= n <= MAX_SECONDS:
        raise ValueError(f"{what} {n} s out of range")
    return n
