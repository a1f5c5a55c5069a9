"""Adapters by resource-manager type, found through the `maui_py.adapters` entry-point group.

RMCFG[name] TYPE=SLURM|PBS|SIM selects one; a site adds its own by declaring an entry point
in that group (name = TYPE, value = a factory taking (config, rm_name)).
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Callable

from ..cfg import SchedulerConfig
from .protocol import ResourceManager

GROUP = "maui_py.adapters"
BUILTIN = {
    "SLURM": "maui_py.adapters.slurm:SlurmAdapter",
    "PBS": "maui_py.adapters.torque:TorqueAdapter",
}


def _load(ref: str) -> Callable[..., ResourceManager]:
    module, _, attr = ref.partition(":")
    mod = __import__(module, fromlist=[attr])
    return getattr(mod, attr)


def factories() -> dict[str, Callable[..., ResourceManager]]:
    """TYPE -> factory, built-ins first, entry points override. O(entry points)."""
    out: dict[str, Callable[..., ResourceManager]] = {}
    for kind, ref in BUILTIN.items():
        out[kind] = lambda *a, _ref=ref, **k: _load(_ref)(*a, **k)
    for ep in entry_points(group=GROUP):
        out[ep.name.upper()] = ep.load()
    return out


def create(cfg: SchedulerConfig, rm_name: str | None = None) -> ResourceManager:
    """The adapter RMCFG asks for (the first RMCFG object when no name is given)."""
    objs = cfg.objects("RMCFG")
    if rm_name is None:
        names = [n for n in objs if n != "DEFAULT"] or list(objs)
        if not names:
            raise ValueError("no RMCFG[<name>] TYPE=... in the configuration")
        rm_name = names[0]
    kind = str(cfg.object("RMCFG", rm_name).get("TYPE", "")).split(":")[0].upper()
    table = factories()
    if kind not in table:
        raise ValueError(f"RMCFG[{rm_name}] TYPE={kind or '?'}: no adapter "
                         f"(known: {', '.join(sorted(table))})")
    return table[kind](cfg, rm_name)
