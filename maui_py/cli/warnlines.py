"""Warnings about skipped input lines, printed for a person: `file:line: message`, without
Python's `.../simulate.py:200: SwfFormatWarning:` prefix, and a count instead of a wall of
lines when there are many (the first few one by one, then `and N more ...`)."""

from __future__ import annotations

import re
import sys
from typing import IO, Iterable

SHOWN = 10
"""Line warnings printed one by one; the rest are counted in one line."""

_LINE = re.compile(r"^.+:\d+: ")
_MORE = re.compile(r"^(?P<name>.+): (?P<more>\d+) more malformed .* \((?P<all>\d+) in all\)$")


def warning_lines(messages: Iterable[str], shown: int = SHOWN) -> list[str]:
    """The lines to print for these warning messages, in order: the first `shown` that name a
    file and line, then one `and N more` line counting the others (including those an
    importer already summed up as "N more malformed ... lines skipped"); any other message
    as it is."""
    out: list[str] = []
    listed = hidden = 0
    for text in messages:
        text = str(text)
        more = _MORE.match(text)
        if more:
            hidden += int(more["more"])
        elif _LINE.match(text):
            if listed < shown:
                out.append(text)
                listed += 1
            else:
                hidden += 1
        else:
            out.append(text)
    if hidden:
        out.append(f"... and {hidden} more skipped lines like these ({listed + hidden} in all)")
    return out


def print_warnings(caught: Iterable, stream: IO[str] | None = None, shown: int = SHOWN) -> None:
    """Print warnings.catch_warnings(record=True)'s list with warning_lines."""
    stream = stream or sys.stderr
    for line in warning_lines((w.message for w in caught), shown):
        print(line, file=stream)
