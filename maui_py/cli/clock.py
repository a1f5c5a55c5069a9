"""The reading commands' clock: epoch seconds, and dates in the zone the store's clock names.

mauid's store counts time in epoch seconds. A simulator's store (`maui-sim TRACE --store`)
counts it as the replay does, in the trace's seconds; its cycle record keeps the trace's
clock (UnixStartTime and zone). So that every command prints the trace's real dates, as the
replay itself does, and --json gives epoch seconds as on mauid's store, the commands shift
every time of their data by the trace's start (`to_epoch`) and print dates in the trace's
zone (`maui_dates`). A trace without a start time (a synthetic workload) has no epoch: its
times stay the replay's seconds and print as `day N HH:MM:SS`.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

TIME_KEYS = frozenset({"now", "start", "end", "submit", "queue_time", "defer_until"})
"""The keys of the commands' data (and its nested lists and objects) that hold an instant of
the store's clock (a journal entry's `at` is already the wall clock's epoch seconds)."""


def store_clock(cycle_record: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The trace clock of a simulator's store (its raw cycle record), None for mauid's store."""
    from ..sim.timefmt import sim_clock
    return sim_clock(cycle_record)


def offset(clock: Mapping[str, Any] | None) -> int:
    """Seconds from the store's times to epoch seconds: the trace's start, else 0."""
    start = clock.get("unix_start") if clock else None
    return start if isinstance(start, int) and not isinstance(start, bool) else 0


TEXT_KEYS = frozenset({"reason", "message", "hold_reason", "defer_reason"})
"""The keys of the commands' data that hold a sentence for a person (a cycle's report reason)."""
_INSTANT = re.compile(r"\b(deferred until|reserved at|moved from) (\d{1,12})\b(?: to (\d{1,12})\b)?")
"""The instants the scheduler writes into its report reasons and journal, as store seconds."""


def to_epoch(data: Any, shift: int) -> Any:
    """`data` with every instant (TIME_KEYS) moved by `shift` seconds; the rest unchanged."""
    if not shift:
        return data
    if isinstance(data, Mapping):
        return {k: (v + shift if k in TIME_KEYS and isinstance(v, int) and not isinstance(v, bool)
                    else to_epoch(v, shift)) for k, v in data.items()}
    if isinstance(data, list):
        return [to_epoch(v, shift) for v in data]
    return data


def readable(data: Any, clock: Mapping[str, Any] | None) -> Any:
    """`data` with the instants inside its sentences (TEXT_KEYS: `deferred until 1795864996: ...`,
    `reserved at 25076`) written as dates, in the store's clock: a person never reads raw seconds."""
    if isinstance(data, Mapping):
        return {k: (sentence(v, clock) if k in TEXT_KEYS and isinstance(v, str) else readable(v, clock))
                for k, v in data.items()}
    if isinstance(data, list):
        return [readable(v, clock) for v in data]
    return data


def sentence(text: str, clock: Mapping[str, Any] | None) -> str:
    """One sentence with its store-second instants written as dates (see readable)."""
    if not any(c.isdigit() for c in text):
        return text
    shift = offset(clock)

    def when(m: re.Match) -> str:
        out = f"{m.group(1)} {date(clock, int(m.group(2)) + shift)}"
        return out + (f" to {date(clock, int(m.group(3)) + shift)}" if m.group(3) else "")
    return _INSTANT.sub(when, text)


def maui_dates(clock: Mapping[str, Any] | None) -> Callable[[int], str]:
    """MULToDString (`Mon Sep 23 14:00:31` and a newline) of an epoch instant: in the trace's
    zone, with the year, on a simulator's store (the replay's `day N ...` without a start
    time); Maui's local-time form otherwise."""
    from ..sim.timefmt import clock_from_dict
    trace = clock_from_dict(clock)
    if trace is None:
        from ..model.times import multodstring
        return multodstring
    start = offset(clock)
    return lambda t: trace.maui_date(int(t) - start)


def date(clock: Mapping[str, Any] | None, t: int) -> str:
    """maui_dates without the newline: for a line of text (the age line)."""
    return maui_dates(clock)(t).rstrip("\n")


def ctime(clock: Mapping[str, Any] | None, t: int) -> str:
    """ctime() (with the year) of an epoch instant, in the trace's zone on a simulator's store."""
    from ..sim.timefmt import clock_from_dict
    trace = clock_from_dict(clock)
    if trace is None or trace.unix_start is None:
        import time
        return time.ctime(t) if trace is None else trace.date(t)
    from datetime import datetime
    dt = datetime.fromtimestamp(int(t), trace.zone)
    return dt.strftime("%a %b ") + f"{dt.day:2d}" + dt.strftime(" %H:%M:%S %Y")
