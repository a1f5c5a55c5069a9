"""TIMEZONE: the zone in which standing reservation windows and setres times are read.

Maui itself always uses the host's zone (localtime/mktime). maui-py reads the zone once,
when a configuration is made, into a `zoneinfo.ZoneInfo` (`SchedulerConfig.zone`): the
TIMEZONE parameter when set (an IANA name such as Europe/Stockholm or UTC), else the host's
zone. The cycle then depends on its configuration only, never on $TZ.
"""

from __future__ import annotations

import functools
import os
from datetime import timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .errors import BadValue
from .values import String, Warn, ignore, unquote

LOCALTIME = "/etc/localtime"


class Zone(String):
    """An IANA time zone name, read into a ZoneInfo; an unknown name is an error."""

    form = "<ZONE>"

    def parse(self, text: str, warn: Warn = ignore) -> ZoneInfo:
        name = unquote(text).strip()
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError, OSError):
            shown = name if len(name) <= 64 else name[:64] + "..."
            raise BadValue(f"unknown time zone {shown!r} (an IANA name such as "
                           f"Europe/Stockholm or UTC)") from None

    def check(self, value: Any) -> ZoneInfo:
        if isinstance(value, ZoneInfo):
            return value
        if isinstance(value, str):
            return self.parse(value)
        raise BadValue(f"{type(value).__name__} is not a time zone")

    def format(self, value: Any, in_attr: bool = False) -> str:
        return str(getattr(value, "key", value))


ZONE = Zone()


@functools.cache
def host_zone() -> tzinfo:
    """The host's zone as the C library sees it: $TZ when it names an IANA zone, else the
    zone /etc/localtime links to (or the file itself), else UTC. Read once per process."""
    name = os.environ.get("TZ", "").lstrip(":")
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError, OSError):
            pass
    target = os.path.realpath(LOCALTIME)
    if "/zoneinfo/" in target:
        try:
            return ZoneInfo(target.split("/zoneinfo/", 1)[1])
        except (ZoneInfoNotFoundError, ValueError, OSError):
            pass
    try:
        with open(LOCALTIME, "rb") as f:
            return ZoneInfo.from_file(f, key="localtime")
    except (OSError, ValueError):
        return timezone.utc
