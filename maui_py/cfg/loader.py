"""Load maui.cfg into a frozen `SchedulerConfig`, or fail with every error at once.

`parse_config` reads logical lines in file order (grammar.py), resolves each name in the table
(params.py), parses the value with the row's type (values.py) and records value and source
(`file:line`). Scalars: the last line wins. `*CFG` objects: attributes accumulate across lines and a
later line overrides the same attribute. Anything doubtful is a warning; a bad value for a known
parameter is an error, and any error means no configuration at all (`ConfigError`), never a
half-applied one. Parsing is linear in the size of the file.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterator, Mapping, NamedTuple

from . import grammar
from .errors import ERROR, WARNING, BadValue, ConfigError, ConfigIssue
from .grammar import AttrToken, LogicalLine, ParamLine, Token
from .params import (
    ACCEPTED, GLOBAL, INDEXED, OBJECT, PARAMS, PARTITION, STACK, Attr, Param, lookup, lookup_attr, suggest,
)
from .values import PeriodOffset, ValueType, nearest
from .zone import host_zone

DEFAULT = "default"
OVERRIDE = "override"
MAX_STACK = 127  # MAX_MQOS - 1 in 3.3.1
MAX_HINTS = 200
"""Distinct unknown parameter names per file that get a "did you mean" hint (see _Builder.hint)."""
CRED_TYPES = ("USER", "GROUP", "ACCOUNT", "CLASS", "QOS")
_PLACEHOLDER = re.compile(r"@[A-Za-z_][A-Za-z0-9_]*@")
_KEY = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[([^\]]*)\])?\s*")


class _Setting(NamedTuple):
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
        return tuple(sorted(set(self._sources.values()), key=_source_order))

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


class SchedulerConfig:
    """An immutable, typed view of one configuration: values, their sources, and the warnings.

    Keys of the stored settings: (name, None) for global values and the global partition,
    (name, "<partition>") per partition, (name, <int>) per reservation stack level,
    (name, "<index>") for the legacy indexed forms.
    """

    __slots__ = ("_settings", "_set_names", "_objects", "_warnings", "zone")

    def __init__(self, settings: Mapping[tuple[str, Any], _Setting] | None = None,
                 objects: Mapping[str, Mapping[str, CredConfig]] | None = None,
                 warnings: tuple[ConfigIssue, ...] = ()):
        self._settings = MappingProxyType(dict(settings or {}))
        self._set_names = frozenset(name for name, _ in self._settings)
        self._objects = MappingProxyType({kind: MappingProxyType(dict(objs)) for kind, objs in (objects or {}).items()})
        self._warnings = tuple(warnings)
        self.zone = self.get("TIMEZONE") or host_zone()
        """Where SRCFG windows are read (cfg/zone.py): fixed when the configuration is made."""

    @classmethod
    def default(cls) -> SchedulerConfig:
        """Every parameter at its table default, as if maui.cfg were empty."""
        return cls()

    @property
    def warnings(self) -> list[ConfigIssue]:
        return list(self._warnings)

    def get(self, name: str, partition: str | None = None, *, index: Any = None) -> Any:
        """Typed value of a parameter: the partition's (or stack level's) own, else global, else default."""
        param = _param(name)
        if param.scope == OBJECT:
            raise TypeError(f"{param.name} is an object parameter: use objects() or object()")
        if param.maps_to:
            kind, attr = param.maps_to
            return self.object(kind, _index_key(param, index, partition)).value(attr)
        return self._lookup(param, _index_key(param, index, partition)).value

    def source(self, name: str, index: Any = None, *, partition: str | None = None) -> str:
        """Where a value comes from: "default", "override" or "file:line" (objects: all their lines)."""
        param = _param(name)
        key = _index_key(param, index, partition)
        if param.scope == OBJECT:
            return _join_sources(self.object(param.name, key).sources)
        if param.maps_to:
            kind, attr = param.maps_to
            return self.object(kind, key).source(attr)
        return self._lookup(param, key).source

    def _lookup(self, param: Param, key: Any) -> _Setting:
        found = self._settings.get((param.name, key))
        if found is None and param.scope == PARTITION and key is not None:
            found = self._settings.get((param.name, None))
        return found or _Setting(param.default_at(key), DEFAULT)

    def is_set(self, name: str, index: Any = None) -> bool:
        """True when the file (or an override) set the parameter, at `index` if given."""
        param = _param(name)
        if param.scope == OBJECT:
            objects = self._objects.get(param.name, {})
            return bool(objects) if index is None else str(index) in objects
        if param.maps_to:
            kind, attr = param.maps_to
            objects = self._objects.get(kind, {})
            names = objects if index is None else [str(index)]
            return any(attr in objects.get(n, {}) for n in names)
        if index is not None:
            return (param.name, _index_key(param, index, None)) in self._settings
        return param.name in self._set_names

    def indexed(self, name: str) -> dict[Any, Any]:
        """All levels/partitions/indices of an indexed parameter, defaults included.

        stack: {level: value} for level 0 and every level set on any stack parameter;
        partition: {"ALL": global value, partition: value ...}; indexed: {index: value}.
        """
        param = _param(name)
        if param.scope == STACK:
            levels = {0} | {key for (n, key) in self._settings if PARAMS[n].scope == STACK}
            return {level: self.get(param.name, index=level) for level in sorted(levels)}
        if param.scope == PARTITION:
            parts = sorted(key for (n, key) in self._settings if n == param.name and key is not None)
            return {"ALL": self.get(param.name), **{p: self.get(param.name, p) for p in parts}}
        if param.scope == INDEXED and param.maps_to:
            kind, attr = param.maps_to
            return {obj: cfg[attr] for obj, cfg in self._objects.get(kind, {}).items() if attr in cfg}
        if param.scope == INDEXED:
            return {key: s.value for (n, key), s in self._settings.items() if n == param.name}
        raise TypeError(f"{param.name} is not indexed")

    def objects(self, name: str) -> dict[str, CredConfig]:
        """Every configured object of a `*CFG` parameter (DEFAULT included when configured)."""
        param = _param(name)
        if param.scope != OBJECT:
            raise TypeError(f"{param.name} is not an object parameter")
        return dict(self._objects.get(param.name, {}))

    def object(self, name: str, obj: str) -> CredConfig:
        """One object; an empty mapping when it is not configured."""
        param = _param(name)
        found = self._objects.get(param.name, {}).get(obj)
        return found if found is not None else CredConfig(param.name, obj)

    def items(self, verbose: bool = True) -> Iterator[tuple[str, Any, Any, str]]:
        """(name, index, value, source) for showconfig, in table order.

        Globals once; partition parameters globally and per configured partition; stacks per
        level; objects one row each with their CredConfig. Legacy per-attribute forms show under
        their object. With verbose=False, accepted parameters appear only when set.
        """
        for param in PARAMS.values():
            if param.maps_to or (not verbose and param.status == ACCEPTED and not self.is_set(param.name)):
                continue
            if param.scope == OBJECT:
                for obj, cfg in self._objects.get(param.name, {}).items():
                    yield param.name, obj, cfg, self.source(param.name, obj)
            elif param.scope == GLOBAL:
                yield param.name, None, self.get(param.name), self.source(param.name)
            else:
                for key, value in (self.indexed(param.name) or {None: param.default}).items():
                    key = None if key == "ALL" else key
                    yield param.name, key, value, self.source(param.name, key)

    def not_acted_on(self) -> list[tuple[str, str]]:
        """(what, source) for every set parameter or attribute that maui-py accepts but does not
        act on, and every value of an active one that it reads but does not act on
        (`BACKFILLPOLICY PREEMPT`, `QOSCFG[hi] QFLAGS=PREEMPTOR`: the value types declare them)."""
        found = []
        for (name, key), setting in self._settings.items():
            param = PARAMS[name]
            label = name if key is None else f"{name}[{key}]"
            if param.status == ACCEPTED:
                found.append((label, setting.source))
            else:
                found += [(f"{label} {part}", setting.source) for part in param.type.inactive(setting.value)]
        for kind, objects in self._objects.items():
            for obj, cfg in objects.items():
                for attr in cfg:
                    row = PARAMS[kind].attrs[attr.split("[")[0]]
                    if PARAMS[kind].status == ACCEPTED or row.status == ACCEPTED:
                        found.append((f"{kind}[{obj}] {attr}", cfg.source(attr)))
                    else:
                        found += [(f"{kind}[{obj}] {attr}={part}", cfg.source(attr))
                                  for part in row.type.inactive(cfg[attr])]
        return sorted(found, key=lambda item: _source_order(item[1]))

    def with_overrides(self, overrides: Mapping[str, Any]) -> SchedulerConfig:
        """A copy with some values replaced, validated by the same types as the file.

        Keys are names as in maui.cfg (`RESERVATIONDEPTH`, `RESERVATIONDEPTH[1]`, `USERCFG[john]`);
        values are typed values or maui.cfg text; an object takes an attribute mapping or text.
        """
        builder = _Builder(OVERRIDE, self)
        for key, value in overrides.items():
            builder.override(key, value)
        return builder.result()

    def snapshot(self) -> dict[tuple[str, Any], Any]:
        """Every set value by (name, key), objects as plain dicts; for comparisons and tests."""
        values: dict[tuple[str, Any], Any] = {key: s.value for key, s in self._settings.items()}
        for kind, objects in self._objects.items():
            values.update({(kind, obj): dict(cfg) for obj, cfg in objects.items()})
        return values

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SchedulerConfig) and self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SchedulerConfig({len(self._settings)} settings, {sum(map(len, self._objects.values()))} objects)"


def parse_config(text: str, filename: str = "<string>") -> SchedulerConfig:
    """Parse maui.cfg text; raises ConfigError listing every error."""
    builder = _Builder(filename)
    builder.feed(text)
    return builder.result()


def read_config_text(path: str | Path) -> str:
    """A config file's text; bytes that are not UTF-8 (old comments) become U+FFFD. Raises OSError."""
    return Path(path).read_bytes().decode("utf-8", errors="replace")


