"""Torque's node specification ("2:ppn=4:gpus=1:fast+1:ppn=2#excl") and what it means.

`parse_nodes_spec` / `format_nodes_spec` read and write the syntax (a round trip for the
canonical form); `job_request` maps a job's Resource_List to a JobRequest; `qrun_hosts`
writes the host list `qrun -H` takes. All are linear in the length of the spec.

Mapping choices (docs/torque.md has the table):
- `N:ppn=P` is N*P tasks of one processor, P per node, on exactly N nodes.
- `gpus=G` per node: G/P GPUs per task when P divides G; otherwise the group becomes N
  tasks of P processors and G GPUs, one per node (a task cannot hold a fraction of a GPU).
- Groups joined by `+` with different ppn: the sum of the tasks over exactly the sum of the
  nodes, any split; with different GPU counts as well, one task per node sized to the
  largest group (an over-estimate, never an under-estimate).
- A group named by a word is a node when the word is a known node name (the job may run
  only there), otherwise a property. Properties of every group apply to every node.
- `procs=K` (no nodes): K one-processor tasks anywhere; `ncpus=K` (no nodes, no procs):
  one task of K processors. `pmem` is per processor; `mem` is per job, split over the tasks
  (rounded up); the larger of the two wins, as in Maui.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Container, Mapping

from maui_py.model import JobRequest, Resources

from .values import MAX_DIGITS, size_mb

_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", re.ASCII)
_NUMBER = re.compile(r"\d+", re.ASCII)


@dataclass(frozen=True, slots=True)
class NodeGroup:
    """One `+`-separated part: `count` nodes (or the node or property `name`), each with
    `ppn` processors, `gpus` GPUs and the given properties."""

    count: int = 1
    ppn: int = 1
    gpus: int = 0
    features: frozenset[str] = field(default_factory=frozenset)
    name: str | None = None


@dataclass(frozen=True, slots=True)
class NodesSpec:
    groups: tuple[NodeGroup, ...]
    exclusive: bool = False  # "#excl"


def _positive(text: str, what: str, minimum: int = 1) -> int:
    if not _NUMBER.fullmatch(text) or len(text) > MAX_DIGITS or int(text) < minimum:
        raise ValueError(f"bad {what} {text[:40]!r}")
    return int(text)


def _group(text: str) -> NodeGroup:
    head, *attrs = text.split(":")
    count, name = 1, None
    if _NUMBER.fullmatch(head):
        count = _positive(head, "node count")
    elif _WORD.fullmatch(head):
        name = head
    else:
        raise ValueError(f"bad node group {text!r}")
    ppn, gpus, features = 1, 0, set()
    for attr in attrs:
        key, sep, value = attr.partition("=")
        if key == "ppn":
            ppn = _positive(value, "ppn")
        elif key == "gpus":
            gpus = _positive(value, "gpus", 0)
        elif sep:
            if not _WORD.fullmatch(key):
                raise ValueError(f"bad node attribute {attr!r}")
            # mics=, other site resources: not scheduled by maui-py
        elif _WORD.fullmatch(key):
            features.add(key)
        else:
            raise ValueError(f"bad node property {attr!r}")
    return NodeGroup(count, ppn, gpus, frozenset(features), name)


def parse_nodes_spec(spec: str) -> NodesSpec:
    """Read `spec`; ValueError when it is not a node specification."""
    body, _, flag = spec.strip().partition("#")
    if flag not in ("", "excl", "shared"):
        raise ValueError(f"bad node spec suffix #{flag}")
    if not body:
        raise ValueError("empty node spec")
    return NodesSpec(tuple(_group(g) for g in body.split("+")), flag == "excl")


def format_nodes_spec(spec: NodesSpec) -> str:
    """The canonical text of `spec`: ppn when not 1, gpus when not 0, properties sorted."""
    parts = []
    for g in spec.groups:
        text = g.name if g.name is not None else str(g.count)
        if g.ppn != 1:
            text += f":ppn={g.ppn}"
        if g.gpus:
            text += f":gpus={g.gpus}"
        parts.extend([text, *(f":{f}" for f in sorted(g.features)), "+"])
    return "".join(parts[:-1]) + ("#excl" if spec.exclusive else "")


def qrun_hosts(allocation: tuple[tuple[str, Resources], ...]) -> str:
    """`qrun -H` host list for an allocation, as Maui writes it: `host[:ppn=P][:gpus=G]`
    joined by `+`, one entry per node (repeated nodes merged). ValueError for an empty
    allocation or a node name that is not a plain host name."""
    per_node: dict[str, Resources] = {}
    for node, res in allocation:
        if not _WORD.fullmatch(node) or _NUMBER.fullmatch(node):
            raise ValueError(f"node name {node!r} is not a host name")
        per_node[node] = per_node[node] + res if node in per_node else res
    if not per_node:
        raise ValueError("empty allocation")
    return format_nodes_spec(NodesSpec(tuple(
        NodeGroup(1, max(res.procs, 1), res.gres_count("gpu"), frozenset(), node)
        for node, res in per_node.items())))


@dataclass(frozen=True, slots=True)
class _Shape:
    tasks: int
    procs: int  # per task
    gpus: int   # per task
    nodes: int = 0
    tasks_per_node: int = 0
    features: frozenset[str] = frozenset()
    hostlist: tuple[str, ...] = ()


def _shape_of_groups(spec: NodesSpec, node_names: Container[str]) -> _Shape:
    groups = spec.groups
    hosts = tuple(g.name for g in groups if g.name is not None and g.name in node_names)
    words = (g.name for g in groups if g.name is not None and g.name not in hosts)
    features = frozenset().union(*(g.features for g in groups), words)
    nodes = sum(g.count for g in groups)
    kinds = {(g.ppn, g.gpus) for g in groups}
    first = groups[0]
    if len(kinds) == 1 and first.gpus % first.ppn == 0:
        tasks, procs, gpus, per_node = nodes * first.ppn, 1, first.gpus // first.ppn, first.ppn
    elif len(kinds) == 1:
        tasks, procs, gpus, per_node = nodes, first.ppn, first.gpus, 1
    elif all(g.gpus == 0 for g in groups):
        tasks, procs, gpus, per_node = sum(g.count * g.ppn for g in groups), 1, 0, 0
    else:
        tasks, procs, gpus, per_node = (nodes, max(g.ppn for g in groups),
                                        max(g.gpus for g in groups), 1)
    return _Shape(tasks, procs, gpus, nodes, per_node, features,
                  hosts if len(hosts) == len(groups) else ())


def _count(res: Mapping[str, str], key: str) -> int:
    return _positive(res[key].strip(), key)


def job_request(res: Mapping[str, str], node_names: Container[str] = ()) -> JobRequest:
    """JobRequest for a Resource_List (resource name -> text). ValueError on bad values."""
    exclusive = res.get("naccesspolicy", "").strip().lower() == "singlejob"
    if res.get("nodes", "").strip():
        spec = parse_nodes_spec(res["nodes"])
        shape = _shape_of_groups(spec, node_names)
        exclusive = exclusive or spec.exclusive
    elif "procs" in res:
        shape = _Shape(_count(res, "procs"), 1, 0)
    elif "ncpus" in res:
        shape = _Shape(1, _count(res, "ncpus"), 0, nodes=1)
    else:
        shape = _Shape(1, 1, 0)
    mem = 0
    if "pmem" in res:
        mem = size_mb(res["pmem"]) * shape.procs
    if "mem" in res:
        mem = max(mem, -(-size_mb(res["mem"]) // shape.tasks))
    return JobRequest(tasks=shape.tasks, per_task=Resources.of(shape.procs, mem, gpu=shape.gpus),
                      nodes=shape.nodes, tasks_per_node=shape.tasks_per_node,
                      features=shape.features, hostlist=shape.hostlist, exclusive=exclusive)
