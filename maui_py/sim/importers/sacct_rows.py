"""Splitting a `sacct -P` line into its columns when a free-text field holds `|`.

sacct does not escape `|` inside a field, and users choose some fields' text: a job name
(`sbatch -J 'a|victim|...'`), a constraint with alternatives (`-C 'fast|slow'`). Joining the
extra columns back into one field would let a job name shift every field after it (the row
becomes another user's job), so a row with more columns than the header is read only when
exactly one way of giving the extra `|`s to the free-text fields leaves every other field
looking like what sacct prints there (a timestamp, a count, a TRES list, a state...). The
real reading always passes these checks, so one passing reading is the real one; when
several pass (a name built to look like the fields after it) or none does, the row is
skipped with a warning naming file:line. A row with fewer columns is skipped too.
"""

from __future__ import annotations

import re
from itertools import combinations
from typing import Sequence

FREE_TEXT = frozenset({"JobName", "Constraints", "Dependency", "Comment", "AdminComment",
                       "SystemComment", "WorkDir", "SubmitLine", "Reason", "Extra", "WCKey",
                       "Reservation", "Cluster", "Licenses", "Container"})
"""Fields whose text a user may choose; a field not in FIELD_SHAPES is taken as free text too."""

_NAME = r"[^\s|]*"
_TIME = r"(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d|\d{1,12}|None|Unknown|)"
_COUNT = r"\d*"
_TRES = r"(?:[\w/:.\-]+=[\w.\-]+(?:,[\w/:.\-]+=[\w.\-]+)*)?"
FIELD_SHAPES = {
    "JobID": r"\d+(?:[_+][\w\[\]\-,%:]*)?(?:\.[\w\-]+)?",
    "JobIDRaw": r"\d+(?:[_+.][\w\-]*)*",
    "User": _NAME, "Group": _NAME, "Account": _NAME, "Partition": _NAME, "QOS": _NAME,
    "Submit": _TIME, "Eligible": _TIME, "Start": _TIME, "End": _TIME,
    "Timelimit": r"(?:UNLIMITED|Partition_Limit|INVALID|(?:\d+-)?\d+(?::\d+){0,2}|)",
    "NNodes": _COUNT, "NCPUS": _COUNT, "AllocCPUS": _COUNT, "ReqCPUS": _COUNT,
    "ReqMem": r"(?:\d+(?:\.\d+)?[KMGTP]?[nc]?|)", "ReqTRES": _TRES, "AllocTRES": _TRES,
    "NodeList": r"(?:None assigned|\(null\)|[\w.\-\[\],]*)",
    "State": r"(?:[A-Z_]+(?: by \d+)?|)", "ExitCode": r"(?:\d+:\d+|)",
    "Elapsed": r"(?:(?:\d+-)?\d+(?::\d+){0,2}|)", "ElapsedRaw": _COUNT,
    "UID": _COUNT, "GID": _COUNT,
}
_SHAPES = {k: re.compile(v, re.ASCII) for k, v in FIELD_SHAPES.items()}
MAX_EXTRA = 64
MAX_READINGS = 4096
"""Bounds on a row's extra columns and on the readings tried (free fields x extra `|`s)."""


def _fits(fields: Sequence[str], cols: Sequence[str]) -> bool:
    return all(_SHAPES[f].fullmatch(c.strip()) is not None
               for f, c in zip(fields, cols) if f in _SHAPES)


def _readings(fields: Sequence[str], cols: list[str], free: list[int]):
    """Every split of cols over fields giving the extra columns to the free fields."""
    extra = len(cols) - len(fields)
    # stars and bars: where the extra `|`s go among the free fields
    for bars in combinations(range(extra + len(free) - 1), len(free) - 1):
        counts, last = [], -1
        for b in (*bars, extra + len(free) - 1):
            counts.append(b - last - 1)
            last = b
        out, k, share = [], 0, dict(zip(free, counts))
        for i in range(len(fields)):
            n = share.get(i, 0)
            out.append("|".join(cols[k:k + n + 1]))
            k += n + 1
        yield out


def split_row(fields: Sequence[str], line: str) -> tuple[list[str] | None, str]:
    """(the row's columns, "") or (None, why it cannot be read unambiguously)."""
    cols = line.split("|")
    if len(cols) == len(fields):
        return cols, ""
    if len(cols) < len(fields):
        return None, f"{len(cols)} fields, the header has {len(fields)}"
    free = [i for i, f in enumerate(fields) if f in FREE_TEXT or f not in _SHAPES]
    extra = len(cols) - len(fields)
    if not free or extra > MAX_EXTRA:
        return None, f"{len(cols)} fields, the header has {len(fields)}"
    found = []
    for n, reading in enumerate(_readings(fields, cols, free)):
        if n >= MAX_READINGS:
            return None, f"{len(cols)} fields: too many ways to read the '|' in free text"
        if _fits(fields, reading):
            found.append(reading)
            if len(found) > 1:
                return None, (f"{len(cols)} fields, the header has {len(fields)}: a '|' in "
                              f"{'/'.join(fields[i] for i in free)} can be read more than one way")
    if not found:
        return None, f"{len(cols)} fields, the header has {len(fields)}"
    return found[0], ""


def step_id(fields: Sequence[str], line: str) -> str:
    """The JobID column of a row split_row cannot read, when no free-text field comes before
    it (so a step row, `123.batch`, is still counted as one); "" otherwise."""
    k = list(fields).index("JobID")
    if any(f in FREE_TEXT or f not in _SHAPES for f in fields[:k]):
        return ""
    cols = line.split("|")
    return cols[k] if len(cols) > k else ""
