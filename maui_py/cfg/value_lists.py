"""Value types of maui.cfg for lists: words, host lists, enumerations, flags, week days,
resource-manager types and policy lists. values.py re-exports them."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from .errors import BadValue
from .value_core import (
    canonical_word, Choice, drop_markers, ignore, nearest, split_tokens, unquote, ValueType, Warn,
)


class StringList(ValueType):
    """Names separated by any of `seps`; `[ALL]`/`ALL` become "ALL" and `[NONE]` the empty list."""

    empty: Any = ()

    def __init__(self, item: str = "<NAME>", seps: str = " \t,:", markers: bool = False):
        self.seps, self.markers = seps, markers
        shown = "|".join("space" if s == " " else s for s in seps if s != "\t")
        self.form = f"{item}[({shown}){item}]..."

    def parse(self, text: str, warn: Warn = ignore) -> tuple[str, ...]:
        text = drop_markers(text, warn) if self.markers else text
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

    def parse(self, text: str, warn: Warn = ignore) -> tuple[str, ...]:
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

    def parse(self, text: str, warn: Warn = ignore) -> tuple[str, ...]:
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

    def parse(self, text: str, warn: Warn = ignore) -> frozenset[str]:
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


_DAYS = {full[:3]: full for full in
         ("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY")}


class Days(StringList):
    """Days of the week (`MON,TUE`, `Monday` or `[ALL]`), as three-letter upper-case names."""

    def __init__(self) -> None:
        super().__init__(seps=" \t,:|")
        self.form = "MON|TUE|WED|THU|FRI|SAT|SUN|[ALL][,...]"

    def parse(self, text: str, warn: Warn = ignore) -> tuple[str, ...]:
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

    def parse(self, text: str, warn: Warn = ignore) -> str:
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

    def parse(self, text: str, warn: Warn = ignore) -> tuple[str, ...]:
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
