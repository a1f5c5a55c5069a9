"""Value types of maui.cfg, the base and the scalars (numbers, times, words, choices): each turns
one textual form into a typed Python value and back; values.py re-exports them.

A value type is the `Format` column of Maui's MCfg[] table made explicit. It names the form it
expects (quoted in errors and in docs/config-reference.md), parses text into a typed value, checks
a Python value given programmatically (`SchedulerConfig.with_overrides`), and formats a value back
into maui.cfg syntax for showconfig. A spelling Maui 3.3.1 also accepted (or that is plainly meant,
like a lower-case keyword) is mapped to the canonical value and reported through `warn`; text that
has no reading raises `BadValue`. Every parse is linear in the length of its text.
"""

from __future__ import annotations

import difflib
import re
from enum import StrEnum
from typing import Any, Callable, ClassVar, Iterable, Mapping

from .errors import BadValue

Warn = Callable[[str], None]

INFINITY = 2**31 - 1
DAY = 86400
"""Maui's "no end" for times (`INFINITY` in maui.cfg)."""

MAX_DIGITS = 18
"""Significant digits an integer literal may have (|n| < 10**18: fits SQLite's and C's 64 bits).
Checked on the text before int() runs, so a 5000-digit value is a clean error, never Python's
4300-digit ValueError, and never a slow conversion."""

MAX_DOUBLE = 1e15
"""Largest magnitude of a <DOUBLE>: far beyond any sane weight, factor or load, and small enough
that products of a few of them stay finite (a priority is never inf or NaN)."""

MAX_WEIGHT = 10**9
"""Largest magnitude of a priority weight (Maui's MAX_PRIO_VAL): weight x subweight x any bounded
factor stays a finite float, so a priority is never inf or NaN."""

# ASCII digits only: Python's \d and int()/float() also take other scripts' digits ('٣'), which
# Maui's strtol never did; a file using them is an error, not a silent reading.
_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_CLOCK = re.compile(r"[0-9]+(?::[0-9]+){1,3}")
FSTARGET_RE = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([-+^%]?)")
_TRUE = frozenset({"TRUE", "ON", "YES", "1"})
_FALSE = frozenset({"FALSE", "OFF", "NO", "0"})
UNLIMITED_WORDS = frozenset({"INFINITY", "UNLIMITED", "-1"})


def ignore(_: str) -> None:
    """A `warn` that drops the message, for programmatic checks."""


def int_literal(text: str) -> int:
    """An ASCII integer literal `[+-]DIGITS` as an int; BadValue when it is not one or has more than
    MAX_DIGITS significant digits (counted on the text, before int() is called)."""
    text = text.strip()
    if not _INT.fullmatch(text):
        raise BadValue()
    if len(text.lstrip("+-").lstrip("0")) > MAX_DIGITS:
        raise BadValue(f"too many digits (at most {MAX_DIGITS})")
    return int(text)


def finite_float(value: float, lo: float = -MAX_DOUBLE, hi: float = MAX_DOUBLE) -> float:
    """`value` when it is a finite number in [lo, hi]; BadValue otherwise (inf, nan, 1e400)."""
    if value != value or value in (float("inf"), float("-inf")):
        raise BadValue(f"{value} is not a finite number")
    if not lo <= value <= hi:
        raise BadValue(f"{value:g} is out of range ({lo:g}..{hi:g})")
    return value


