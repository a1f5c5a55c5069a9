"""Node sets as Python ints: bit i set means node i is in the set.

Set algebra on ints runs in C at about a machine word per 64 nodes, so a 10,000-node set
costs ~157 words per operation. Only the conversions below loop in Python; those that write
a set out with bin() search its string from the end (the lowest bit is the last
character) rather than reverse a copy of it first.
"""

from __future__ import annotations

from itertools import islice
from typing import Iterable


SPARSE = 24
"""Up to this many members, members() peels bits off the top (bit_length, no string):
bin() of a 10,000-node set costs as much as some 40 such steps."""


def members(mask: int) -> list[int]:
    """Indices of the set bits, ascending. O(N/64) in C plus O(popcount) in Python."""
    if not mask:
        return []
    if mask.bit_count() <= SPARSE:
        return _sparse_members(mask)
    s = bin(mask)
    top = len(s) - 1                    # bit i is character top - i; "0b" holds no "1"
    out = []
    i = s.rfind("1")
    while i >= 0:
        out.append(top - i)
        i = s.rfind("1", 0, i)
    return out


def _sparse_members(mask: int) -> list[int]:
    """members() of a set with few members: the highest one at a time. O(popcount x N/64)
    in C, all of it in machine-word loops."""
    out = []
    while mask:
        i = mask.bit_length() - 1
        out.append(i)
        mask ^= 1 << i
    out.reverse()
    return out


PEEL = 4
"""iter_members() and first_members() take up to this many lowest bits one at a time
(a few word-loop operations each) before writing the rest out with bin(): a consumer
often wants one or two nodes of a 10,000-node set, and bin() of it costs ~10 us."""


def iter_members(mask: int):
    """Indices of the set bits, ascending, lazily: O(N/64) per index for the first PEEL,
    then O(N/64) once plus O(1) per index taken."""
    if not mask:
        return
    for _ in range(PEEL):
        i = (mask ^ (mask - 1)).bit_length() - 1     # the lowest set bit
        yield i
        mask ^= 1 << i
        if not mask:
            return
    s = bin(mask)
    top = len(s) - 1
    i = s.rfind("1")
    while i >= 0:
        yield top - i
        i = s.rfind("1", 0, i)


def first_members(mask: int, k: int) -> list[int]:
    """The k lowest set bits, ascending. O(N/64) plus O(k)."""
    if not mask or k <= 0:
        return []
    if k <= PEEL:
        return list(islice(iter_members(mask), k))
    s = bin(mask)
    top = len(s) - 1
    out = []
    i = s.rfind("1")
    while i >= 0 and len(out) < k:
        out.append(top - i)
        i = s.rfind("1", 0, i)
    return out


def mask_of(indices: Iterable[int], size: int = 0) -> int:
    """The set holding `indices`. O(k) for small sets, O(k + N/8) through a bytearray."""
    idx = indices if isinstance(indices, (list, tuple)) else list(indices)
    if len(idx) < 48:
        m = 0
        for i in idx:
            m |= 1 << i
        return m
    top = max(size, max(idx) + 1)
    buf = bytearray((top + 7) >> 3)
    for i in idx:
        buf[i >> 3] |= 1 << (i & 7)
    return int.from_bytes(buf, "little")
