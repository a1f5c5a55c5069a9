"""Slurm node records (sinfo JSON or `scontrol show node -o`) -> maui_py Node objects.

One function per source, each handling one record in time linear in its size; the mapping
rules are in parse.py's docstring. A node whose resources are beyond what any node has
(maui_py.rm.check's bounds) raises ValueError: the record is skipped, with a warning.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Mapping

from maui_py.model import Node, Resources
from maui_py.rm.check import resources_problem
from maui_py.rm.protocol import RecordWarning

from .values import gres, mem_mb, node_state, opt_int, text


def _names(value: object, sep: str = ",") -> frozenset[str]:
    return frozenset(x.strip() for x in text(value).split(sep) if x.strip())


def _valid(node: Node) -> Node:
    bad = resources_problem(node.resources)
    if bad:
        raise ValueError(f"node {node.name!r}: {bad}")
    return node


def _load(node_name: str, value: str) -> float:
    """CPULoad; a value that is not a finite number reads as 0 (with a warning): the load
    only orders nodes, it is no reason to lose one."""
    try:
        load = float(value) if value else 0.0
    except ValueError:
        load = math.nan
    if math.isfinite(load):
        return load
    warnings.warn(f"scontrol show node {node_name!r}: CPULoad {value[:40]!r} read as 0",
                  RecordWarning, stacklevel=3)
    return 0.0


def node_from_json(d: Mapping[str, Any]) -> Node:
    """One element of `sinfo --json` nodes[] (openapi v0.0.38): cpu_load is load x 100."""
    load = opt_int(d.get("cpu_load"))
    parts = d.get("partitions") or []
    if isinstance(parts, str):
        parts = parts.split(",")
    return _valid(Node(
        name=text(d["name"]),
        resources=Resources.of(int(d["cpus"]), mem_mb(d.get("real_memory")) or 0,
                               gres(d.get("gres"))),
        state=node_state(text(d["state"]), list(d.get("state_flags") or [])),
        features=_names(d.get("active_features") or d.get("features")),
        partitions=frozenset(str(p) for p in parts if p),
        load=(load or 0) / 100.0,
    ))


def node_from_text(d: Mapping[str, str]) -> Node:
    """One `scontrol show node -o` record: CPUEfctv (CPUs left after core specialisation)
    when printed, else CPUTot; CPULoad is a float."""
    cpus = opt_int(d.get("CPUEfctv")) or opt_int(d["CPUTot"])
    return _valid(Node(
        name=text(d["NodeName"]),
        resources=Resources.of(cpus or 0, mem_mb(d.get("RealMemory")) or 0, gres(d.get("Gres"))),
        state=node_state(text(d["State"])),
        features=_names(d.get("ActiveFeatures") or d.get("AvailableFeatures")),
        partitions=_names(d.get("Partitions")),
        load=_load(text(d["NodeName"]), text(d.get("CPULoad"))),
    ))
