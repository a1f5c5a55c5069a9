"""NODECFG[node]: what the site says about its nodes, over what the resource manager reports.

PRIORITY (for NODEALLOCATIONPOLICY PRIORITY), FEATURES (added to the reported ones),
PARTITION (the node serves that partition/class only) and SPEED. NODECFG[DEFAULT] applies to
nodes without an entry of their own. Other NODECFG attributes are accepted, not acted on.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from ..model import Node


def apply_nodecfg(cfg, nodes: Sequence[Node]) -> tuple[Node, ...]:
    """The nodes with their NODECFG settings applied; the same tuple when there are none.
    O(N) when NODECFG is set."""
    objs = cfg.objects("NODECFG")
    if not objs:
        return nodes if isinstance(nodes, tuple) else tuple(nodes)
    default = objs.get("DEFAULT", {})
    out = []
    for n in nodes:
        attrs = {**default, **objs.get(n.name, {})}
        if not attrs:
            out.append(n)
            continue
        kw = {}
        if "PRIORITY" in attrs:
            kw["priority"] = int(attrs["PRIORITY"])
        if attrs.get("FEATURES"):
            kw["features"] = n.features | frozenset(attrs["FEATURES"])
        if attrs.get("PARTITION"):
            kw["partitions"] = frozenset({str(attrs["PARTITION"])})
        if "SPEED" in attrs:
            kw["speed"] = float(attrs["SPEED"])
        out.append(replace(n, **kw) if kw else n)
    return tuple(out)
