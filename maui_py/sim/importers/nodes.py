"""The cluster of a what-if replay from the resource manager's own node listing.

- Slurm: `sinfo --json` (Slurm 21.08+) or `sinfo -N -h -o '%N|%c|%m|%f|%G|%P'`
  (SINFO_FORMAT: name, CPUs, memory MB, features, gres, partitions);
- Torque: `pbsnodes -x`.
Reading reuses the adapters' parsers where they exist. Every node is taken as up and idle:
the listing is one moment, the replay is a month; a node that was down all month is best
left out of the listing. A node listed twice (sinfo prints one row per partition) is merged.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ...adapters.slurm.parse import parse_sinfo_json
from ...adapters.slurm.values import mem_mb
from ...adapters.torque.parse import parse_pbsnodes
from ...model import Node, NodeState, Resources
from .workload import (MAX_PROCS, LineWarnings, Workload, ascii_field, bounded, log_lines,
                       whole)

SINFO_FORMAT = "%N|%c|%m|%f|%G|%P"


def _gres(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in text.split(","):
        item = item.split("(")[0].strip()
        if not item or item == "(null)":
            continue
        parts = item.split(":")
        if len(parts) >= 2 and parts[-1].isdigit():
            out[parts[0]] = bounded(out.get(parts[0], 0) + whole(parts[-1], f"gres {parts[0]}"),
                                    0, MAX_PROCS, f"gres {parts[0]}")
    return out


def _names(text: str) -> frozenset[str]:
    return frozenset(x.strip().rstrip("*") for x in text.split(",")
                     if x.strip() and x.strip() != "(null)")


def parse_sinfo_text(text: str, name: str = "<sinfo>") -> list[Node]:
    """Nodes from `sinfo -N -h -o '%N|%c|%m|%f|%G|%P'`; malformed rows warned and skipped."""
    bad = LineWarnings(name, "sinfo")
    nodes: dict[str, Node] = {}
    for lineno, line in enumerate(log_lines(text), 1):
        if not line.strip():
            continue
        cols = line.split("|")
        try:
            if len(cols) != 6:
                raise ValueError(f"{len(cols)} fields, expected 6 ({SINFO_FORMAT})")
            host, cpus, mem, feats, gres, parts = (c.strip() for c in cols)
            if not host:
                raise ValueError("no node name")
            res = Resources.of(whole(cpus, "CPUs", 1), mem_mb(ascii_field(mem, "memory")) or 0,
                               _gres(gres))
        except ValueError as e:
            bad.skip(lineno, str(e)[:100])
            continue
        old = nodes.get(host)
        nodes[host] = Node(host, res, NodeState.IDLE, _names(feats),
                           _names(parts) | (old.partitions if old else frozenset()))
    bad.finish(Workload([]))
    return list(nodes.values())


def read_cluster(path: str | Path) -> tuple[Node, ...]:
    """Nodes (up and idle) from a sinfo or pbsnodes -x file, by its content."""
    text = Path(path).read_text(errors="replace")
    head = text.lstrip()[:200]
    if head.startswith("{"):
        nodes = parse_sinfo_json(text)
    elif head.startswith("<"):
        nodes = parse_pbsnodes(text)
    else:
        nodes = parse_sinfo_text(text, str(path))
    if not nodes:
        raise ValueError(f"{path}: no nodes found")
    return tuple(replace(n, state=NodeState.IDLE, load=0.0) for n in nodes)
