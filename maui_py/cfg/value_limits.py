"""Value types of maui.cfg for limits and targets: throttling limits, fair-share targets and
resource specifications, with the values they parse to (Limit, FsTarget). values.py re-exports them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from .errors import BadValue
from .value_core import (
    FSTARGET_RE, INFINITY, UNLIMITED_WORDS, canonical_word, finite_float, ignore, int_literal, split_tokens,
    unquote, ValueType, Warn,
)


@dataclass(frozen=True, slots=True)
class Limit:
    """A throttling limit `[<SOFT>,]<HARD>`; one value sets both. -1 means no limit.

    Maui 3.3.1 enforces a limit only when it is > 0, so 0 also means "no limit" there
    (docs/compatibility.md); `hard_or_none`/`soft_or_none` give the enforceable value.
    """

    soft: int
    hard: int

    UNLIMITED: ClassVar[int] = -1

    @property
    def hard_or_none(self) -> int | None:
        return self.hard if self.hard > 0 else None

    @property
    def soft_or_none(self) -> int | None:
        return self.soft if self.soft > 0 else None


FS_MODES: Mapping[str, str] = {"": "target", "+": "floor", "-": "ceiling", "^": "capabs", "%": "caprel"}
_FS_SUFFIX = {mode: suffix for suffix, mode in FS_MODES.items()}


@dataclass(frozen=True, slots=True)
class FsTarget:
    """A fair-share target `<DOUBLE>[+|-|^|%]` (MFS.c MFSTargetFromString).

    mode: "target" (no suffix), "floor" (+), "ceiling" (-), "capabs" (^), "caprel" (%).
    """

    value: float
    mode: str = "target"

    def __post_init__(self) -> None:
        if self.mode not in _FS_SUFFIX:
            raise ValueError(f"unknown fair-share mode {self.mode!r}")

    @property
    def suffix(self) -> str:
        return _FS_SUFFIX[self.mode]

    def __str__(self) -> str:
        return f"{self.value!r}{self.suffix}"


class LimitType(ValueType):
    """`[<SOFT>,]<HARD>` of `element` values (integers, or times for MAXWC); -1/INFINITY = none."""

    def __init__(self, element: ValueType):
        self.element = element
        self.form = f"[<SOFT>,]<HARD> of {element.form}"

    def parse(self, text: str, warn: Warn = ignore) -> Limit:
        parts = unquote(text).split(",")
        if len(parts) > 2:
            raise BadValue("at most a soft and a hard value")
        values = [self._one(part, warn) for part in parts]
        limit = Limit(values[0], values[-1])
        if limit.hard_or_none is not None and limit.soft > limit.hard:
            warn(f"soft limit {parts[0].strip()} is above the hard limit {parts[-1].strip()}")
        return limit

    def _one(self, text: str, warn: Warn = ignore) -> int:
        if text.strip().upper() in UNLIMITED_WORDS:
            return Limit.UNLIMITED
        value = self.element.parse(text)
        if text.strip().startswith("-"):          # -1 is "no limit" above; -5 is likely a mistake
            warn(f"negative limit {text.strip()!r} read as no limit (write -1 or INFINITY for that)")
        return Limit.UNLIMITED if value < 0 or value >= INFINITY else value

    def check(self, value: Any) -> Limit:
        if isinstance(value, Limit):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return Limit(value, value)
        if isinstance(value, tuple) and len(value) == 2:
            return Limit(*(self.element.check(v) for v in value))
        raise BadValue()

    def format(self, value: Any, in_attr: bool = False) -> str:
        one = (lambda v: "-1" if v < 0 else self.element.format(v))
        return one(value.hard) if value.soft == value.hard else f"{one(value.soft)},{one(value.hard)}"


class FsTargetType(ValueType):
    form = "<DOUBLE>[+|-|^|%]"

    def parse(self, text: str, warn: Warn = ignore) -> FsTarget:
        match = FSTARGET_RE.fullmatch(unquote(text))
        if not match:
            raise BadValue()
        return FsTarget(finite_float(float(match.group(1)), 0.0), FS_MODES[match.group(2)])

    def check(self, value: Any) -> FsTarget:
        try:
            if isinstance(value, FsTarget):
                return FsTarget(finite_float(float(value.value), 0.0), value.mode)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return FsTarget(finite_float(float(value), 0.0))
        except OverflowError:
            raise BadValue("not a finite number") from None
        raise BadValue()


class ResourceSpec(ValueType):
    """Per-task resources of a standing reservation: `PROCS:4;MEM:1000` (or `=` and `,`)."""

    form = "<RES>:<COUNT>[;<RES>:<COUNT>]..."

    def parse(self, text: str, warn: Warn = ignore) -> tuple[tuple[str, int], ...]:
        pairs = []
        for item in split_tokens(unquote(text), ";,"):
            match = re.fullmatch(r"([A-Za-z][A-Za-z0-9_]*)[:=]([+-]?[0-9]+)", item.strip())
            if not match:
                raise BadValue(f"{item!r} is not <RES>:<COUNT>")
            pairs.append((canonical_word(match.group(1), warn), int_literal(match.group(2))))
        if not pairs:
            raise BadValue("empty")
        return tuple(pairs)

    def check(self, value: Any) -> tuple[tuple[str, int], ...]:
        items = value.items() if isinstance(value, Mapping) else value
        return self.parse(";".join(f"{k}:{v}" for k, v in items))

    def format(self, value: Any, in_attr: bool = False) -> str:
        return ";".join(f"{name}:{count}" for name, count in value)
