"""A cycle's order as job ids worked out when first read (core/result.OrderIds,
core/parked.FullOrder): the read-only list protocol written once."""

from __future__ import annotations

from collections.abc import Sequence


class LazyIds(Sequence):
    """A sequence of job ids worked out by `_all()` when first read (a replay never reads
    a cycle's order): the read-only list protocol over it, in one place for OrderIds and
    core/parked.FullOrder."""

    __slots__ = ()

    def _all(self) -> list[str]:
        raise NotImplementedError

    def __getitem__(self, i):
        return self._all()[i]

    def __len__(self) -> int:
        return len(self._all())

    def __iter__(self):
        return iter(self._all())

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and self._all() == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._all())
