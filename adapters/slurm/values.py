"""Small converters for the values Slurm prints: memory, times, gres, TRES, node states.

Shared by the JSON and the `scontrol show -o` readers so both map a value the same way.
Each function takes one value and is linear in its length. A value that cannot be read
raises ValueError; the caller skips the record that holds it (with a RecordWarning). That
includes values no cluster has (non-finite floats, integers of hundreds of digits, negative
or century-long time limits): the bounds are maui_py.rm.check's, which the snapshot check
applies again to whatever reaches the cycle.
"""

from __future__ import annotations

import math
import re
from datetime import datetime

from maui_py.model import NodeState
from maui_py.rm.check import MAX_EPOCH, MAX_MEM_MB, MAX_SECONDS

NO_VAL = 0xFFFFFFFE          # Slurm's "not set" for 32-bit fields (4294967294)
INFINITE = 0xFFFFFFFF        # Slurm's "unlimited" for 32-bit fields
UNLIMITED_WALLCLOCK = 365 * 86400
"""A job without a time limit (UNLIMITED, or none with MaxTime=INFINITE) is planned as if it
asked for 365 days: long enough that nothing is backfilled behind it by mistake, short enough
that end times stay ordinary integers."""

MAX_INT = 1 << 63
"""Integers at or beyond this (in absolute value) are garbage: they would not fit the store."""

NULLS = frozenset({"", "(null)", "None", "N/A", "n/a", "Unknown", "UNKNOWN", "null"})

_MEM_UNITS = {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024, "P": 1024 ** 3}
_COUNT_UNITS = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "T": 1024 ** 4}


def is_null(value: object) -> bool:
    return value is None or (isinstance(value, str) and value.strip() in NULLS)


def text(value: object) -> str:
    """A string field with Slurm's null spellings turned into ""."""
    return "" if is_null(value) else str(value).strip()


def opt_int(value: object) -> int | None:
    """An integer, or None for null / NO_VAL / INFINITE. ValueError on anything else."""
    if is_null(value) or isinstance(value, bool):
        return None
    n = int(value) if isinstance(value, int) else int(str(value).strip())
    if not -MAX_INT < n < MAX_INT:
        raise ValueError(f"integer of {len(str(n))} digits")
    return None if n in (NO_VAL, INFINITE) else n


def _finite(x: float, what: str) -> float:
    if not math.isfinite(x):
        raise ValueError(f"{what} {x!r} is not a finite number")
    return x


def _bounded(n: int, low: int, high: int, what: str) -> int:
    if not low <= n <= high:
        raise ValueError(f"{what} {n if abs(n) < MAX_INT else 'of ' + str(len(str(n))) + ' digits'}"
                         f" out of range [{low}, {high}]")
    return n


def mem_mb(value: object) -> int | None:
    """`400M`, `8G`, `1000` (MB), 400 -> MB; None for null. ValueError otherwise."""
    if is_null(value):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = _finite(value, "memory") if isinstance(value, float) else value
        if int(value) in (NO_VAL, INFINITE):
            return None
        return _bounded(int(value), 0, MAX_MEM_MB, "memory (MB)")
    s = str(value).strip().upper()
    unit = _MEM_UNITS.get(s[-1:])
    number = _finite(float(s[:-1]) if unit is not None else float(s), "memory")
    mb = _finite(number * (unit if unit is not None else 1), "memory")
    if not 0 <= mb <= MAX_MEM_MB:
        raise ValueError(f"memory {s[:40]!r} out of range")
    return int(round(mb))


def time_limit_seconds(value: object) -> int | None:
    """Slurm time strings -> seconds; None for UNLIMITED / INFINITE / null.

    Forms: `M`, `M:S`, `H:M:S`, `D-H`, `D-H:M`, `D-H:M:S` (scontrol prints `[D-]HH:MM:SS`).
    An int is minutes (the JSON `time_limit`).
    """
    if is_null(value):
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        if value in (NO_VAL, INFINITE):
            return None
        return _bounded(value * 60, 0, MAX_SECONDS, "time limit (s)")
    s = str(value).strip()
    if s.upper() in ("UNLIMITED", "INFINITE", "PARTITION_LIMIT"):
        return None
    days, dash, rest = s.partition("-")
    if not dash:
        days, rest = "0", s
    fields = [int(x) for x in rest.split(":")]
    if dash:
        fields = (fields + [0, 0])[:3]           # D-H, D-H:M, D-H:M:S
        h, m, sec = fields
    elif len(fields) == 1:
        h, m, sec = 0, fields[0], 0               # minutes
    elif len(fields) == 2:
        h, (m, sec) = 0, fields                   # minutes:seconds
    elif len(fields) == 3:
        h, m, sec = fields
    else:
        raise ValueError(f"bad time {s[:40]!r}")
    if min(h, m, sec) < 0:
        raise ValueError(f"negative time {s[:40]!r}")
    return _bounded(((int(days) * 24 + h) * 60 + m) * 60 + sec, 0, MAX_SECONDS, "time limit (s)")


def epoch(value: object) -> int | None:
    """JSON epoch ints (0 = unset) or scontrol local times `2026-11-21T16:19:59`."""
    if is_null(value):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        n = int(_finite(value, "time")) if isinstance(value, float) else value
    elif (s := str(value).strip()).isdigit():
        n = int(s)
    else:
        n = int(datetime.strptime(s, "%Y-%m-%dT%H:%M:%S").timestamp())
    return _bounded(n, 0, MAX_EPOCH, "time") or None