def unquote(text: str) -> str:
    """Strip surrounding white space and one pair of matching quotes."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def split_tokens(text: str, seps: str) -> list[str]:
    """Split on any run of the separator characters, dropping empty pieces."""
    return [tok for tok in re.split(f"[{re.escape(seps)}]+", text.strip()) if tok]


def canonical_word(token: str, warn: Warn) -> str:
    """Upper-case a keyword, warning when the file spelled it otherwise (3.3.1 uses strcmp)."""
    upper = token.upper()
    if token != upper:
        warn(f"{token!r} read as {upper} (Maui 3.3.1 matches keywords case-sensitively)")
    return upper


def nearest(word: str, choices: Iterable[str]) -> str | None:
    """The closest known spelling, for "did you mean ...?" hints."""
    found = difflib.get_close_matches(word.upper(), list(choices), n=1, cutoff=0.6)
    return found[0] if found else None


def format_time(seconds: int) -> str:
    """Seconds as maui.cfg writes them: [[DD:]HH:]MM:SS, INFINITY, or a negative "no limit"."""
    if seconds >= INFINITY:
        return "INFINITY"
    if seconds < 0:
        return str(seconds)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    clock = f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{days}:{clock}" if days else clock


class ValueType:
    """Base of all value types. Subclasses set `form` and implement `parse` and `check`.

    empty: what an empty value means (`PLIST=`): a value, or `NO_EMPTY` when an empty value is
    not a setting at all (the loader then warns and leaves the parameter alone).
    """

    form: str = "<VALUE>"
    NO_EMPTY: ClassVar[object] = object()
    empty: Any = NO_EMPTY

    def parse(self, text: str, warn: Warn = ignore) -> Any:
        raise NotImplementedError

    def check(self, value: Any) -> Any:
        """Validate a Python value given programmatically; return it normalised."""
        raise BadValue(f"{type(value).__name__} is not a {self.form}")

    def coerce(self, value: Any, warn: Warn = ignore) -> Any:
        return self.parse(value, warn) if isinstance(value, str) else self.check(value)

    def format(self, value: Any, in_attr: bool = False) -> str:
        return str(value)

    def show(self, value: Any, in_attr: bool = False) -> str:
        """`format`, with Maui's `[NONE]` for an unset value."""
        return "[NONE]" if value is None else self.format(value, in_attr)

    def inactive(self, value: Any) -> tuple[str, ...]:
        """The parts of a value maui-py reads but does not act on (`PREEMPT`, the flag
        `PREEMPTOR`), each as check-config names it; the parameter table declares them."""
        return ()


