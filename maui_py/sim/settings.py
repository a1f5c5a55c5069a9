"""The effective settings of several maui.cfg texts, side by side, for the compare report.

Comparing the files' text marks `BACKFILLDEPTH 0` as different from a file that leaves it at
its default 0, and shows `RESERVATIONDEPTH` and `RESERVATIONDEPTH[0]` as two settings. Here
each text is read as the scheduler reads it (parse_config: aliases, defaults, stack level 0
= the unindexed form) and every parameter any of them sets is shown with its value in each,
the default where a file does not set it: a row differs only when the values do.
"""

from __future__ import annotations

from typing import Any, Callable

from ..cfg import ConfigError, SchedulerConfig, parse_config
from ..cfg.params import OBJECT, PARAMS, PARTITION, STACK

Getter = Callable[[SchedulerConfig], str]


def _key(name: str, index: Any) -> tuple[str, Getter]:
    """The row name of one stored setting and how to read its value from any configuration."""
    param = PARAMS[name]
    if param.scope == OBJECT:
        def obj(cfg: SchedulerConfig) -> str:
            found = cfg.objects(name).get(index)
            return found.format() if found is not None else ""
        return f"{name}[{index}]", obj
    if param.scope == STACK:
        return (name if index == 0 else f"{name}[{index}]"), lambda cfg: param.type.show(cfg.get(name, index=index))
    if param.scope == PARTITION:
        return (name if index is None else f"{name}[{index}]"), lambda cfg: param.type.show(cfg.get(name, index))
    if index is None:
        return name, lambda cfg: param.type.show(cfg.get(name))
    return f"{name}[{index}]", lambda cfg: param.type.show(cfg.indexed(name).get(index, param.default))


def side_by_side(texts: list[str]) -> list[dict[str, Any]] | None:
    """For each text: {"settings": {row: value}, "set": [rows the text sets]}, over the rows any
    of them sets, in name order; None if a text does not load (the caller shows the text)."""
    try:
        configs = [parse_config(text, f"config {k + 1}") for k, text in enumerate(texts)]
    except ConfigError:
        return None
    rows: dict[str, Getter] = {}
    set_by: list[set[str]] = []
    for cfg in configs:
        own = set()
        for name, index in cfg.snapshot():
            row, getter = _key(name, index)
            rows.setdefault(row, getter)
            own.add(row)
        set_by.append(own)
    order = sorted(rows)
    return [{"settings": {row: rows[row](cfg) for row in order}, "set": sorted(own)}
            for cfg, own in zip(configs, set_by)]
