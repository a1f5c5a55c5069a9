"""Maui's ways of writing times: durations as [D:]HH:MM:SS, dates as ctime's first 19 chars."""

from __future__ import annotations

import time as _time

INFINITE_SECONDS = 8_640_000
"""Maui prints durations of 100 days and more as INFINITY (MULToTString)."""


def duration(seconds: int) -> str:
    """Maui's MULToTString without padding: `2:44:11`, `1:05:57:31`, `00:26:40`."""
    s = int(seconds)
    if s >= INFINITE_SECONDS:
        return "INFINITY"
    if s <= -INFINITE_SECONDS // 10:
        return "-INFINITY"
    if s < 0:
        return "-" + duration(-s)
    d, rest = divmod(s, 86400)
    h, rest = divmod(rest, 3600)
    m, sec = divmod(rest, 60)
    if d:
        return f"{d}:{h:02d}:{m:02d}:{sec:02d}"
    if h:
        return f"{h}:{m:02d}:{sec:02d}"
    return f"00:{m:02d}:{sec:02d}"


def date(epoch: int) -> str:
    """The first 19 characters of ctime() in local time: `Thu Sep  1 15:02:50`."""
    return _time.ctime(int(epoch))[:19]
