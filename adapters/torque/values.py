"""Torque's scalar value formats: sizes, durations, slot lists, exec_host, node job lists.

Every function is pure and raises ValueError on text it cannot read; the record parsers
(parse.py) turn that into a skipped record. Each is linear in the length of its input.
Numbers beyond maui_py.rm.check's bounds (a 400-digit `mem`, a century-long walltime) are
values they cannot read.
"""

from __future__ import annotations

import re

from maui_py.rm.check import MAX_SECONDS

_SIZE = re.compile(r"(\d+)([kmgtp]?)([bw]?)", re.IGNORECASE | re.ASCII)
_POWER = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
_WORD = 8  # Torque's "w" suffix counts 64-bit words
MAX_DIGITS = 24
"""The longest number a size may have: 10**24 bytes is a yottabyte, more than any job asks."""


def size_mb(text: str, *, round_up: bool = True) -> int:
    """A Torque size ("4gb", "512mb", "100kb", "2048", "1tb", "8kw") in MB (2**20 bytes).

    No suffix means bytes. Requests round up (never ask for less than the job said),
    node capacities round down (never offer more than the node has).
    """
    m = _SIZE.fullmatch(text.strip())
    if not m:
        raise ValueError(f"bad size {text[:40]!r}")
    value, power, unit = m.groups()
    if len(value) > MAX_DIGITS:
        raise ValueError(f"size of {len(value)} digits")
    nbytes = int(value) * 1024 ** _POWER[power.lower()] * (_WORD if unit.lower() == "w" else 1)
    return -(-nbytes // 2**20) if round_up else nbytes // 2**20


def duration_s(text: str) -> int:
    """A Torque duration in seconds: "[[[dd:]hh:]mm:]ss[.frac]", e.g. "23:59:00", "3600",
    "335:34:49" (hours may exceed 24). Fractions of a second are dropped."""
    parts = text.strip().split(":")
    if not 1 <= len(parts) <= 4:
        raise ValueError(f"bad duration {text[:40]!r}")
    parts[-1] = parts[-1].split(".", 1)[0]
    if not all(p.isascii() and p.isdigit() and len(p) <= MAX_DIGITS for p in parts):
        raise ValueError(f"bad duration {text[:40]!r}")
    total = 0
    for part, scale in zip(reversed(parts), (1, 60, 3600, 86400)):
        total += int(part) * scale
    if total > MAX_SECONDS:
        raise ValueError(f"duration {text[:40]!r} longer than 100 years")
    return total


def slot_count(text: str) -> int:
    """How many slots a list like "0", "0-3" or "0,2,4-5" names."""
    count = 0
    for item in text.split(","):
        lo, sep, hi = item.strip().partition("-")
        if not (lo.isascii() and lo.isdigit()) or (sep and not (hi.isascii() and hi.isdigit())) \
                or len(lo) > MAX_DIGITS or len(hi) > MAX_DIGITS:
            raise ValueError(f"bad slot list {text[:40]!r}")
        if sep and int(hi) < int(lo):
            raise ValueError(f"bad slot range {item!r}")
        count += int(hi) - int(lo) + 1 if sep else 1
    return count


def exec_host(text: str) -> tuple[tuple[str, int], ...]:
    """exec_host ("n1/0+n1/1+n2/0-3", "n1/0-3,5+n2/0", or a bare "n1") as (host, slots)
    pairs, one per host in order of first appearance."""
    slots: dict[str, int] = {}
    for item in text.strip().split("+"):
        host, sep, spec = item.strip().partition("/")
        if not host:
            raise ValueError(f"bad exec_host {text!r}")
        slots[host] = slots.get(host, 0) + (slot_count(spec) if sep else 1)
    return tuple(slots.items())


def node_jobs(text: str) -> dict[str, int]:
    """pbsnodes' <jobs> ("0/12.srv, 1/12.srv" or Torque 5+'s "0-3/12.srv,4/13.srv") as
    job id -> slots used. Slot lists with commas ("0,2/12.srv") are joined back up."""
    used: dict[str, int] = {}
    pending: list[str] = []
    for token in text.split(","):
        token = token.strip()
        if not token:
            continue
        spec, sep, job = token.partition("/")
        if not sep:
            pending.append(spec)
            continue
        if not job:
            raise ValueError(f"bad job list {text!r}")
        used[job] = used.get(job, 0) + slot_count(",".join(pending + [spec]))
        pending = []
    if pending:
        raise ValueError(f"bad job list {text!r}")
    return used


def status_fields(text: str) -> dict[str, str]:
    """pbsnodes' <status> "k=v,k=v,..." as a dict. A piece without "=" belongs to the value
    before it (uname and similar free text may hold commas)."""
    out: dict[str, str] = {}
    last = None
    for piece in text.split(","):
        key, sep, value = piece.partition("=")
        if sep and key and " " not in key:
            out[key] = value
            last = key
        elif last is not None:
            out[last] += "," + piece
    return out
