"""How a configuration is stored: a value with its source (Setting), one object's attributes
(CredConfig), the storage key of an index (index_key) and the ordering and joining of sources.
loader.py's SchedulerConfig holds these; builder.py makes them."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Iterator, Mapping, NamedTuple

from .params import INDEXED, OBJECT, PARAMS, PARTITION, STACK, Param, lookup

DEFAULT = "default"
OVERRIDE = "override"


class Setting(NamedTuple):
    """One stored value and where it came from ("default", "override" or `file:line`)."""

    value: Any
    source: str


class CredConfig(Mapping[str, Any]):
    """The attributes given to one object of a `*CFG` parameter (`USERCFG[john]`), read-only.

    Keys are canonical attribute names (`FLAGS` is stored as `JOBFLAGS`, or `QFLAGS` for QOSCFG);
    multi-dimensional limits keep their index: `MAXPROC[USER:steve]`.
    """

    __slots__ = ("kind", "name", "_values", "_sources")

    def __init__(self, kind: str, name: str, values: Mapping[str, Any] | None = None,
                 sources: Mapping[str, str] | None = None):
        self.kind, self.name = kind, name
        self._values = MappingProxyType(dict(values or {}))
        self._sources = MappingProxyType(dict(sources or {}))

    def __getitem__(self, attr: str) -> Any:
        return self._values[attr]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def source(self, attr: str) -> str:
        """`file:line` of the line that set `attr`, or "default"."""
        return self._sources.get(attr, DEFAULT)

    @property
    def sources(self) -> tuple[str, ...]:
        """Every distinct source of this object's attributes, in file order."""
        return tuple(sorted(set(self._sources.values()), key=source_order))

    def value(self, attr: str) -> Any:
        """The given value, else the attribute's table default (None when it has none)."""
        if attr in self._values:
            return self._values[attr]
        row = PARAMS[self.kind].attrs.get(attr.split("[")[0])
        return row.default if row else None

    def format(self) -> str:
        """The attributes in maui.cfg syntax: `PRIORITY=100 FSTARGET=10.0-`."""
        rows = PARAMS[self.kind].attrs
        return " ".join(f"{attr}={rows[attr.split('[')[0]].type.show(value, True)}" for attr, value in self.items())

    def __repr__(self) -> str:
        return f"CredConfig({self.kind}[{self.name}], {dict(self._values)!r})"


def param_row(name: str) -> Param:
    found = lookup(name)
    if found is None:
        raise KeyError(f"unknown parameter {name!r}")
    return found[0]


def index_key(param: Param, index: Any, partition: str | None) -> Any:
    """The storage key of an index given to the API (None = global partition, level 0, ...)."""
    key = index if index is not None else partition
    if param.scope == STACK:
        return 0 if key is None else int(key)
    if param.scope == PARTITION:
        return None if key is None or str(key).upper() == "ALL" else str(key)
    if param.scope in (OBJECT, INDEXED):
        return ("DEFAULT" if param.scope == OBJECT else "0") if key is None else str(key)
    return None


def join_sources(sources: tuple[str, ...]) -> str:
    """`maui.cfg:2,3,4` for several lines of one file; "default" for none."""
    parts: list[str] = []
    last_file = None
    for source in sources:
        file, _, line = source.rpartition(":")
        parts.append(line if file == last_file and line.isdigit() else source)
        last_file = file
    return ",".join(parts) or DEFAULT


def source_order(source: str) -> tuple[str, int]:
    file, _, line = source.rpartition(":")
    return (file, int(line)) if line.isdigit() else (source, 0)
