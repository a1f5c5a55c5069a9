"""Times of a replay written for people: durations as `3d 04:12:00`, instants as dates.

A trace's clock counts seconds from its header's UnixStartTime, in the site's time zone
(TimeZoneString, an IANA name such as Europe/Stockholm; old traces also give TimeZone, an
offset in seconds). TraceClock turns a simulated instant into the site's wall-clock date, so
a report says "1996-09-23 14:00:31 CEST", not a date in 1970. A workload without a start
time (a generated one, lublin_256) gets relative instants: "day 3 04:12:00" (day 1 is the
day of time 0). The zone is always an explicit input, never $TZ or the machine's zone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Any, Callable, Mapping
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DAY = 86400
LAST_START = 32_503_680_000
"""Latest UnixStartTime taken (year 3000): beyond it a header is not a real trace's."""
MAX_OFFSET = 18 * 3600
"""Largest UTC offset a TimeZone field may give (any real zone's is within 14 h)."""


def human_duration(seconds: float) -> str:
    """`3d 04:12:00`, `04:12:00`, `-00:05:00`: whole seconds, days when there are any."""
    s = int(round(seconds))
    sign = "-" if s < 0 else ""
    days, rest = divmod(abs(s), DAY)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    clock = f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{sign}{days}d {clock}" if days else f"{sign}{clock}"


def short_duration(seconds: float) -> str:
    """The same, shortest form for a plot axis: `45s`, `12m`, `3h`, `2.5d`."""
    s = abs(float(seconds))
    sign = "-" if seconds < 0 else ""
    for unit, size in (("d", DAY), ("h", 3600), ("m", 60)):
        if s >= size:
            value = s / size
            return f"{sign}{value:.0f}{unit}" if value >= 10 or value.is_integer() else f"{sign}{value:.1f}{unit}"
    return f"{sign}{s:.0f}s"


@dataclass(frozen=True)
class TraceClock:
    """Simulated seconds -> the site's dates. unix_start None: relative instants."""

    unix_start: int | None = None
    zone: tzinfo = timezone.utc
    zone_name: str = "UTC"

    @property
    def absolute(self) -> bool:
        return self.unix_start is not None

    def _dt(self, t: int) -> datetime | None:
        if self.unix_start is None:
            return None
        try:
            return datetime.fromtimestamp(self.unix_start + int(t), self.zone)
        except (OverflowError, OSError, ValueError):
            return None

    def _relative(self, t: int) -> str:
        days, rest = divmod(int(t), DAY)
        return f"day {days + 1} {human_duration(rest)}"

    def date(self, t: int) -> str:
        """`1996-09-23 14:00:31 CEST`, or `day 3 04:12:00` without a start time."""
        dt = self._dt(t)
        return self._relative(t) if dt is None else dt.strftime("%Y-%m-%d %H:%M:%S ") + (dt.tzname() or "")

    def day(self, t: int) -> str:
        """`1996-09-23`, or `day 3`: a plot axis label."""
        dt = self._dt(t)
        return f"day {int(t) // DAY + 1}" if dt is None else dt.strftime("%Y-%m-%d")

    def maui_date(self, t: int) -> str:
        """Maui's MULToDString layout (`Mon Sep 23 14:00:31` and a newline, as checkjob
        prints it) in the site's zone, with the year when it is not obvious: 1996 is."""
        dt = self._dt(t)
        if dt is None:
            return self._relative(t) + "\n"
        return dt.strftime("%a %b ") + f"{dt.day:2d}" + dt.strftime(" %H:%M:%S %Y") + "\n"

    def describe(self) -> str:
        """What the dates mean, for a report header."""
        if self.unix_start is None:
            return "relative times (the workload has no UnixStartTime): day 1 starts at time 0"
        return f"dates in {self.zone_name}, from the trace's UnixStartTime {self.unix_start}"

    def as_dict(self) -> dict[str, Any]:
        """What a store or JSON file keeps to rebuild the clock (clock_from_dict)."""
        return {"unix_start": self.unix_start, "time_zone": self.zone_name}


def _zone(name: str | None, offset: int | None) -> tuple[tzinfo, str, str | None]:
    """(zone, its name, a warning or None) from a TimeZoneString and a TimeZone offset."""
    warning = None
    if name:
        try:
            return ZoneInfo(name), name, None
        except (ZoneInfoNotFoundError, ValueError):
            warning = f"unknown time zone {name!r}"
    if offset is not None and abs(offset) <= MAX_OFFSET:
        hours, rest = divmod(abs(offset), 3600)
        label = f"UTC{'-' if offset < 0 else '+'}{hours:02d}:{rest // 60:02d}"
        zone = timezone(timedelta(seconds=offset), label)
        return zone, label, (f"{warning}: using the TimeZone offset {label}" if warning else None)
    return timezone.utc, "UTC", (f"{warning}: using UTC" if warning else None)


def clock_for(unix_start: int | None, zone_name: str | None = None,
              zone_offset: int | None = None) -> tuple[TraceClock, str | None]:
    """A TraceClock and a warning (None when all is well). A start of 0 or less, or after
    the year 3000, is no real trace's: relative times."""
    if unix_start is None or not 0 < unix_start <= LAST_START:
        return TraceClock(), None
    zone, label, warning = _zone(zone_name, zone_offset)
    return TraceClock(unix_start, zone, label), warning


def clock_from_header(header) -> tuple[TraceClock, str | None]:
    """The clock of an SwfHeader (maui_py.sim.swf): UnixStartTime, TimeZoneString, TimeZone."""
    return clock_for(header.unix_start_time, header.time_zone, header.time_zone_offset)


def clock_from_dict(data: Mapping[str, Any] | None) -> TraceClock | None:
    """The clock TraceClock.as_dict wrote (in a store's cycle record, say), None if absent
    or not a clock's; a bad zone falls back to UTC."""
    if not isinstance(data, Mapping) or "unix_start" not in data:
        return None
    start, name = data.get("unix_start"), data.get("time_zone")
    if isinstance(start, bool) or not (start is None or isinstance(start, int)):
        return None
    return clock_for(start, name if isinstance(name, str) else None)[0]


def sim_clock(cycle_record: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The trace clock a store maui-sim wrote keeps in its cycle record (the raw
    StoreReader.kv()["cycle"]), as plain data for --json; None for a daemon's store or a
    store of an older maui-sim."""
    if not isinstance(cycle_record, Mapping) or cycle_record.get("rm") != "sim":
        return None
    clock = cycle_record.get("clock")
    return dict(clock) if clock_from_dict(clock) is not None else None


def maui_dates(clock: Mapping[str, Any] | None) -> Callable[[int], str]:
    """MULToDString for the commands: in the trace's dates when `clock` (sim_clock) is given,
    else Maui's own local-time dates (model.times.multodstring)."""
    c = clock_from_dict(clock)
    if c is None:
        from ..model.times import multodstring
        return multodstring
    return c.maui_date
