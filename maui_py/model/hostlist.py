"""Host expressions: Slurm hostlists (`node[1-3,5]`, `gpu[01-04]`, `a1,b[2-3]`, `r[1-2]n[1-2]`)
and Maui's host regular expressions, as SRCFG HOSTLIST and setres take them.

`expand` turns an expression into host names, `compress` turns names back into the shortest
expression of the same form, for `scontrol update NodeList=`. Padding follows Slurm: a range
whose lower bound has a leading zero (`01`) keeps that width; `node[9-10]` is unpadded.
Both are linear in the size of their output (expand) or input (compress, plus a sort).
Hostlists come from the resource manager's output, so `expand` counts the names an
expression stands for before producing any and refuses more than MAX_NAMES: `n[0-99999999]`
is an error in the time it takes to read it, not minutes of work and all the memory.

`match` reads what an admin typed (`read`): a node's name, else a Slurm hostlist, the form
admins type today, else, when the text is clearly one (it starts with `^` or has `$ * + ? | (
) { } \\`), a Maui regular expression searched (unanchored, as Maui did) in every node name.
A regular expression that matches more nodes than its hostlist reading would (`^node4` also
matches node40-node49, where node4 is a node) comes back with a warning saying so.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from enum import Enum
from typing import Iterable, Sequence

_TAIL = re.compile(r"^(.*?)(\d+)$")
MAX_NAMES = 100_000
"""The most host names one expression may expand to (far more nodes than any cluster)."""


class HostlistError(ValueError):
    """An expression that is not a valid Slurm hostlist."""


class HostlistTooLarge(HostlistError):
    """A valid hostlist that names more than MAX_NAMES hosts."""


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
            raise HostlistTooLarge(f"{expr[:60]!r} names more than {MAX_NAMES} hosts")
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
            raise HostlistTooLarge(f"{expr[:60]!r} names more than {MAX_NAMES} hosts")
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


# ------------------------------------------------------------------ host expressions
REGEX_ONLY = frozenset("$*+?|(){}\\")
"""Characters no host name or Slurm hostlist has: a text with one is a regular expression."""


class Reading(str, Enum):
    """How a host expression is read."""

    ALL = "all"
    HOSTLIST = "hostlist"       # a host name is a one-name hostlist
    REGEX = "regex"


def read(text: str) -> Reading:
    """ALL, a regular expression (starts with `^` or has a REGEX_ONLY character), else a Slurm
    hostlist; a text that is not a valid hostlist (`node[a-z]`) is read as a regular expression.
    Raises HostlistTooLarge for a hostlist naming more than MAX_NAMES hosts."""
    if text.upper() == "ALL":
        return Reading.ALL
    if text.startswith("^") or REGEX_ONLY & set(text):
        return Reading.REGEX
    try:
        count = _count(text)
    except HostlistTooLarge:
        raise
    except HostlistError:
        return Reading.REGEX
    if count > MAX_NAMES:
        raise HostlistTooLarge(f"{text[:60]!r} names more than {MAX_NAMES} hosts")
    return Reading.HOSTLIST


def _count(text: str) -> int:
    """How many names a hostlist names (HostlistError when malformed or too many)."""
    return sum(_terms(term, text)[2] for term in _split_top(text.strip()))


@dataclass(frozen=True, slots=True)
class HostMatch:
    """The nodes one expression names, in node order, how it was read, and a warning ("" if
    none): an expression that names no node, or a regular expression that matches more nodes
    than its hostlist reading."""

    expression: str
    reading: Reading
    hosts: tuple[str, ...]
    warning: str = ""


def match(text: str, names: Sequence[str]) -> HostMatch:
    """The nodes of `names` (in their order) that `text` names. Raises HostlistError for a
    hostlist naming more than MAX_NAMES hosts or an invalid regular expression.
    O(len(names) + the size of the hostlist)."""
    how = read(text)
    if how is Reading.ALL:
        return HostMatch(text, how, tuple(names))
    if how is Reading.HOSTLIST:
        wanted = set(expand(text))
        hosts = tuple(n for n in names if n in wanted)
        return HostMatch(text, how, hosts, "" if hosts else f"{text!r} names no node")
    rx = compile_regex(text)
    hosts = tuple(n for n in names if rx.search(n))
    return HostMatch(text, how, hosts, _overmatch(text, hosts, names))


def compile_regex(text: str) -> re.Pattern:
    """A host regular expression compiled; HostlistError when invalid. Python's FutureWarnings
    about what a later version may read differently (`[--x]`) are not an admin's concern."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        try:
            return re.compile(text)
        except re.error as e:
            raise HostlistError(f"{text[:60]!r} is not a valid regular expression: {e}") from None


def _overmatch(text: str, hosts: tuple[str, ...], names: Sequence[str]) -> str:
    """The warning for a regular expression that is a hostlist but for its anchors (`^node4`,
    `node0[1-4]$`), whose hostlist names some node, and that matches more nodes than that
    hostlist names; "" otherwise."""
    if not hosts:
        return f"regular expression {text!r} matches no node"
    bare = text.removeprefix("^").removesuffix("$")
    if not bare or REGEX_ONLY & set(bare) or bare.startswith("^"):
        return ""
    try:
        wanted = set(expand(bare))
    except HostlistError:
        return ""
    named = sum(1 for n in names if n in wanted)
    if named == 0 or len(hosts) <= named:       # `^gpu` names no node `gpu`: a prefix, meant so
        return ""
    return (f"regular expression {text!r} matches {len(hosts)} nodes ({compress(hosts)}), "
            f"the hostlist {bare!r} names {named}: write {bare!r} (a hostlist) or anchor it ('^{bare}$')")


def match_all(texts: Sequence[str], names: Sequence[str]) -> tuple[tuple[str, ...], list[HostMatch]]:
    """The union of what each expression names, in node order, and each expression's match."""
    matches = [match(t, names) for t in texts if t]
    picked = {h for m in matches for h in m.hosts}
    return tuple(n for n in names if n in picked), matches
