"""The row types of the parameter table and the helpers that build rows.

params.py (Maui's parameters), params_queues.py and params_runtime.py (maui-py's own) all build
their rows from here, so none of them imports another: params.py gathers them into TABLE.
The columns are described in params.py's docstring.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from .values import (
    MAX_WEIGHT, Boolean, Choice, ComponentWeight, Double, FsTargetType, HostList, Integer, LimitType, Name,
    String, StringList, Time, ValueType,
)

GLOBAL, PARTITION, STACK, OBJECT, INDEXED = "global", "partition", "stack", "object", "indexed"
ACTIVE, ACCEPTED = "active", "accepted"
SCOPES = (GLOBAL, PARTITION, STACK, OBJECT, INDEXED)


@dataclass(frozen=True)
class Attr:
    """One attribute of a `*CFG` parameter (`USERCFG[john] FSTARGET=10.0-`)."""

    name: str
    type: ValueType
    default: Any = None
    doc: str = ""
    default_source: str = "same"
    status: str = ACCEPTED
    multidim: bool = False
    """Accepts a credential index, as throttling limits do: `MAXPROC[USER:steve]=50`."""
    other_default: str = ""
    acts_in: str = ""
    """The module that acts on an active attribute (`maui_py.policy.limits`)."""


@dataclass(frozen=True)
class Param:
    """One row of the table; see params.py's docstring for the columns."""

    name: str
    type: ValueType | None
    default: Any
    scope: str
    doc: str
    default_source: str = "same"
    status: str = ACCEPTED
    origin: str = "src"
    group: str = ""
    other_default: str = ""
    stack_default: Any = None
    maps_to: tuple[str, str] | None = None
    attrs: Mapping[str, Attr] = field(default_factory=dict)
    attr_aliases: Mapping[str, str] = field(default_factory=dict)
    acts_in: str = ""
    """The module that acts on an active parameter (`maui_py.core.cycle`)."""

    @property
    def form(self) -> str:
        if self.scope == OBJECT:
            return "<ATTR>=<VALUE> ..."
        return self.type.form if self.type else ""

    def default_at(self, index: Any) -> Any:
        """Default of one stack level: level 0 has `default`, deeper levels `stack_default`."""
        if self.scope == STACK and index not in (0, None) and self.stack_default is not None:
            return self.stack_default
        return self.default


# ----------------------------------------------------------------------------------------------
# value types shared by many rows

INT = Integer()
COUNT = Integer(lo=0)
DOUBLE = Double()
BOOL = Boolean()
TIME = Time()
STRING = String()
NAME = Name()
NAMES = StringList()
USERS = StringList("<USER>")
HOSTS = HostList("<HOSTS>")
"""Host expressions: a node name, a Slurm hostlist (node[01-04,7]) or a ^regular expression."""
WEIGHT = Integer(-MAX_WEIGHT, MAX_WEIGHT)
COMPONENT_WEIGHT = ComponentWeight()
CAP = Double()
LIMIT = LimitType(Integer())
TIME_LIMIT = LimitType(Time())
FSTARGET = FsTargetType()
QLIST = StringList("<QOS>", markers=True)


# ----------------------------------------------------------------------------------------------
# row builders

def _typed_default(vtype: ValueType | None, default: Any) -> Any:
    """A Choice's default as the value the loader would give (an enum member, not its keyword)."""
    return vtype.check(default) if isinstance(vtype, Choice) and isinstance(default, str) else default


def A(name: str, vtype: ValueType, doc: str, default: Any = None, *, active: bool = False,
       multidim: bool = False, src: str = "same", other: str = "", acts: str = "") -> Attr:
    return Attr(name, vtype, _typed_default(vtype, default), doc, src, ACTIVE if active else ACCEPTED, multidim,
                other, acts)


def P(name: str, vtype: ValueType | None, default: Any, doc: str, *, scope: str = GLOBAL, src: str = "same",
      active: bool = False, origin: str = "src", other: str = "", stack_default: Any = None,
      acts: str = "") -> Param:
    return Param(name, vtype, _typed_default(vtype, default), scope, doc, src, ACTIVE if active else ACCEPTED,
                 origin, other_default=other, stack_default=stack_default, acts_in=acts)


def OWN(name: str, vtype: ValueType | None, default: Any, doc: str) -> Param:
    """A maui-py parameter (not Maui's): active, its default maui-py's own."""
    return P(name, vtype, default, doc, active=True, origin="maui-py", src="maui-py")


def PAR(name: str, vtype: ValueType, default: Any, doc: str, **kw: Any) -> Param:
    """A partition-scoped row (Maui's mxoPar): `NAME[partition] VALUE`, no index = all partitions."""
    return P(name, vtype, default, doc, scope=PARTITION, **kw)


def OBJ(name: str, attrs: Mapping[str, Attr], doc: str, *, active: bool = False, origin: str = "src",
        attr_aliases: Mapping[str, str] | None = None, acts: str = "") -> Param:
    return Param(name, None, None, OBJECT, doc, "same", ACTIVE if active else ACCEPTED, origin,
                 attrs=attrs, attr_aliases=dict(attr_aliases or {}), acts_in=acts)


def group(title: str, *rows: Param) -> list[Param]:
    return [replace(row, group=title) for row in rows]
