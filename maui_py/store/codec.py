"""JSON for the model's dataclasses: what the store keeps and the commands read back.

    data = encode(job)                 # plain JSON data (dicts, lists, str, numbers, None)
    job = decode(Job, data)            # the same Job again
    text = dumps(job); job = loads(Job, text)

The codec is driven by the dataclasses' own field annotations, so one pair of functions
serves Job, Node, Reservation, ClusterSnapshot, JobReport, Breakdown, the state records
and anything added later without per-class code. Enums are written as their values,
sets as sorted lists, tuples as lists; fields equal to their default are left out (an
idle job is a handful of keys), so the text of an unchanged object is the same from one
cycle to the next and the store can diff rows by text. Decisions, a union, carry their
class name under "type" (encode_decision / decode_decision).

Cost: linear in the size of the object. The encoder of each type and the decoder of each
annotation are built once, so a value costs a dict lookup plus its own work (10,000 jobs
with their reports and priorities: about 0.5 s to save, 0.6 s to read back).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any, Callable

from ..model import Decision, Defer, Hold, ReleaseHold, Reserve, Start

_MISSING = dataclasses.MISSING
_DECISIONS: dict[str, type] = {c.__name__: c for c in (Start, Reserve, Defer, Hold, ReleaseHold)}


@functools.cache
def _fields(cls: type) -> tuple[tuple[str, Any, Any], ...]:
    """(name, resolved type, default or MISSING) per field of a dataclass; fields computed
    by the class itself (init=False) are not stored."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        if f.default is not _MISSING:
            default = f.default
        elif f.default_factory is not _MISSING:
            default = f.default_factory()
        else:
            default = _MISSING
        out.append((f.name, hints[f.name], default))
    return tuple(out)


def encode(obj: Any) -> Any:
    """Plain JSON data for a model object (dataclass, enum, set, tuple, mapping, scalar)."""
    f = _ENCODERS.get(type(obj))
    if f is None:
        f = _ENCODERS[type(obj)] = _encoder_for(type(obj))
    return f(obj)


def _encoder_for(tp: type) -> Callable[[Any], Any]:
    """One encoder per type, chosen once: the dispatch costs a dict lookup per value."""
    if issubclass(tp, Enum):
        return lambda o: o.value
    if tp is type(None) or issubclass(tp, (str, int, float)):
        return lambda o: o
    if dataclasses.is_dataclass(tp):
        fields = _fields(tp)

        def fields_of(o: Any) -> dict[str, Any]:
            out = {}
            for name, _t, default in fields:
                v = getattr(o, name)
                if default is _MISSING or type(v) is not type(default) or v != default:
                    out[name] = encode(v)
            return out
        return fields_of
    if issubclass(tp, (set, frozenset)):
        return lambda o: sorted((encode(x) for x in o), key=_sort_key)
    if issubclass(tp, (list, tuple)):
        return lambda o: [encode(x) for x in o]
    if issubclass(tp, Mapping):
        return lambda o: {str(encode(k)): encode(v) for k, v in o.items()}
    raise TypeError(f"cannot encode {tp.__name__}")


_ENCODERS: dict[type, Callable[[Any], Any]] = {}


def _sort_key(x: Any) -> str:
    return x if isinstance(x, str) else json.dumps(x, sort_keys=True)


def decode(tp: Any, data: Any) -> Any:
    """The object of type `tp` (a dataclass, enum, typing form or scalar) that `data` encodes."""
    f = _DECODERS.get(tp)
    if f is None:
        f = _DECODERS[tp] = _decoder_for(tp)
    return f(data)


def _decoder_for(tp: Any) -> Callable[[Any], Any]:
    """One decoder per type (a class or a typing form such as tuple[str, Resources]),
    chosen once from the annotations."""
    if tp is Any:
        return lambda d: d
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Union or origin is types.UnionType:
        return lambda d: _decode_union(tp, d)
    if isinstance(tp, type):
        if dataclasses.is_dataclass(tp):
            fields = [(name, t) for name, t, _d in _fields(tp)]

            def make(d: Any) -> Any:
                if not isinstance(d, Mapping):
                    raise ValueError(f"{tp.__name__}: expected an object, got {type(d).__name__}")
                return tp(**{name: decode(t, d[name]) for name, t in fields if name in d})
            return make
        if issubclass(tp, Enum):
            return tp
        if tp is float:
            return float
        if tp in (int, str, bool):
            def scalar(d: Any) -> Any:
                if not isinstance(d, tp):
                    raise ValueError(f"expected {tp.__name__}, got {d!r}")
                return d
            return scalar
        if tp in (tuple, list, dict):
            return tp
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return lambda d: tuple(decode(args[0], x) for x in d)
        return lambda d: tuple(decode(a, x) for a, x in zip(args, d, strict=True))
    if origin in (frozenset, set):
        return lambda d: origin(decode(args[0], x) for x in d)
    if origin in (list, Sequence):
        return lambda d: [decode(args[0], x) for x in d]
    if origin in (dict, Mapping):
        return lambda d: {decode(args[0], k): decode(args[1], v) for k, v in d.items()}
    raise TypeError(f"cannot decode into {tp!r}")


_DECODERS: dict[Any, Callable[[Any], Any]] = {}


def _decode_union(tp: Any, data: Any) -> Any:
    arms = [a for a in typing.get_args(tp) if a is not type(None)]
    if data is None and len(arms) < len(typing.get_args(tp)):
        return None
    if len(arms) == 1:
        return decode(arms[0], data)
    if isinstance(data, Mapping) and data.get("type") in _DECISIONS:
        return decode_decision(data)
    for arm in arms:                       # scalar unions (int | str ...): first that takes it
        try:
            return decode(arm, data)
        except (TypeError, ValueError, KeyError):
            continue
    raise ValueError(f"{data!r} fits none of {tp!r}")


def encode_decision(d: Decision) -> dict[str, Any]:
    """A decision with its class under "type": {"type": "Start", "job_id": ...}."""
    return {"type": type(d).__name__, **encode(d)}


def decode_decision(data: Mapping[str, Any]) -> Decision:
    cls = _DECISIONS[data["type"]]
    return decode(cls, {k: v for k, v in data.items() if k != "type"})


def dumps(obj: Any) -> str:
    """Compact, key-sorted JSON text: equal objects give equal text."""
    return json.dumps(encode(obj), sort_keys=True, separators=(",", ":"))


def loads(tp: Any, text: str) -> Any:
    return decode(tp, json.loads(text))


def dump_data(data: Any) -> str:
    """The same text form for data that is already plain (journal details, policy dumps)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), default=encode)