def load_with_issues(path: str | Path) -> tuple[SchedulerConfig | None, list[ConfigIssue], list[ConfigIssue]]:
    """(config, errors, warnings) of a file, config None when there are errors; OSError if unreadable.

    For commands that report on a file rather than use it (check-config, showconfig).
    """
    text = read_config_text(path)
    try:
        config = parse_config(text, str(path))
    except ConfigError as failure:
        return None, failure.issues, failure.warnings
    return config, [], config.warnings


def load_config(path: str | Path) -> SchedulerConfig:
    """Read and parse a file; an unreadable file is a ConfigError too."""
    try:
        text = read_config_text(path)
    except OSError as exc:
        raise ConfigError([ConfigIssue(str(path), 0, 0, "", "", "", f"cannot read: {exc.strerror or exc}")]) from exc
    return parse_config(text, str(path))


def _param(name: str) -> Param:
    found = lookup(name)
    if found is None:
        raise KeyError(f"unknown parameter {name!r}")
    return found[0]


def _index_key(param: Param, index: Any, partition: str | None) -> Any:
    """The storage key of an index given to the API (None = global partition, level 0, ...)."""
    key = index if index is not None else partition
    if param.scope == STACK:
        return 0 if key is None else int(key)
    if param.scope == PARTITION:
        return None if key is None or str(key).upper() == "ALL" else str(key)
    if param.scope in (OBJECT, INDEXED):
        return ("DEFAULT" if param.scope == OBJECT else "0") if key is None else str(key)
    return None


