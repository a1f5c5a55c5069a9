"""Maui's ways of writing times (MUtil.c): MULToTString for durations, MULToDString for dates.

    multotstring(9851)  -> "2:44:11"        multotstring(107851) -> "1:05:57:31"
    multotstring(1600)  -> "00:26:40"       multotstring(-9851)  -> "-2:44:11"
    multotstring(8_640_000) -> "  INFINITY" (with Maui's two leading blanks)
    multodstring(t)     -> "Thu Sep  1 15:02:50\\n" (ctime's first 19 characters AND a newline)

The commands print these through Maui's printf widths (`%11s`), so the exact strings matter:
the newline that ends every MULToDString is why so many of Maui's lines end at a date.
"""

from __future__ import annotations

import time as _time

INFINITE_SECONDS = 8_640_000
"""Maui prints durations of 100 days and more as INFINITY (MULToTString)."""
NEG_INFINITE_SECONDS = -864_000
"""...and durations of -10 days and less as -INFINITY."""


def multotstring(seconds: int) -> str:
    """MULToTString: `[D]D:HH:MM:SS` without padding, hours zero-padded only after days or
    when they have two digits ("00" when zero); `  INFINITY` / ` -INFINITY` past the limits."""
    s = int(seconds)
    if s >= INFINITE_SECONDS:
        return "  INFINITY"
    if s <= NEG_INFINITE_SECONDS:
        return " -INFINITY"
    sign = "-" if s < 0 else ""
    s = abs(s)
    minutes, sec = divmod(s, 60)
    hours, mins = divmod(minutes, 60)
    days, hrs = divmod(hours, 24)
    if days:
        return f"{sign}{days}:{hrs:02d}:{mins:02d}:{sec:02d}"
    hh = f"{hrs:02d}" if hours >= 10 or hrs == 0 else str(hrs)
    return f"{sign}{hh}:{mins:02d}:{sec:02d}"


def multodstring(epoch: int) -> str:
    """MULToDString: the first 19 characters of ctime() in local time, plus a newline."""
    return _time.ctime(int(epoch))[:19] + "\n"


def duration(seconds: int) -> str:
    """MULToTString without its padding: `2:44:11`, `1:05:57:31`, `00:26:40`, `INFINITY`."""
    return multotstring(seconds).strip()


def date(epoch: int) -> str:
    """The first 19 characters of ctime() in local time: `Thu Sep  1 15:02:50`."""
    return multodstring(epoch)[:19]


def span_text(start: int, end: int) -> str:
    """`from Thu Sep  1 15:02:50 to Thu Sep  1 15:32:50 (00:30:00)`: a span as a person reads
    it; Maui's endless span (100000000 s or more) reads `with no end`."""
    if end - start >= 100_000_000:
        return f"from {date(start)} with no end"
    return f"from {date(start)} to {date(end)} ({duration(end - start)})"
