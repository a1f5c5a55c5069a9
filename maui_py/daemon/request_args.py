"""What an admin request's arguments may be: each kind's keys, their types and bounds.

    check("setres", {"name": "maint", "start": 0, "end": 1700000000, "hosts": ["n1"]})

Checked by mauid when a message arrives on its socket (socket_server.py: a bad argument
refuses the message, nothing is queued) and again before a handler runs (admin.py), and by
the commands before they send (the same error, earlier). Whatever a request carries ends
in the store (the requests table, the journal, an admin reservation), where a value of the
wrong type would make the store unreadable by every command and by mauid itself; so
nothing unchecked is kept: names are short printable strings, lists are of such names and
bounded, counts and times bounded integers (never a bool, never a float), an unknown key
refuses the request (a kind registered elsewhere, with no schema here, takes at most
MAX_KEYS plain values). ValueError says which argument and what it must be.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

MAX_NAME = 64
"""A reservation's, user's, group's ... name."""
MAX_ID = 255
"""A job id (Slurm array ids, Torque's server suffixes)."""
MAX_LIST = 4096
"""Names in one list (hosts, users, reservations)."""
MAX_KEYS = 32
"""Arguments of a request of a kind with no schema here."""
MAX_TASKS = 10_000_000
LAST_DATE = 253402300799
"""9999-12-31 23:59:59 UTC: the last time the commands can show."""
HOLD_KINDS = ("user", "system", "batch")

Check = Callable[[str, Any], None]


def _name(limit: int) -> Check:
    def check(key: str, v: Any) -> None:
        if not isinstance(v, str) or not 1 <= len(v) <= limit or not v.isprintable() or any(c.isspace() for c in v):
            raise ValueError(f"'{key}' must be a name of 1 to {limit} printable characters without spaces")
    return check


def _optional_name(limit: int) -> Check:
    named = _name(limit)

    def check(key: str, v: Any) -> None:
        if v != "":
            named(key, v)
    return check


def _names(limit: int, *, least: int = 0) -> Check:
    named = _name(limit)

    def check(key: str, v: Any) -> None:
        if not isinstance(v, list) or not least <= len(v) <= MAX_LIST:
            raise ValueError(f"'{key}' must be a list of {least} to {MAX_LIST} names")
        for x in v:
            named(f"{key}[]", x)
    return check


def _int(low: int, high: int) -> Check:
    def check(key: str, v: Any) -> None:
        if type(v) is not int or not low <= v <= high:
            raise ValueError(f"'{key}' must be an integer from {low} to {high}")
    return check


def _bool(key: str, v: Any) -> None:
    if type(v) is not bool:
        raise ValueError(f"'{key}' must be true or false")


def _one_of(*values: str) -> Check:
    def check(key: str, v: Any) -> None:
        if v not in values or not isinstance(v, str):
            raise ValueError(f"'{key}' must be one of {', '.join(values)}")
    return check


def _plain(key: str, v: Any) -> None:
    """The arguments of a kind with no schema here: a bounded string, integer, bool, or a
    list of bounded strings."""
    if isinstance(v, list):
        if len(v) > MAX_LIST or not all(isinstance(x, str) and len(x) <= MAX_ID for x in v):
            raise ValueError(f"'{key}' must be a list of at most {MAX_LIST} strings of at most {MAX_ID} characters")
    elif not (type(v) is bool or type(v) is int and abs(v) <= 2 ** 53
              or isinstance(v, str) and len(v) <= MAX_ID and v.isprintable()):
        raise ValueError(f"'{key}' must be a string of at most {MAX_ID} printable characters, "
                         "an integer or true/false")


_TIME = _int(0, LAST_DATE)
_JOB = {"job": _name(MAX_ID)}
SCHEMAS: dict[str, dict[str, Check]] = {
    "setres": {"name": _optional_name(MAX_NAME), "start": _TIME, "end": _TIME, "hosts": _names(MAX_ID),
               "all_nodes": _bool, "tasks": _int(0, MAX_TASKS),
               **{k: _names(MAX_NAME) for k in ("users", "groups", "accounts", "classes", "qos")}},
    "releaseres": {"names": _names(MAX_NAME, least=1)},
    "sethold": {**_JOB, "hold": _one_of(*HOLD_KINDS)},
    "releasehold": {**_JOB, "hold": _one_of(*HOLD_KINDS, "all")},
    "setspri": {**_JOB, "priority": _int(0, 1000), "relative": _bool},
    "runjob": dict(_JOB),
}
REQUIRED = {"setres": ("end",), "releaseres": ("names",), "sethold": ("job",), "releasehold": ("job",),
            "setspri": ("job", "priority"), "runjob": ("job",)}


def check(kind: str, args: Mapping[str, Any]) -> None:
    """ValueError ("setres: 'name' must be ...") unless `args` are what `kind` takes."""
    if not isinstance(args, Mapping):
        raise ValueError(f"{kind}: the arguments must be an object")
    schema = SCHEMAS.get(kind)
    if schema is None:                      # a kind registered by a plugin or a test
        schema = {str(k): _plain for k in args} if len(args) <= MAX_KEYS else {}
    for key in REQUIRED.get(kind, ()):
        if key not in args:
            raise ValueError(f"{kind}: '{key}' is missing")
    for key, value in args.items():
        test = schema.get(key)
        if test is None:
            raise ValueError(f"{kind}: no argument {str(key)[:MAX_NAME]!r}")
        try:
            test(key, value)
        except ValueError as e:
            raise ValueError(f"{kind}: {e}") from None