def _join_sources(sources: tuple[str, ...]) -> str:
    """`maui.cfg:2,3,4` for several lines of one file; "default" for none."""
    parts: list[str] = []
    last_file = None
    for source in sources:
        file, _, line = source.rpartition(":")
        parts.append(line if file == last_file and line.isdigit() else source)
        last_file = file
    return ",".join(parts) or DEFAULT


def _source_order(source: str) -> tuple[str, int]:
    file, _, line = source.rpartition(":")
    return (file, int(line)) if line.isdigit() else (source, 0)


class _Builder:
    """Mutable state while one file (or one set of overrides) is applied; `result()` freezes it."""

    def __init__(self, filename: str, base: SchedulerConfig | None = None):
        self.filename = filename
        self.settings: dict[tuple[str, Any], _Setting] = dict(base._settings) if base else {}
        self.objects: dict[str, dict[str, tuple[dict[str, Any], dict[str, str]]]] = {}
        for kind, objects in (base._objects.items() if base else ()):
            self.objects[kind] = {obj: (dict(cfg), {a: cfg.source(a) for a in cfg}) for obj, cfg in objects.items()}
        self.warnings: list[ConfigIssue] = list(base._warnings) if base else []
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

    def result(self) -> SchedulerConfig:
        if self.errors:
            raise ConfigError(self.errors, self.warnings)
        objects = {kind: {obj: CredConfig(kind, obj, values, sources) for obj, (values, sources) in objs.items()}
                   for kind, objs in self.objects.items()}
        order = lambda i: (i.file != self.filename, i.file, i.line, i.column)  # noqa: E731
        return SchedulerConfig(self.settings, objects, tuple(sorted(self.warnings, key=order)))

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
        self.settings[key] = _Setting(value, source)

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
            found = suggest(upper)
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
        store_key = _index_key(param, index, None)
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

__all__ = ["CredConfig", "SchedulerConfig", "load_config", "load_with_issues", "parse_config", "read_config_text"]
