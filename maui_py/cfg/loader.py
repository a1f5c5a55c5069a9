"""Load maui.cfg into a frozen `SchedulerConfig`, or fail with every error at once.

`parse_config` reads logical lines in file order (grammar.py), resolves each name in the table
(params.py), parses the value with the row's type (values.py) and records value and source
(`file:line`). Scalars: the last line wins. `*CFG` objects: attributes accumulate across lines and a
later line overrides the same attribute. Anything doubtful is a warning; a bad value for a known
parameter is an error, and any error means no configuration at all (`ConfigError`), never a
half-applied one. Parsing is linear in the size of the file.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterator, Mapping

from .builder import MAX_HINTS, MAX_STACK, Builder
from .errors import ConfigError, ConfigIssue
from .params import ACCEPTED, GLOBAL, INDEXED, OBJECT, PARAMS, PARTITION, STACK, Param, suggest
from .stored import DEFAULT, OVERRIDE, CredConfig, Setting, index_key, join_sources, param_row, source_order
from .zone import host_zone


class SchedulerConfig:
    """An immutable, typed view of one configuration: values, their sources, and the warnings.

    Keys of the stored settings: (name, None) for global values and the global partition,
    (name, "<partition>") per partition, (name, <int>) per reservation stack level,
    (name, "<index>") for the legacy indexed forms.
    """

    __slots__ = ("_settings", "_set_names", "_objects", "_warnings", "zone")

    def __init__(self, settings: Mapping[tuple[str, Any], Setting] | None = None,
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
        param = param_row(name)
        if param.scope == OBJECT:
            raise TypeError(f"{param.name} is an object parameter: use objects() or object()")
        if param.maps_to:
            kind, attr = param.maps_to
            return self.object(kind, index_key(param, index, partition)).value(attr)
        return self._lookup(param, index_key(param, index, partition)).value

    def source(self, name: str, index: Any = None, *, partition: str | None = None) -> str:
        """Where a value comes from: "default", "override" or "file:line" (objects: all their lines)."""
        param = param_row(name)
        key = index_key(param, index, partition)
        if param.scope == OBJECT:
            return join_sources(self.object(param.name, key).sources)
        if param.maps_to:
            kind, attr = param.maps_to
            return self.object(kind, key).source(attr)
        return self._lookup(param, key).source

    def _lookup(self, param: Param, key: Any) -> Setting:
        found = self._settings.get((param.name, key))
        if found is None and param.scope == PARTITION and key is not None:
            found = self._settings.get((param.name, None))
        return found or Setting(param.default_at(key), DEFAULT)

    def is_set(self, name: str, index: Any = None) -> bool:
        """True when the file (or an override) set the parameter, at `index` if given."""
        param = param_row(name)
        if param.scope == OBJECT:
            objects = self._objects.get(param.name, {})
            return bool(objects) if index is None else str(index) in objects
        if param.maps_to:
            kind, attr = param.maps_to
            objects = self._objects.get(kind, {})
            names = objects if index is None else [str(index)]
            return any(attr in objects.get(n, {}) for n in names)
        if index is not None:
            return (param.name, index_key(param, index, None)) in self._settings
        return param.name in self._set_names

    def indexed(self, name: str) -> dict[Any, Any]:
        """All levels/partitions/indices of an indexed parameter, defaults included.

        stack: {level: value} for level 0 and every level set on any stack parameter;
        partition: {"ALL": global value, partition: value ...}; indexed: {index: value}.
        """
        param = param_row(name)
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
        param = param_row(name)
        if param.scope != OBJECT:
            raise TypeError(f"{param.name} is not an object parameter")
        return dict(self._objects.get(param.name, {}))

    def object(self, name: str, obj: str) -> CredConfig:
        """One object; an empty mapping when it is not configured."""
        param = param_row(name)
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
        return sorted(found, key=lambda item: source_order(item[1]))

    def with_overrides(self, overrides: Mapping[str, Any]) -> SchedulerConfig:
        """A copy with some values replaced, validated by the same types as the file.

        Keys are names as in maui.cfg (`RESERVATIONDEPTH`, `RESERVATIONDEPTH[1]`, `USERCFG[john]`);
        values are typed values or maui.cfg text; an object takes an attribute mapping or text.
        """
        builder = Builder(OVERRIDE, self._settings, self._objects, self._warnings, suggest=suggest)
        for key, value in overrides.items():
            builder.override(key, value)
        return SchedulerConfig(*builder.result())

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
    builder = Builder(filename, suggest=suggest)
    builder.feed(text)
    return SchedulerConfig(*builder.result())


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


__all__ = ["MAX_HINTS", "MAX_STACK", "CredConfig", "SchedulerConfig", "load_config", "load_with_issues", "parse_config", "read_config_text"]
