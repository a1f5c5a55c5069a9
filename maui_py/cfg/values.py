"""Value types of maui.cfg, one import place: what a value type is, value_core.py says.

The types live by idea in value_core.py (the base, numbers, times, words, choices), value_limits.py
(limits, fair-share targets, resource specs) and value_lists.py (lists, flags, days); every name is
imported from here.
"""

from __future__ import annotations

from .value_core import (
    Warn, INFINITY, DAY, MAX_DIGITS, MAX_DOUBLE, MAX_WEIGHT, FSTARGET_RE, UNLIMITED_WORDS, ignore,
    int_literal, finite_float, unquote, split_tokens, canonical_word, nearest, format_time, ValueType,
    Integer, ComponentWeight, Double, Boolean, Time, PeriodOffset, AclTime, String, Name, drop_markers,
    Choice, FsPolicy,
)
from .value_limits import (
    Limit, FS_MODES, FsTarget, LimitType, FsTargetType, ResourceSpec,
)
from .value_lists import (
    StringList, split_outside_brackets, HostList, EnumList, Flags, Days, RmType, PolicyList,
)

__all__ = [
    "Warn", "INFINITY", "DAY", "MAX_DIGITS", "MAX_DOUBLE", "MAX_WEIGHT", "FSTARGET_RE", "UNLIMITED_WORDS",
    "ignore", "int_literal", "finite_float", "unquote", "split_tokens", "canonical_word", "nearest",
    "format_time", "ValueType", "Integer", "ComponentWeight", "Double", "Boolean", "Time", "PeriodOffset",
    "AclTime", "String", "Name", "drop_markers", "Choice", "FsPolicy", "Limit", "FS_MODES", "FsTarget",
    "LimitType", "FsTargetType", "ResourceSpec", "StringList", "split_outside_brackets", "HostList",
    "EnumList", "Flags", "Days", "RmType", "PolicyList"
]
