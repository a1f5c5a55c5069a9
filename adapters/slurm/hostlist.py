"""Slurm hostlist expressions: `node[1-3,5]`, `gpu[01-04]`, `a1,b[2-3]`, `r[1-2]n[1-2]`.

`expand` turns an expression into host names, `compress` turns names back into the shortest
expression of the same form, for `scontrol update NodeList=`. Padding follows Slurm: a range
whose lower bound has a leading zero (`01`) keeps that width; `node[9-10]` is unpadded.
Both are linear in the size of their output (expand) or input (compress, plus a sort).
Hostlists come from the resource manager's output, so `expand` counts the names an
expression stands for before producing any and refuses more than MAX_NAMES: `n[0-99999999]`
is an error in the time it takes to read it, not minutes of work and all the memory.
"""

from __future__ import annotations

import re
from typing import Iterable

_TAIL = re.compile(r"^(.*?)(\d+)$")
MAX_NAMES = 100_000
"""The most host names one expression may expand to (far more nodes than any cluster)."""


class HostlistError(ValueError):
    """An expression that is not a valid Slurm hostlist."""


def _split_top(expr: str) -> list[str]:
    """Split at commas outside brackets: `a1,b[2-3]` -> ['a1', 'b[2-3]']."""
    parts, depth, cur = [], 0, []
    for ch in expr:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise HostlistError(f"unbalanced ']' in {expr!r}")
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth:
        raise HostlistError(f"unbalanced '[' in {expr!r}")
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def _ranges(body: str, expr: str) -> tuple[list[tuple[int, int, int, str]], int]:
    """`1-3,05` -> ([(1, 3, 0, ''), (5, 5, 0, '05')], 4): (low, high, zero-pad width, the
    text of a single value) per piece, and how many values they hold. O(len(body))."""
    out: list[tuple[int, int, int, str]] = []
    count = 0
    for piece in body.split(","):
        lo, sep, hi = piece.strip().partition("-")
        if not (lo.isascii() and lo.isdigit()) or (sep and not (hi.isascii() and hi.isdigit())):
            raise HostlistError(f"bad range {piece!r} in {expr!r}")
        if not sep:
            out.append((0, 0, 0, lo))
            count += 1
            continue
        if len(lo) > 18 or len(hi) > 18:
            raise HostlistError(f"range {piece[:40]!r} too large in {expr[:60]!r}")
        a, b = int(lo), int(hi)
        if b < a:
            raise HostlistError(f"descending range {piece!r} in {expr!r}")
        out.append((a, b, len(lo) if lo.startswith("0") and len(lo) > 1 else 0, ""))
        count += b - a + 1
    return out, count


def _terms(term: str, expr: str) -> tuple[list[tuple[str, list]], str, int]:
    """One comma-free term as (text before, ranges) per bracket group, the text after the
    last group, and how many names the cartesian product holds. O(len(term))."""
    groups: list[tuple[str, list]] = []
    total, at = 1, 0
    while True:
        open_at = term.find("[", at)
        if open_at < 0:
            tail = term[at:]
            if "]" in tail:
                raise HostlistError(f"unbalanced ']' in {expr[:60]!r}")
            return groups, tail, total
        close_at = term.find("]", open_at)
        if close_at < 0:
            raise HostlistError(f"unbalanced '[' in {expr[:60]!r}")
        head = term[at:open_at]
        if "]" in head:
            raise HostlistError(f"unbalanced ']' in {expr[:60]!r}")
        ranges, count = _ranges(term[open_at + 1:close_at], expr)
        total *= count
        if total > MAX_NAMES:
            raise HostlistError(f"{expr[:60]!r} names more than {MAX_NAMES} hosts")
        groups.append((head, ranges))
        at = close_at + 1


def _values(ranges: list[tuple[int, int, int, str]]) -> list[str]:
    out: list[str] = []
    for a, b, width, single in ranges:
        if single:
            out.append(single)
        else:
            out.extend(str(i).zfill(width) for i in range(a, b + 1))
    return out


def _expand_one(term: str, expr: str) -> list[str]:
    """One comma-free term, possibly with several bracket groups (cartesian product)."""
    groups, tail, _count = _terms(term, expr)
    names = [""]
    for head, ranges in groups:
        names = [n + head + v for n in names for v in _values(ranges)]
    return [n + tail for n in names]


def expand(expr: str | None) -> list[str]:
    """Host names of a hostlist expression, in order, duplicates kept out.

    Empty, None and Slurm's `(null)` give []. Raises HostlistError on a malformed expression
    or one that names more than MAX_NAMES hosts (counted before any name is made).
    """
    if not expr or expr.strip() in ("(null)", "None", "N/A"):
        return []
    terms = _split_top(expr.strip())
    total = 0
    for term in terms:
        total += _terms(term, expr)[2]
        if total > MAX_NAMES:
            raise HostlistError(f"{expr[:60]!r} names more than {MAX_NAMES} hosts")
    seen: dict[str, None] = {}
    for term in terms:
        for name in _expand_one(term, expr):
            seen.setdefault(name, None)
    return list(seen)


def _format_ranges(numbers: list[int], width: int) -> str:
    pieces, start, prev = [], numbers[0], numbers[0]
    for n in numbers[1:] + [None]:  # type: ignore[list-item]
        if n is not None and n == prev + 1:
            prev = n
            continue
        a, b = str(start).zfill(width), str(prev).zfill(width)
        pieces.append(a if start == prev else f"{a}-{b}")
        if n is not None:
            start = prev = n
    return ",".join(pieces)


def compress(names: Iterable[str]) -> str:
    """The shortest `prefix[ranges]` form of names (order is not kept; duplicates dropped).

    Names are grouped by the text before their trailing number and by zero-padding width;
    names without a trailing number are listed as they are. O(n log n).
    """
    groups: dict[tuple[str, int], set[int]] = {}
    plain: set[str] = set()
    for name in names:
        m = _TAIL.match(name)
        if not m or any(c in name for c in "[],"):
            plain.add(name)
            continue
        prefix, digits = m.groups()
        width = len(digits) if digits.startswith("0") and len(digits) > 1 else 0
        groups.setdefault((prefix, width), set()).add(int(digits))
    parts = sorted(plain)
    for (prefix, width), nums in sorted(groups.items()):
        ordered = sorted(nums)
        if len(ordered) == 1:
            parts.append(prefix + str(ordered[0]).zfill(width))
        else:
            parts.append(f"{prefix}[{_format_ranges(ordered, width)}]")
    return ",".join(parts)