def _count(s: str) -> int:
    s = s.strip().upper()
    mult = _COUNT_UNITS.get(s[-1:])
    return int(s[:-1]) * mult if mult else int(s)


def split_outside_parens(s: str, sep: str = ",") -> list[str]:
    """`gpu:2(S:0,1),mps:100` -> ['gpu:2(S:0,1)', 'mps:100']."""
    out, depth, cur = [], 0, []
    for ch in s:
        depth += (ch == "(") - (ch == ")")
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return [p.strip() for p in out if p.strip()]


def gres(value: object) -> dict[str, int]:
    """Gres strings (node `Gres`, job `gres_detail`) -> {name: count}, types summed.

    `gpu:2`, `gpu:tesla:2`, `gpu:tesla:2(S:0-1)`, `gpu:1(IDX:0)`, `gpu:2,mps:100`,
    `gpu` (one); `(null)` and `N/A` give {}.
    """
    out: dict[str, int] = {}
    if is_null(value):
        return out
    for item in split_outside_parens(str(value)):
        parts = re.sub(r"\(.*\)$", "", item).strip().split(":")
        name = parts[0].strip()
        if not name:
            continue
        count = 1
        if len(parts) > 1 and re.fullmatch(r"\d+[KMGT]?", parts[-1].strip(), re.I):
            count = _count(parts[-1])
        out[name] = out.get(name, 0) + count
    return out


def tres_gres(value: object) -> dict[str, int]:
    """The gres part of a TRES request string (`tres_per_node`, `tres_per_task`,
    `TresPerNode=`): `gres:gpu:1` (22.05), `gres/gpu:1`, `gres/gpu=1` (later versions).
    Other TRES (`cpu:2`, `license/x`) are not gres and are left out."""
    out: dict[str, int] = {}
    if is_null(value):
        return out
    for item in split_outside_parens(str(value)):
        if item.startswith(("gres:", "gres/")):
            for name, count in gres(item[5:].replace("=", ":")).items():
                out[name] = out.get(name, 0) + count
    return out


_FLAG_CHARS = {"*": "NOT_RESPONDING", "~": "POWERED_DOWN", "#": "POWERING_UP",
               "%": "POWERING_DOWN", "$": "MAINTENANCE", "@": "REBOOT_REQUESTED",
               "^": "REBOOT_ISSUED", "!": "POWER_DOWN", "-": "PLANNED"}
_DOWN_FLAGS = frozenset({"NOT_RESPONDING", "POWERED_DOWN", "POWERING_DOWN", "POWER_DOWN",
                         "POWERING_UP", "REBOOT_ISSUED", "INVALID_REG", "INVAL"})
_DRAIN_FLAGS = frozenset({"DRAIN", "FAIL"})
_BASE = {"IDLE": NodeState.IDLE, "MIXED": NodeState.RUNNING, "ALLOCATED": NodeState.BUSY,
         "ALLOC": NodeState.BUSY, "COMPLETING": NodeState.BUSY, "DOWN": NodeState.DOWN,
         "ERROR": NodeState.DOWN, "FUTURE": NodeState.DOWN, "FAIL": NodeState.DRAINED,
         "FAILING": NodeState.DRAINING, "DRAINED": NodeState.DRAINED,
         "DRAINING": NodeState.DRAINING, "DRAIN": NodeState.DRAINED,
         "UNKNOWN": NodeState.UNKNOWN, "INVAL": NodeState.DOWN}


def node_state(state: str, flags: list[str] | tuple[str, ...] = ()) -> NodeState:
    """Slurm node state (+ flags) -> NodeState.

    `state` is the base state in either spelling (`idle`, `IDLE+DRAIN`, `DOWN*`,
    `MIXED+DRAIN`); `flags` are the JSON `state_flags`. DOWN, powered-down and invalid
    registrations -> DOWN; NOT_RESPONDING alone (`idle*`) and UNKNOWN -> UNKNOWN; DRAIN/FAIL on a node with nothing allocated -> DRAINED,
    with jobs still on it -> DRAINING; otherwise IDLE / MIXED (RUNNING) / ALLOCATED (BUSY).
    """
    all_flags = {f.strip().upper() for f in flags}
    words = []
    for word in state.strip().upper().split("+"):
        while word and word[-1] in _FLAG_CHARS:
            all_flags.add(_FLAG_CHARS[word[-1]])
            word = word[:-1]
        words.append(word)
    base, *more = words
    all_flags.update(more)
    if base not in _BASE:
        return NodeState.UNKNOWN
    mapped = _BASE[base]
    if mapped is NodeState.DOWN or all_flags & (_DOWN_FLAGS - {"NOT_RESPONDING"}):
        return NodeState.DOWN
    if all_flags & _DRAIN_FLAGS:
        return NodeState.DRAINED if mapped is NodeState.IDLE else NodeState.DRAINING
    # slurmd silent but not (yet) DOWN, e.g. just after a slurmctld restart: not known yet
    return NodeState.UNKNOWN if "NOT_RESPONDING" in all_flags else mapped
