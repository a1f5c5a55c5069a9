"""Node sets as Python ints: bit i set means node i is in the set.

Set algebra on ints runs in C at about a machine word per 64 nodes, so a 10,000-node set
costs ~157 words per operation. Only the conversions below loop in Python.
"""

from __future__ import annotations

from typing import Iterable


def members(mask: int) -> list[int]:
    """Indices of the set bits, ascending. O(N/64) in C plus O(popcount) in Python."""
    if not mask:
        return []
    s = bin(mask)[:1:-1]
    out = []
    i = s.find("1")
    while i >= 0:
        out.append(i)
        i = s.find("1", i + 1)
    return out


def iter_members(mask: int):
    """Indices of the set bits, ascending, lazily: O(N/64) once plus O(1) per index taken."""
    if not mask:
        return
    s = bin(mask)[:1:-1]
    i = s.find("1")
    while i >= 0:
        yield i
        i = s.find("1", i + 1)


def first_members(mask: int, k: int) -> list[int]:
    """The k lowest set bits, ascending. O(N/64) plus O(k)."""
    if not mask or k <= 0:
        return []
    s = bin(mask)[:1:-1]
    out = []
    i = s.find("1")
    while i >= 0 and len(out) < k:
        out.append(i)
        i = s.find("1", i + 1)
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


class OrQueue:
    """FIFO of (a, b) mask pairs with O(1) amortised push, pop and OR of the whole queue.

    The two-stack trick: pushes accumulate a running OR; pops come from a stack of suffix
    ORs rebuilt only when it runs empty, so each element is combined a constant number of
    times. Used for the OR of change-point masks over a sliding time window.
    """

    __slots__ = ("_back", "_back_a", "_back_b", "_front")

    def __init__(self) -> None:
        self._back: list[tuple[int, int]] = []
        self._back_a = 0
        self._back_b = 0
        self._front: list[tuple[int, int]] = []

    def __len__(self) -> int:
        return len(self._back) + len(self._front)

    def push(self, a: int, b: int) -> None:
        self._back.append((a, b))
        self._back_a |= a
        self._back_b |= b

    def pop(self) -> None:
        if not self._front:
            acc_a = acc_b = 0
            front = self._front
            for a, b in reversed(self._back):
                acc_a |= a
                acc_b |= b
                front.append((acc_a, acc_b))
            self._back.clear()
            self._back_a = self._back_b = 0
        self._front.pop()

    def total(self) -> tuple[int, int]:
        if self._front:
            fa, fb = self._front[-1]
            return fa | self._back_a, fb | self._back_b
        return self._back_a, self._back_b
