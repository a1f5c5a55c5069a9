"""Value types of maui.cfg: each turns one textual form into a typed Python value and back.

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
from dataclasses import dataclass
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
_FSTARGET = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([-+^%]?)")
_TRUE = frozenset({"TRUE", "ON", "YES", "1"})
_FALSE = frozenset({"FALSE", "OFF", "NO", "0"})
_UNLIMITED = frozenset({"INFINITY", "UNLIMITED", "-1"})


def _ignore(_: str) -> None:
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


class ValueType:
    """Base of all value types. Subclasses set `form` and implement `parse` and `check`.

    empty: what an empty value means (`PLIST=`): a value, or `NO_EMPTY` when an empty value is
    not a setting at all (the loader then warns and leaves the parameter alone).
    """

    form: str = "<VALUE>"
    NO_EMPTY: ClassVar[object] = object()
    empty: Any = NO_EMPTY

    def parse(self, text: str, warn: Warn = _ignore) -> Any:
        raise NotImplementedError

    def check(self, value: Any) -> Any:
        """Validate a Python value given programmatically; return it normalised."""
        raise BadValue(f"{type(value).__name__} is not a {self.form}")

    def coerce(self, value: Any, warn: Warn = _ignore) -> Any:
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

    def parse(self, text: str, warn: Warn = _ignore) -> int:
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

    def parse(self, text: str, warn: Warn = _ignore) -> int:
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

    def parse(self, text: str, warn: Warn = _ignore) -> float:
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

    def parse(self, text: str, warn: Warn = _ignore) -> bool:
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

    def parse(self, text: str, warn: Warn = _ignore) -> int:
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

    def parse(self, text: str, warn: Warn = _ignore) -> int:
        text = text.strip()
        if text.endswith("*"):
            warn(f"'{text}': the '*' (required ACL) marker is accepted but not acted on by maui-py")
            text = text[:-1]
        return super().parse(text)


class String(ValueType):
    form = "<STRING>"

    def parse(self, text: str, warn: Warn = _ignore) -> str:
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

    def parse(self, text: str, warn: Warn = _ignore) -> str:
        value = _drop_markers(unquote(text), warn)
        if not value or re.search(r"\s", value):
            raise BadValue()
        return value


def _drop_markers(text: str, warn: Warn) -> str:
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

    def parse(self, text: str, warn: Warn = _ignore) -> Any:
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

    def parse(self, text: str, warn: Warn = _ignore) -> Any:
        raw = unquote(text)
        if not raw.endswith("%"):
            return super().parse(raw, warn)
        value = super().parse(raw[:-1], warn)
        if value == "NONE":
            raise BadValue("NONE takes no '%'")
        return self.percent_enum(value + "%")




class StringList(ValueType):
    """Names separated by any of `seps`; `[ALL]`/`ALL` become "ALL" and `[NONE]` the empty list."""

    empty: Any = ()

    def __init__(self, item: str = "<NAME>", seps: str = " \t,:", markers: bool = False):
        self.seps, self.markers = seps, markers
        shown = "|".join("space" if s == " " else s for s in seps if s != "\t")
        self.form = f"{item}[({shown}){item}]..."

    def parse(self, text: str, warn: Warn = _ignore) -> tuple[str, ...]:
        text = _drop_markers(text, warn) if self.markers else text
        items = []
        for token in split_tokens(unquote(text), self.seps):
            bare = token.strip("[]") if token.startswith("[") and token.endswith("]") else token
            if bare.upper() in ("ALL", "NONE"):
                bare = canonical_word(bare, warn)
                if bare == "NONE":
                    continue
            items.append(bare)
        return tuple(items)

    def check(self, value: Any) -> tuple[str, ...]:
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return tuple(value)
        raise BadValue()

    def format(self, value: Any, in_attr: bool = False) -> str:
        return ("," if in_attr else " ").join(value) if value or in_attr else "[NONE]"


def split_outside_brackets(text: str, seps: str) -> list[str]:
    """Split on runs of `seps` that are not inside [...], (...) or {...}: `a[1,3],^(b|c)` ->
    ['a[1,3]', '^(b|c)']. O(len(text))."""
    parts, cur, depth = [], [], 0
    for ch in text.strip():
        if ch in "[({":
            depth += 1
        elif ch in "])}" and depth:
            depth -= 1
        if ch in seps and depth == 0:
            if cur:
                parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if cur:
        parts.append("".join(cur))
    return parts


class HostList(StringList):
    """Host expressions (model/hostlist.py): node names and Slurm hostlists (`node[01-04,7]`),
    or Maui regular expressions (`^compute-0-[0-9]`), separated by spaces, `,`, `:` or `|`
    outside brackets and parentheses. A hostlist naming more than MAX_NAMES hosts or an
    invalid regular expression is an error."""

    def __init__(self, item: str = "<HOST>"):
        super().__init__(item, seps=" \t,:|")
        self.form = f"{item}[,{item}]..."

    def parse(self, text: str, warn: Warn = _ignore) -> tuple[str, ...]:
        from ..model.hostlist import HostlistError, Reading, compile_regex, read   # on first use
        items = []
        for token in split_outside_brackets(unquote(text), self.seps):
            bare = token[1:-1] if token.upper() in ("[ALL]", "[NONE]") else token
            if bare.upper() in ("ALL", "NONE"):
                bare = canonical_word(bare, warn)
                if bare == "NONE":
                    continue
                items.append(bare)
                continue
            try:
                if read(bare) is Reading.REGEX:
                    compile_regex(bare)
            except HostlistError as e:
                raise BadValue(str(e)) from None
            items.append(bare)
        return tuple(items)


class EnumList(StringList):
    """Several keywords of one `Choice` (JOBNODEMATCHPOLICY EXACTNODE EXACTPROC)."""

    def __init__(self, enum: Choice, seps: str = " \t,:|"):
        super().__init__(seps=seps)
        self.enum = enum
        self.form = f"{enum.form}[ ...]"

    def parse(self, text: str, warn: Warn = _ignore) -> tuple[str, ...]:
        tokens = split_tokens(unquote(text), self.seps)
        return tuple(self.enum.parse(tok, warn) for tok in tokens if tok.upper() not in ("NONE", "[NONE]"))

    def check(self, value: Any) -> tuple[str, ...]:
        return tuple(self.enum.check(v) for v in super().check(value))


class Flags(ValueType):
    """A set of flags; 3.3.1 finds them with strstr, so any delimiter works. Unknown flags are
    dropped with a warning (Maui ignores them too)."""

    empty: Any = frozenset()

    def __init__(self, *known: str, seps: str = " \t,:|", acted: Iterable[str] | None = None):
        self.known = frozenset(known)
        self.seps = seps
        self.form = "<FLAG>[:<FLAG>]..."
        self.acted = self.known if acted is None else frozenset(acted)
        """The flags maui-py acts on; the others are read, kept, shown and noted by check-config."""

    def inactive(self, value: Any) -> tuple[str, ...]:
        return tuple(sorted(set(value or ()) - self.acted))

    def parse(self, text: str, warn: Warn = _ignore) -> frozenset[str]:
        flags = set()
        for token in split_tokens(unquote(text), self.seps):
            flag = canonical_word(token, warn)
            if flag in self.known:
                flags.add(flag)
            elif flag not in ("NONE", "[NONE]"):
                hint = nearest(flag, self.known)
                warn(f"unknown flag {token!r} ignored" + (f" (did you mean {hint}?)" if hint else ""))
        return frozenset(flags)

    def check(self, value: Any) -> frozenset[str]:
        if isinstance(value, str) or not all(isinstance(v, str) for v in value):
            raise BadValue()
        unknown = {v.upper() for v in value} - self.known
        if unknown:
            raise BadValue(f"unknown flags {sorted(unknown)}")
        return frozenset(v.upper() for v in value)

    def format(self, value: Any, in_attr: bool = False) -> str:
        return (":" if in_attr else " ").join(sorted(value)) if value or in_attr else "[NONE]"


class LimitType(ValueType):
    """`[<SOFT>,]<HARD>` of `element` values (integers, or times for MAXWC); -1/INFINITY = none."""

    def __init__(self, element: ValueType):
        self.element = element
        self.form = f"[<SOFT>,]<HARD> of {element.form}"

    def parse(self, text: str, warn: Warn = _ignore) -> Limit:
        parts = unquote(text).split(",")
        if len(parts) > 2:
            raise BadValue("at most a soft and a hard value")
        values = [self._one(part, warn) for part in parts]
        limit = Limit(values[0], values[-1])
        if limit.hard_or_none is not None and limit.soft > limit.hard:
            warn(f"soft limit {parts[0].strip()} is above the hard limit {parts[-1].strip()}")
        return limit

    def _one(self, text: str, warn: Warn = _ignore) -> int:
        if text.strip().upper() in _UNLIMITED:
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

    def parse(self, text: str, warn: Warn = _ignore) -> FsTarget:
        match = _FSTARGET.fullmatch(unquote(text))
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

    def parse(self, text: str, warn: Warn = _ignore) -> tuple[tuple[str, int], ...]:
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


_DAYS = {full[:3]: full for full in
         ("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY")}


class Days(StringList):
    """Days of the week (`MON,TUE`, `Monday` or `[ALL]`), as three-letter upper-case names."""

    def __init__(self) -> None:
        super().__init__(seps=" \t,:|")
        self.form = "MON|TUE|WED|THU|FRI|SAT|SUN|[ALL][,...]"

    def parse(self, text: str, warn: Warn = _ignore) -> tuple[str, ...]:
        days = []
        for token in super().parse(text, warn):
            day = token.upper()
            if day != "ALL" and day not in _DAYS and day not in _DAYS.values():
                raise BadValue(f"{token!r} is not a day")
            days.append(day if day == "ALL" else day[:3])
        return tuple(days)


class RmType(ValueType):
    """`<RMTYPE>[:<SUBTYPE>]` of RMCFG TYPE / RMTYPE."""

    def __init__(self, kinds: Choice, subtypes: tuple[str, ...]):
        self.kinds, self.subtypes = kinds, subtypes
        self.form = f"{kinds.form}[:{'|'.join(subtypes)}]"

    def parse(self, text: str, warn: Warn = _ignore) -> str:
        kind, _, sub = unquote(text).partition(":")
        value = self.kinds.parse(kind, warn)
        if not sub:
            return value
        if sub.upper() not in self.subtypes:
            raise BadValue(f"unknown subtype {sub!r}")
        return f"{value}:{canonical_word(sub, warn)}"

    def check(self, value: Any) -> str:
        if not isinstance(value, str):
            raise BadValue()
        return self.parse(value)


class PolicyList(StringList):
    """NODEAVAILABILITYPOLICY: `<POLICY>[:<RESOURCE>]` items separated by spaces or commas."""

    def __init__(self, policies: Choice, resources: Mapping[str, str]):
        super().__init__(seps=" \t,")
        self.policies, self.resources = policies, dict(resources)
        self.form = f"<POLICY>[:<RESOURCE>] ... with POLICY {policies.form}, RESOURCE {'|'.join(sorted(set(resources.values())))}"

    def parse(self, text: str, warn: Warn = _ignore) -> tuple[str, ...]:
        items = []
        for token in split_tokens(unquote(text), self.seps):
            policy, _, resource = token.partition(":")
            value = self.policies.parse(policy, warn)
            if resource:
                if resource.upper() not in self.resources:
                    raise BadValue(f"unknown resource {resource!r}")
                value += ":" + self.resources[resource.upper()]
            items.append(value)
        return tuple(items)
