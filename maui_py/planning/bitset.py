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


SEEN = 256
"""members() keeps the lists of up to this many sets it was asked for last (emptied when
full), each of at most SEEN_SIZE members: the start-now questions of one cycle ask for the
same few small sets of partly used nodes thousands of times, and a look-up (hashing the
set, O(N/64) in C) costs a fraction of writing one out. At most some 0.5 MB at 10,000
nodes."""
SEEN_SIZE = 64
_seen: dict[int, list[int]] = {}


def members(mask: int) -> list[int]:
    """Indices of the set bits, ascending (a new list). O(N/64) in C plus O(popcount) in
    Python; O(N/64) plus a copy for a set asked for lately."""
    if not mask:
        return []
    got = _seen.get(mask)
    if got is not None:
        return got[:]
    if mask.bit_count() <= SPARSE:
        out = _sparse_members(mask)
    else:
        s = bin(mask)
        top = len(s) - 1                # bit i is character top - i; "0b" holds no "1"
        out = []
        i = s.rfind("1")
        while i >= 0:
            out.append(top - i)
            i = s.rfind("1", 0, i)
    if len(out) <= SEEN_SIZE:
        if len(_seen) >= SEEN:
            _seen.clear()
        _seen[mask] = out[:]
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


class NearMembers:
    """members() of sets that differ in a few bits from one asked lately, patched from
    that one's list instead of written out again. The start-now questions of a cycle ask
    for the partly used eligible nodes (Compiling._keyed_now): after a start, the set
    differs from the last one asked for the same nodes by the node or two the start
    filled or began to use, while writing out a 20,000-node set costs a bin() of it.

    Invariant (check): each kept (mask, list) holds the list members(mask) gives; at most
    KEEP are kept, the latest first. A set within NEAR bits of a kept one is that one's
    list less its members the set lacks plus the set's own members the list lacks:
    exactly members(set). The lists handed out are the kept ones: callers read them and
    never change them. Cost: O(KEEP) XORs and popcounts, O(N/64) each in C, plus
    O(k + d log d) for a list of k members and d changed bits; members() otherwise."""

    KEEP = 4
    NEAR = 16

    def __init__(self) -> None:
        self.kept: list[tuple[int, list[int]]] = []

    def members(self, mask: int) -> list[int]:
        """members(mask), patched from a kept set within NEAR bits when there is one."""
        kept = self.kept
        for pos, (m, got) in enumerate(kept):
            x = m ^ mask
            if not x:
                if pos:
                    kept.insert(0, kept.pop(pos))
                return got
            if x.bit_count() <= self.NEAR:
                gone = x & m
                if gone:
                    drop = set(_sparse_members(gone))
                    out = [i for i in got if i not in drop]
                else:
                    out = got[:]
                came = x ^ gone
                if came:
                    out += _sparse_members(came)
                    out.sort()
                break
        else:
            out = members(mask)
        kept.insert(0, (mask, out))
        del kept[self.KEEP:]
        return out

    def check(self) -> None:
        """Assert the invariant: every kept list is its set's members, at most KEEP."""
        assert len(self.kept) <= self.KEEP, "too many sets kept"
        for m, got in self.kept:
            assert got == members(m), "a kept list is not its set's members"
