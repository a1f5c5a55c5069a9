"""Cluster descriptions for the simulator: a short spec or a small file -> model Nodes.

A spec is groups joined by `+` (a file: one or more groups per line, `#` comments), each
`COUNTxPROCS[:key=value]...`, e.g.
`128x8+16x64:mem=256G:gpu=4:features=fast,ib:partition=batch:prefix=gpu`.
Keys: mem (MB, or with suffix M/G/T), gpu, features and partition (comma lists), prefix.
Nodes are named `{prefix}{i:0{width}d}`, numbered from 1 per prefix (default "node"), so
groups without a prefix continue one numbering; width is the digits of the largest number.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

from maui_py.model import Node, Resources

from .swf import SwfHeader

DEFAULT_PREFIX = "node"
_KEYS = ("mem", "gpu", "features", "partition", "prefix")
_SIZE_RE = re.compile(r"^(\d+)[xX](\d+)$")
_MEM_RE = re.compile(r"^(\d+)([MGT]?)B?$", re.IGNORECASE)
_MEM_UNIT = {"": 1, "M": 1, "G": 1024, "T": 1024 * 1024}
_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]+$")
_PREFIX_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")


class ClusterSpecError(ValueError):
    """A cluster description that cannot be read; the message names the place and the problem."""


@dataclass(frozen=True, slots=True)
class NodeGroup:
    """`count` identical nodes; prefix None means the default prefix."""

    count: int
    procs: int
    mem: int = 0
    gpu: int = 0
    features: frozenset[str] = frozenset()
    partitions: frozenset[str] = frozenset()
    prefix: str | None = None


def _names(value: str, where: str, key: str) -> frozenset[str]:
    items = [v for v in value.split(",") if v]
    bad = [v for v in items if not _NAME_RE.match(v)]
    if not items or bad:
        raise ClusterSpecError(f"{where}: {key}= expects a comma-separated list of names, "
                               f"got {value!r}")
    return frozenset(items)


def _count(value: str, where: str, key: str) -> int:
    if not value.isdecimal():
        raise ClusterSpecError(f"{where}: {key}= expects a whole number, got {value!r}")
    return int(value)


def parse_group(segment: str, where: str) -> NodeGroup:
    """One `COUNTxPROCS[:key=value]...` segment; `where` names it in error messages."""
    size, *options = segment.strip().split(":")
    m = _SIZE_RE.match(size.strip())
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
        raise ClusterSpecError(f"{where}: expected NODESxPROCS with both >= 1 (e.g. 128x8), "
                               f"got {size.strip()!r}")
    opts: dict[str, str] = {}
    for option in options:
        key, eq, value = (part.strip() for part in option.partition("="))
        if key not in _KEYS or not eq:
            raise ClusterSpecError(f"{where}: expected key=value with key one of "
                                   f"{', '.join(_KEYS)}, got {option!r}")
        if key in opts:
            raise ClusterSpecError(f"{where}: {key}= given twice")
        opts[key] = value
    mem = 0
    if "mem" in opts:
        mm = _MEM_RE.match(opts["mem"])
        if not mm:
            raise ClusterSpecError(f"{where}: mem= expects MB or a size like 256G, "
                                   f"got {opts['mem']!r}")
        mem = int(mm.group(1)) * _MEM_UNIT[mm.group(2).upper()]
    prefix = opts.get("prefix")
    if prefix is not None and not _PREFIX_RE.match(prefix):
        raise ClusterSpecError(f"{where}: prefix= expects a name starting with a letter, "
                               f"got {prefix!r}")
    return NodeGroup(
        count=int(m.group(1)), procs=int(m.group(2)), mem=mem,
        gpu=_count(opts["gpu"], where, "gpu") if "gpu" in opts else 0,
        features=_names(opts["features"], where, "features") if "features" in opts
        else frozenset(),
        partitions=_names(opts["partition"], where, "partition") if "partition" in opts
        else frozenset(),
        prefix=prefix)


def build_nodes(groups: list[NodeGroup]) -> tuple[Node, ...]:
    """The nodes of the groups in order. O(total nodes)."""
    if not groups:
        raise ClusterSpecError("empty cluster description: expected at least one group")
    totals: dict[str, int] = {}
    for g in groups:
        prefix = g.prefix or DEFAULT_PREFIX
        totals[prefix] = totals.get(prefix, 0) + g.count
    next_index = dict.fromkeys(totals, 1)
    nodes: list[Node] = []
    for g in groups:
        prefix = g.prefix or DEFAULT_PREFIX
        width, start = len(str(totals[prefix])), next_index[prefix]
        resources = Resources.of(g.procs, g.mem, gpu=g.gpu)
        nodes += (Node(f"{prefix}{i:0{width}d}", resources, features=g.features,
                       partitions=g.partitions) for i in range(start, start + g.count))
        next_index[prefix] = start + g.count
    seen: set[str] = set()
    for node in nodes:
        if node.name in seen:
            raise ClusterSpecError(f"node name {node.name!r} is produced twice: "
                                   "choose distinct prefixes")
        seen.add(node.name)
    return tuple(nodes)


def parse_cluster(spec: str) -> tuple[Node, ...]:
    """Nodes from a spec string: groups separated by `+` or newlines."""
    segments = [s for s in re.split(r"[+\n]", spec) if s.strip()]
    return build_nodes([parse_group(s, f"cluster spec segment {i} {s.strip()!r}")
                        for i, s in enumerate(segments, 1)])


def load_cluster(path: str | os.PathLike[str]) -> tuple[Node, ...]:
    """Nodes from a file: groups one per line (or joined by `+`), `#` starts a comment."""
    groups = []
    for lineno, line in enumerate(Path(path).read_text().splitlines(), 1):
        body = line.split("#", 1)[0]
        groups += [parse_group(s, f"{os.fspath(path)} line {lineno} {s.strip()!r}")
                   for s in body.split("+") if s.strip()]
    return build_nodes(groups)


def cluster_from_option(spec_or_path: str | os.PathLike[str]) -> tuple[Node, ...]:
    """A command-line value: the file when it names one, else a spec string."""
    if isinstance(spec_or_path, os.PathLike) or os.path.isfile(spec_or_path):
        return load_cluster(spec_or_path)
    return parse_cluster(spec_or_path)


def from_trace_header(header: SwfHeader, procs_per_node: int = 1,
                      max_procs_seen: int = 0) -> tuple[Node, ...]:
    """The default cluster of a trace: its processors (MaxProcs, else MaxNodes taken as
    processors, else max_procs_seen; the first that is > 0) on nodes of procs_per_node
    processors each, the node count rounded up."""
    if procs_per_node < 1:
        raise ClusterSpecError(f"procs_per_node must be >= 1, not {procs_per_node}")
    procs = next((p for p in (header.max_procs, header.max_nodes, max_procs_seen)
                  if p is not None and p > 0), 0)
    if not procs:
        raise ClusterSpecError(f"{header.source or 'trace'}: no MaxProcs or MaxNodes in the "
                               "header and no processor count given")
    return build_nodes([NodeGroup(math.ceil(procs / procs_per_node), procs_per_node)])
