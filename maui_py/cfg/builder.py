"""Applying maui.cfg lines (or overrides) to a configuration under construction: each logical
line's name resolved in the table, its value parsed with the row's type, stored with its source;
every error and warning collected with file, line and column. `Builder.result()` gives the frozen
pieces a SchedulerConfig (loader.py) is made of, or raises ConfigError listing every error."""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Mapping

from . import grammar
from .errors import ERROR, WARNING, BadValue, ConfigError, ConfigIssue
from .grammar import AttrToken, LogicalLine, ParamLine, Token
from .params import GLOBAL, OBJECT, PARTITION, STACK, Attr, Param, lookup, lookup_attr, suggest
from .stored import DEFAULT, OVERRIDE, CredConfig, Setting, index_key
from .values import PeriodOffset, ValueType, nearest

MAX_STACK = 127  # MAX_MQOS - 1 in 3.3.1
MAX_HINTS = 200
"""Distinct unknown parameter names per file that get a "did you mean" hint (see Builder.hint)."""
CRED_TYPES = ("USER", "GROUP", "ACCOUNT", "CLASS", "QOS")
_PLACEHOLDER = re.compile(r"@[A-Za-z_][A-Za-z0-9_]*@")
_KEY = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[([^\]]*)\])?\s*")


class Builder:
    """Mutable state while one file (or one set of overrides) is applied; `result()` freezes it."""

    def __init__(self, filename: str, settings: Mapping[tuple[str, Any], Setting] | None = None,
                 objects: Mapping[str, Mapping[str, CredConfig]] | None = None,
                 warnings: Iterable[ConfigIssue] = (), *,
                 suggest: Callable[[str], str | None] = suggest):
        """Start empty, or from a configuration's settings, objects and warnings (overrides).
        `suggest` gives an unknown name's "did you mean" (params.suggest; the loader passes
        its own name for it, which tests count calls of)."""
        self.filename = filename
        self.suggest = suggest
        self.settings: dict[tuple[str, Any], Setting] = dict(settings or {})
        self.objects: dict[str, dict[str, tuple[dict[str, Any], dict[str, str]]]] = {}
        for kind, objs in (objects or {}).items():
            self.objects[kind] = {obj: (dict(cfg), {a: cfg.source(a) for a in cfg}) for obj, cfg in objs.items()}
        self.warnings: list[ConfigIssue] = list(warnings)
        self.errors: list[ConfigIssue] = []
        self.line: LogicalLine | None = None
        self.parsed: dict[tuple[ValueType, str], tuple[Any, tuple[str, ...]]] = {}
        """(type, text) -> (value, warnings) of each value read well: a 20,000-user file repeats
        its values (FSTARGET=10, MAXJOB=4), and values are immutable, so each is read once."""
        self.hints: dict[str, str] = {}

    # ------------------------------------------------------------------ reporting

    def issue(self, severity: str, offset: int, parameter: str, message: str, value: str = "",
              expected: str = "") -> None:
        line, column = self.line.position(offset) if self.line else (0, 0)
        found = ConfigIssue(self.filename, line, column, parameter, value, expected, message, severity)
        (self.errors if severity == ERROR else self.warnings).append(found)

    def warn(self, offset: int, parameter: str, message: str, value: str = "") -> None:
        self.issue(WARNING, offset, parameter, message, value)

    def source(self, offset: int) -> str:
        if self.line is None or self.filename == OVERRIDE:
            return OVERRIDE
        return f"{self.filename}:{self.line.position(offset)[0]}"

    def result(self) -> tuple[dict[tuple[str, Any], Setting], dict[str, dict[str, CredConfig]],
                              tuple[ConfigIssue, ...]]:
        """(settings, objects, warnings) for SchedulerConfig; ConfigError if any line failed."""
        if self.errors:
            raise ConfigError(self.errors, self.warnings)
        objects = {kind: {obj: CredConfig(kind, obj, values, sources) for obj, (values, sources) in objs.items()}
                   for kind, objs in self.objects.items()}
        order = lambda i: (i.file != self.filename, i.file, i.line, i.column)  # noqa: E731
        return self.settings, objects, tuple(sorted(self.warnings, key=order))

    # ------------------------------------------------------------------ values

    def parse(self, vtype: ValueType, token: Token, label: str) -> tuple[bool, Any]:
        """(ok, value) of a value token; an empty value, a placeholder or a bad value gives ok=False."""
        text = token.text
        placeholder = _PLACEHOLDER.search(text)
        if placeholder:
            self.warn(token.offset + placeholder.start(), label, f"template placeholder {placeholder.group()} "
                      "left in (a maui.cfg.in template?); ignored", text)
            return False, None
        if not text.strip():
            if vtype.empty is ValueType.NO_EMPTY:
                self.warn(token.offset, label, "no value given; ignored")
                return False, None
            return True, vtype.empty
        known = self.parsed.get((vtype, text))
        if known is not None:
            value, notes = known
            for note in notes:
                self.warn(token.offset, label, note, text)
            return True, value
        notes: list[str] = []
        try:
            value = vtype.parse(text, notes.append)
        except BadValue as bad:
            if text.strip().upper() == "[NONE]":
                return True, None
            detail = f": {bad.detail}" if bad.detail else ""
            self.issue(ERROR, token.offset, label, f"{_shown(text)} is not valid (expected {vtype.form}){detail}",
                       text, vtype.form)
            return False, None
        for note in notes:
            self.warn(token.offset, label, note, text)
        self.parsed[vtype, text] = value, tuple(notes)
        return True, value

    def store(self, key: tuple[str, Any], value: Any, source: str, offset: int, label: str) -> None:
        previous = self.settings.get(key)
        if previous and source != OVERRIDE and previous.source not in (DEFAULT, OVERRIDE):
            self.warn(offset, label, f"set again; overrides {previous.source} (the last line wins)")
        self.settings[key] = Setting(value, source)

    def store_attr(self, kind: str, obj: str, attr: str, value: Any, op: str, source: str, offset: int,
                   label: str, vtype: ValueType) -> None:
        values, sources = self.objects.setdefault(kind, {}).setdefault(obj, ({}, {}))
        if op in ("+=", "-="):
            value = self.combine(vtype, values.get(attr, vtype.empty), value, op, offset, label)
        elif attr in values and source != OVERRIDE and sources[attr] not in (DEFAULT, OVERRIDE):
            self.warn(offset, label, f"given again; overrides {sources[attr]} (the last one wins)")
        values[attr], sources[attr] = value, source

    def combine(self, vtype: ValueType, old: Any, new: Any, op: str, offset: int, label: str) -> Any:
        """`ATTR+=` / `ATTR-=` on lists and flag sets; other types read the operator as `=`."""
        if isinstance(new, (tuple, frozenset)) and old is not ValueType.NO_EMPTY:
            old = old or type(new)()
            if isinstance(new, frozenset):
                return old | new if op == "+=" else old - new
            return tuple(dict.fromkeys(old + new)) if op == "+=" else tuple(v for v in old if v not in new)
        self.warn(offset, label, f"operator {op} applies to lists only; read as '='")
        return new

    # ------------------------------------------------------------------ lines

    def feed(self, text: str) -> None:
        lines, includes = grammar.logical_lines(text)
        for number, column in includes:
            self.warnings.append(ConfigIssue(self.filename, number, column, "", "#INCLUDE", "",
                                             "#INCLUDE is not followed by maui-py; the named file is not read",
                                             WARNING))
        for line in lines:
            self.line = line
            parsed = grammar.parse_line(line)
            if parsed is None:
                start = len(line.text) - len(line.text.lstrip())
                self.warn(start, "", f"not a parameter line: {line.text.strip()!r}; ignored", line.text.strip())
                continue
            self.apply(parsed)
        self.line = None

    def apply(self, parsed: ParamLine) -> None:
        name = parsed.name
        found = lookup(name.text)
        if found is None:
            self.warn(name.offset, name.text, f"unknown parameter{self.hint(name.text)}; line ignored", name.text)
            return
        param, alias = found
        index = parsed.index
        label = param.name + (f"[{_cut(index.text)}]" if index is not None else "")
        if alias and alias.warn:
            self.warn(name.offset, label, f"{name.text.upper()} is {alias.note}; read as {param.name}")
        self.check_spelling(name, label, parsed)
        key = self.key(param, parsed, label)
        if key is _SKIP:
            return
        if param.scope == OBJECT:
            self.apply_attrs(param, key, parsed.value, label)
        elif param.maps_to:
            ok, value = self.parse(param.type, parsed.value, label)
            if ok:
                kind, attr = param.maps_to
                self.store_attr(kind, key, attr, value, "=", self.source(name.offset), name.offset, label, param.type)
        else:
            ok, value = self.parse(param.type, parsed.value, label)
            if ok:
                self.store((param.name, key), value, self.source(name.offset), name.offset, label)

    def hint(self, name: str) -> str:
        """" (did you mean X?)" for an unknown name, or "". A hint compares the name with every
        known one (about 2 ms); a file with more than MAX_HINTS unknown names (not a maui.cfg, or
        generated) gets no more hints, so it still loads in linear time."""
        upper = name.upper()
        if upper not in self.hints:
            if len(self.hints) >= MAX_HINTS:
                return f" (no hint: over {MAX_HINTS} unknown names in this file)"
            found = self.suggest(upper)
            self.hints[upper] = f" (did you mean {found}?)" if found else ""
        return self.hints[upper]

    def check_spelling(self, name: Token, label: str, parsed: ParamLine) -> None:
        """Warn where Maui 3.3.1 would have skipped a line maui-py applies (spec 1.2)."""
        if self.line.indented:
            self.warn(name.offset, label, "indented line: Maui 3.3.1 ignores parameters that do not start a "
                      "line; maui-py applies it")
        if name.text != name.text.upper():
            self.warn(name.offset, label, f"{name.text!r}: Maui 3.3.1 matches parameter names in upper case "
                      "only and would ignore this line; maui-py applies it")
        if parsed.index is not None and not parsed.index_closed:
            self.warn(parsed.index.offset, label, "missing ']' after the index")

    def key(self, param: Param, parsed: ParamLine, label: str) -> Any:
        """Storage key of the line's index, per the parameter's scope; `_SKIP` to drop the line."""
        index = parsed.index
        text = index.text if index is not None else None
        if text is not None and _PLACEHOLDER.search(text):
            self.warn(index.offset, label, f"template placeholder {text} left in (a maui.cfg.in template?); "
                      "line ignored", text)
            return _SKIP
        if param.scope == GLOBAL:
            if text is not None:
                self.warn(index.offset, label, f"{param.name} takes no index; [{text}] ignored", text)
            return None
        if param.scope == PARTITION:
            if text is None or text.upper() == "ALL":
                return None
            if text == "0":
                self.warn(index.offset, label, "[0] read as all partitions, as in the docs' examples (Maui 3.3.1 "
                          "would configure a partition named '0')", text)
                return None
            return text
        if param.scope == STACK:
            return self.stack_level(index, label)
        if not text:
            if text is not None:
                self.warn(index.offset, label, "empty index; line ignored")
                return _SKIP
            return "DEFAULT" if param.scope == OBJECT else "0"
        return text

    def stack_level(self, index: Token | None, label: str) -> Any:
        if index is None:
            return 0
        text = index.text
        if re.fullmatch(r"-[0-9]+", text) or any(c.isdigit() and not c.isascii() for c in text):
            # negative, or digits of another script ('²', '٣'): they read as numbers but are not
            # ASCII digits, and int() would take some of them; only 0-9 make a level
            self.issue(ERROR, index.offset, label, f"stack index {_shown(text)} is not valid (expected "
                       f"0..{MAX_STACK} in ASCII digits)", text, f"0..{MAX_STACK}")
            return _SKIP
        if not re.fullmatch(r"[0-9]+", text):
            self.warn(index.offset, label, f"non-numeric stack index {_shown(text)} read as 0 (as 3.3.1's strtol "
                      "does)", text)
            return 0
        digits = text.lstrip("0")
        if len(digits) > 3 or int(digits or "0") > MAX_STACK:      # length first: no int() of 5000 digits
            shown = text if len(text) <= SHOWN else _shown(text)
            self.warn(index.offset, label, f"stack index {shown} clamped to {MAX_STACK} (as 3.3.1 does)", text)
            return MAX_STACK
        return int(digits or "0")

    def apply_attrs(self, param: Param, obj: str, value: Token, label: str) -> None:
        values = self.objects.setdefault(param.name, {}).setdefault(obj, ({}, {}))[0]
        offsets: list[tuple[Attr, Token]] = []
        for word in grammar.parse_attrs(value):
            if isinstance(word, Token):
                self.warn(word.offset, label, f"{word.text!r} is not <ATTR>=<VALUE>; ignored", word.text)
                continue
            self.apply_attr(param, obj, word, label)
            attr = lookup_attr(param, word.name.text)
            if attr is not None and isinstance(attr.type, PeriodOffset):
                offsets.append((attr, word.value))
        for attr, token in offsets:            # once the line's PERIOD is known
            message = attr.type.beyond(values.get(attr.name), values.get(attr.type.period_attr))
            if message:
                self.warn(token.offset, f"{label} {attr.name}", f"{_shown(token.text)} is {message}", token.text)

    def apply_attr(self, param: Param, obj: str, word: AttrToken, label: str) -> None:
        name = word.name
        attr = lookup_attr(param, name.text)
        where = f"{label} {name.text.upper()}"
        if attr is None:
            hint = nearest(name.text, param.attrs)
            self.warn(name.offset, where, "unknown attribute" + (f" (did you mean {hint}?)" if hint else "")
                      + "; ignored (Maui 3.3.1 skips it silently)", name.text)
            return
        where = f"{label} {attr.name}"
        if name.text != name.text.upper():
            self.warn(name.offset, where, f"{name.text!r}: Maui 3.3.1 matches attribute names in upper case only")
        key = self.attr_key(attr, word, where)
        if key is _SKIP:
            return
        ok, value = self.parse(attr.type, word.value, where)
        if ok:
            self.store_attr(param.name, obj, key, value, word.op, self.source(name.offset), name.offset, where,
                            attr.type)

    def attr_key(self, attr: Attr, word: AttrToken, where: str) -> Any:
        """`MAXPROC[USER:steve]` keys of multi-dimensional limits; other indices are dropped."""
        if word.index is None:
            return attr.name
        index = word.index
        if not attr.multidim:
            self.warn(index.offset, where, f"{attr.name} takes no [index]; ignored", index.text)
            return _SKIP
        cred, _, value = index.text.partition(":")
        if cred.upper() not in CRED_TYPES:
            self.warn(index.offset, where, f"unknown credential type {cred!r} (expected "
                      f"{'|'.join(CRED_TYPES)}); ignored", index.text)
            return _SKIP
        return f"{attr.name}[{cred.upper()}{':' + value if value else ''}]"

    # ------------------------------------------------------------------ overrides

    def override(self, key: str, value: Any) -> None:
        match = _KEY.fullmatch(key)
        found = lookup(match.group(1)) if match else None
        if found is None:
            self.errors.append(ConfigIssue(OVERRIDE, 0, 0, key, "", "", "unknown parameter"))
            return
        param, index = found[0], match.group(2)
        if isinstance(value, str) or (param.scope == OBJECT and not isinstance(value, Mapping)):
            self.feed(f"{key} {value}")
            return
        label = param.name + (f"[{index}]" if index is not None else "")
        if param.scope == OBJECT:
            obj = index or "DEFAULT"
            for attr_name, attr_value in value.items():
                attr = lookup_attr(param, attr_name.split("[")[0])
                checked = self.check(attr.type if attr else None, attr_value, f"{label} {attr_name}")
                if checked is not _SKIP:
                    self.store_attr(param.name, obj, attr.name + attr_name[len(attr_name.split("[")[0]):],
                                    checked, "=", OVERRIDE, 0, label, attr.type)
            return
        checked = self.check(param.type, value, label)
        if checked is _SKIP:
            return
        store_key = index_key(param, index, None)
        if param.maps_to:
            kind, attr = param.maps_to
            self.store_attr(kind, store_key, attr, checked, "=", OVERRIDE, 0, label, param.type)
        else:
            self.store((param.name, store_key), checked, OVERRIDE, 0, label)

    def check(self, vtype: ValueType | None, value: Any, label: str) -> Any:
        if vtype is None:
            self.errors.append(ConfigIssue(OVERRIDE, 0, 0, label, repr(value), "", "unknown attribute"))
            return _SKIP
        try:
            return vtype.coerce(value)
        except BadValue as bad:
            self.errors.append(ConfigIssue(OVERRIDE, 0, 0, label, repr(value), vtype.form,
                                           f"{value!r} is not valid (expected {vtype.form})"
                                           + (f": {bad.detail}" if bad.detail else "")))
            return _SKIP


_SKIP = object()
SHOWN = 60
"""Longest value quoted whole in a message; a longer one (5000 digits) is cut, so a message stays a line."""


def _cut(text: str) -> str:
    """`text` cut to SHOWN characters (an index in a parameter's label)."""
    return text if len(text) <= SHOWN else text[:SHOWN] + "..."


def _shown(text: str) -> str:
    """`text` quoted for a message, cut to SHOWN characters with its length when longer."""
    if len(text) <= SHOWN:
        return repr(text)
    return repr(text[:SHOWN]) + f"... ({len(text)} characters)"
