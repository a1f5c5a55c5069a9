"""A small resource vector: processors, memory (MB) and generic resources (gpu, ...).

Immutable and hashable so that nodes, requests and allocations can share instances freely.
Arithmetic is element-wise; generic resources absent from one side count as zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping


def _norm_gres(items: Iterable[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    acc: dict[str, int] = {}
    for name, count in items:
        if count:
            acc[name] = acc.get(name, 0) + int(count)
    return tuple(sorted((k, v) for k, v in acc.items() if v))


@dataclass(frozen=True, slots=True)
class Resources:
    """procs (dedicated processors), mem (MB) and gres as sorted (name, count) pairs."""

    procs: int = 0
    mem: int = 0
    gres: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, procs: int = 0, mem: int = 0, gres: Mapping[str, int] | None = None,
           **more_gres: int) -> "Resources":
        items = list((gres or {}).items()) + list(more_gres.items())
        return cls(int(procs), int(mem), _norm_gres(items))

    def gres_dict(self) -> dict[str, int]:
        return dict(self.gres)

    def gres_count(self, name: str) -> int:
        for k, v in self.gres:
            if k == name:
                return v
        return 0

    def __add__(self, other: "Resources") -> "Resources":
        if not self.gres and not other.gres:
            return Resources(self.procs + other.procs, self.mem + other.mem)
        return Resources(self.procs + other.procs, self.mem + other.mem,
                         _norm_gres(self.gres + other.gres))

    def __sub__(self, other: "Resources") -> "Resources":
        if not other.gres:
            return Resources(self.procs - other.procs, self.mem - other.mem, self.gres)
        return Resources(self.procs - other.procs, self.mem - other.mem,
                         _norm_gres(self.gres + tuple((k, -v) for k, v in other.gres)))

    def scaled(self, k: int) -> "Resources":
        return Resources(self.procs * k, self.mem * k, tuple((n, c * k) for n, c in self.gres if c * k))

    def fits_in(self, capacity: "Resources") -> bool:
        """True when every component of self is <= the same component of capacity."""
        if self.procs > capacity.procs or self.mem > capacity.mem:
            return False
        cap = dict(capacity.gres)
        return all(v <= cap.get(k, 0) for k, v in self.gres)

    def times_fits_in(self, capacity: "Resources") -> int:
        """How many copies of self fit in capacity (a large number when self is zero)."""
        best = 1 << 30
        if self.procs > 0:
            best = min(best, capacity.procs // self.procs)
        if self.mem > 0:
            best = min(best, capacity.mem // self.mem)
        cap = dict(capacity.gres)
        for k, v in self.gres:
            if v > 0:
                best = min(best, cap.get(k, 0) // v)
        return max(best, 0)

    def is_zero(self) -> bool:
        return self.procs == 0 and self.mem == 0 and not self.gres

    def __str__(self) -> str:
        parts = [f"procs={self.procs}"]
        if self.mem:
            parts.append(f"mem={self.mem}MB")
        parts += [f"{k}={v}" for k, v in self.gres]
        return ",".join(parts)


ZERO = Resources()