class Integer(ValueType):
    def __init__(self, lo: int | None = None, hi: int | None = None):
        self.lo, self.hi = lo, hi
        bounds = "" if lo is None and hi is None else (
            f" in {lo}..{hi}" if lo is not None and hi is not None else f" >= {lo}" if lo is not None else f" <= {hi}")
        self.form = "<INTEGER>" + bounds

    def parse(self, text: str, warn: Warn = ignore) -> int:
        return self.check(int_literal(text))

    def check(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadValue()
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise BadValue(f"{value} is out of range")
        if abs(value) >= 10 ** MAX_DIGITS:
            raise BadValue(f"too many digits (at most {MAX_DIGITS})")
        return value


class ComponentWeight(Integer):
    """A priority component weight; Maui also reads `<INTEGER>%` and ignores the percent part."""

    form = f"<INTEGER>[%] in -{MAX_WEIGHT}..{MAX_WEIGHT}"

    def __init__(self) -> None:
        super().__init__(-MAX_WEIGHT, MAX_WEIGHT)
        self.form = ComponentWeight.form

    def parse(self, text: str, warn: Warn = ignore) -> int:
        text = text.strip()
        if text.endswith("%"):
            value = super().parse(text[:-1])
            warn(f"'{text}': the percent form is stored but never used by Maui 3.3.1; weight {value} applies")
            return value
        return super().parse(text)


class Double(ValueType):
    """A finite <DOUBLE> in [lo, hi] (default +-MAX_DOUBLE; `open_lo` excludes lo itself):
    inf, nan and overflowing literals (`1e400`) are errors, never a value that poisons priorities."""

    form = "<DOUBLE>"

    def __init__(self, lo: float = -MAX_DOUBLE, hi: float = MAX_DOUBLE, *, open_lo: bool = False,
                 form: str = "<DOUBLE>"):
        self.lo, self.hi, self.open_lo, self.form = lo, hi, open_lo, form

    def parse(self, text: str, warn: Warn = ignore) -> float:
        text = text.strip()
        if not _FLOAT.fullmatch(text):
            raise BadValue()
        return self.check(float(text))

    def check(self, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise BadValue()
        try:
            value = finite_float(float(value), self.lo, self.hi)
        except OverflowError:
            raise BadValue("not a finite number") from None
        if self.open_lo and value == self.lo:
            raise BadValue(f"{value:g} is out of range (above {self.lo:g}, at most {self.hi:g})")
        return value

    def format(self, value: Any, in_attr: bool = False) -> str:
        return repr(float(value))


class Boolean(ValueType):
    form = "TRUE|FALSE"

    def parse(self, text: str, warn: Warn = ignore) -> bool:
        word = text.strip().upper()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise BadValue("use TRUE/FALSE, ON/OFF, YES/NO or 1/0")

    def check(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise BadValue()
        return value

    def format(self, value: Any, in_attr: bool = False) -> str:
        return "TRUE" if value else "FALSE"


class Time(ValueType):
    """`[[[DD:]HH:]MM:]SS` or plain seconds; `INFINITY`; a negative value means "no limit" (-1).

    Fields are not bounded (`168:00:00` is a week), as in MUTimeFromString, but each has at most
    MAX_DIGITS digits and the whole is kept at most INFINITY (68 years): every time is bounded.
    """

    form = "[[[DD:]HH:]MM:]SS"

    def parse(self, text: str, warn: Warn = ignore) -> int:
        text = text.strip()
        if text.upper() == "INFINITY":
            return INFINITY
        if _INT.fullmatch(text):
            return self.check(int_literal(text))
        if not _CLOCK.fullmatch(text):
            raise BadValue()
        seconds = 0
        for field, scale in zip(reversed(text.split(":")), (1, 60, 3600, 86400)):
            seconds += int_literal(field) * scale
        return self.check(seconds)

    def check(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadValue()
        return -1 if value < 0 else min(value, INFINITY)

    def format(self, value: Any, in_attr: bool = False) -> str:
        return format_time(value)


class PeriodOffset(Time):
    """An offset within a period that another attribute names (SRCFG STARTTIME and ENDTIME
    within PERIOD DAY or WEEK). An offset past the period's length is read as it is (`25:00:00`
    in a DAY is 01:00:00 the next day); the loader warns once the line's PERIOD is known."""

    def __init__(self, period_attr: str = "PERIOD", default: str = "DAY",
                 lengths: Mapping[str, int] | None = None):
        self.period_attr, self.default = period_attr, default
        self.lengths = dict(lengths or {"DAY": DAY, "WEEK": 7 * DAY})

    def beyond(self, value: Any, period: Any) -> str:
        """The warning for an offset past its period's length, or ""."""
        name = str(period or self.default).upper()
        length = self.lengths.get(name)
        if length is None or not isinstance(value, int) or not length < value < INFINITY:
            return ""
        return (f"past the end of a {name} ({format_time(length)}): read as {format_time(value - length)} "
                f"into the next {name}")


class AclTime(Time):
    """A time that may carry the `*` required-ACL marker of SRCFG (`TIMELIMIT=1:00:00*`)."""

    form = "[[[DD:]HH:]MM:]SS[*]"

    def parse(self, text: str, warn: Warn = ignore) -> int:
        text = text.strip()
        if text.endswith("*"):
            warn(f"'{text}': the '*' (required ACL) marker is accepted but not acted on by maui-py")
            text = text[:-1]
        return super().parse(text)


class String(ValueType):
    form = "<STRING>"

    def parse(self, text: str, warn: Warn = ignore) -> str:
        value = unquote(text)
        if not value or value.upper() == "[NONE]":
            raise BadValue("empty")
        return value

    def check(self, value: Any) -> str:
        if not isinstance(value, str):
            raise BadValue()
        return value

    def format(self, value: Any, in_attr: bool = False) -> str:
        return f"'{value}'" if in_attr and re.search(r"\s", value) else value


class Name(String):
    """One name (QDEF=hi); the `&`/`^` list markers of 3.3.1 are dropped with a warning."""

    form = "<NAME>"

    def parse(self, text: str, warn: Warn = ignore) -> str:
        value = drop_markers(unquote(text), warn)
        if not value or re.search(r"\s", value):
            raise BadValue()
        return value


def drop_markers(text: str, warn: Warn) -> str:
    if "&" in text or "^" in text:
        warn(f"'{text}': the AND (&) / ONLY (^) list markers are accepted but not acted on by maui-py")
        return text.replace("&", "").replace("^", "")
    return text


class Choice(ValueType):
    """One keyword of a fixed set, matched case-insensitively; `aliases` maps other spellings.

    aliases: {SPELLING: (CANONICAL, note)}; the note (or a default) becomes a warning.
    `Choice.of(SomeStrEnum)` yields members of that enum: the keywords are its values, and
    code dispatches on the members (a str enum compares and prints as its keyword).
    """

    def __init__(self, *values: str, aliases: Mapping[str, tuple[str, str]] | None = None,
                 enum: type[StrEnum] | None = None, inactive: Mapping[str, str] | None = None):
        self.enum = enum
        self.not_acted = dict(inactive or {})
        """keyword -> what maui-py does instead: values it reads but does not act on."""
        self.values = tuple(member.value for member in enum) if enum is not None else tuple(values)
        self.canonical = {value.upper(): self._typed(value) for value in self.values}
        self.aliases = {word: (self._typed(canonical), note) for word, (canonical, note) in (aliases or {}).items()}
        self.form = "|".join(self.values)

    @classmethod
    def of(cls, enum: type[StrEnum], aliases: Mapping[str, tuple[str, str]] | None = None,
           inactive: Mapping[str, str] | None = None) -> "Choice":
        return cls(aliases=aliases, enum=enum, inactive=inactive)

    def inactive(self, value: Any) -> tuple[str, ...]:
        why = self.not_acted.get(str(value)) if value is not None else None
        return () if why is None else (f"{value} ({why})",)

    def _typed(self, value: str) -> Any:
        return self.enum(value) if self.enum is not None else value

    def parse(self, text: str, warn: Warn = ignore) -> Any:
        raw = unquote(text)
        bare = raw[1:-1] if raw.startswith("[") and raw.endswith("]") else raw
        word = bare.upper()
        if word in self.canonical:
            value = self.canonical[word]
            if bare != value:
                warn(f"{bare!r} read as {value} (Maui 3.3.1 matches keywords case-sensitively)")
            return value
        if word in self.aliases:
            canonical, note = self.aliases[word]
            warn(note or f"{raw!r} read as {canonical}")
            return canonical
        hint = nearest(word, self.values)
        raise BadValue(f"did you mean {hint}?" if hint else "")

    def check(self, value: Any) -> Any:
        if self.enum is not None and isinstance(value, self.enum):
            return value
        if not isinstance(value, str):
            raise BadValue()
        return self.parse(value)


class FsPolicy(Choice):
    """FSPOLICY: a usage metric with an optional trailing `%` (percentage based fair share).

    The enum has a member per metric and per metric with `%` (`DEDICATEDPS%`); the keywords
    (and the form) are the metrics alone."""

    def __init__(self, enum: type[StrEnum], aliases: Mapping[str, tuple[str, str]] | None = None):
        super().__init__(*(m.value for m in enum if not m.value.endswith("%")), aliases=aliases)
        self.enum = self.percent_enum = enum
        self.canonical = {word: enum(value) for word, value in self.canonical.items()}
        self.aliases = {word: (enum(value), note) for word, (value, note) in self.aliases.items()}
        self.form += "[%]"

    def parse(self, text: str, warn: Warn = ignore) -> Any:
        raw = unquote(text)
        if not raw.endswith("%"):
            return super().parse(raw, warn)
        value = super().parse(raw[:-1], warn)
        if value == "NONE":
            raise BadValue("NONE takes no '%'")
        return self.percent_enum(value + "%")
