"""Value types of maui.cfg: each turns one textual form into a typed Python value and back.

A value type is the `Format` column of Maui's MCfg[] table made explicit. It names the form it
expects (quoted in errors and in docs/config-reference.md), parses text into a typed value, checks
a Python value given programmatically (`SchedulerConfig.with_overrides`), and formats a value back
into maui.cfg syntax for showconfig. A spelling Maui 3.3.1 also accepted (or that is plainly meant,
like a lower-case keyword) is mapped to the canonical value and reported through `warn`; text that
has no reading raises `BadValue`. Every parse is linear in the length of its text.

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
