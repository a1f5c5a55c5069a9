"""Slurm hostlist expressions: `node[1-3,5]`, `gpu[01-04]`, `a1,b[2-3]`, `r[1-2]n[1-2]`.

`expand` turns an expression into host names, `compress` turns names back into the shortest
expression of the same form, for `scontrol update NodeList=`. Padding follows Slurm: a range
whose lower bound has a leading zero (`01`) keeps that width; `node[9-10]` is unpadded.
Both are linear in the size of their output (expand) or input (compress, plus a sort).
"""

from __future__ import annotations

import re
from typing import Iterable

_TAIL = re.compile(r"^(.*?)(\d+)$")


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


def _range_values(body: str, expr: str) -> list[str]:
    """`1-3,05` -> ['1', '2', '3', '05'] keeping each range's padding."""
    out: list[str] = []
    for piece in body.split(","):
        lo, sep, hi = piece.strip().partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()):
            raise HostlistError(f"bad range {piece!r} in {expr!r}")
        if not sep:
            out.append(lo)
            continue
        a, b = int(lo), int(hi)
        if b < a:
            raise HostlistError(f"descending range {piece!r} in {expr!r}")
        width = len(lo) if lo.startswith("0") and len(lo) > 1 else 0
        out.extend(str(i).zfill(width) for i in range(a, b + 1))
    return out


def _expand_one(term: str, expr: str) -> list[str]:
    """One comma-free term, possibly with several bracket groups (cartesian product)."""
    open_at = term.find("[")
    if open_at < 0:
        if "]" in term:
            raise HostlistError(f"unbalanced ']' in {expr!r}")
        return [term]
    close_at = term.find("]", open_at)
    if close_at < 0:
        raise HostlistError(f"unbalanced '[' in {expr!r}")
    head, body, rest = term[:open_at], term[open_at + 1:close_at], term[close_at + 1:]
    tails = _expand_one(rest, expr) if rest else [""]
    return [head + v + t for v in _range_values(body, expr) for t in tails]


def expand(expr: str | None) -> list[str]:
    """Host names of a hostlist expression, in order, duplicates kept out.

    Empty, None and Slurm's `(null)` give []. Raises HostlistError on a malformed expression.
    """
    if not expr or expr.strip() in ("(null)", "None", "N/A"):
        return []
    seen: dict[str, None] = {}
    for term in _split_top(expr.strip()):
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
