"""What every Maui-named command shares: finding the store, the age of what it shows,
`--json`, who is asking, and Unix exit statuses.

Where the store is: `--store PATH`; else the configuration (`-c FILE`, $MAUI_PY_CONFIG,
$MAUIHOMEDIR/maui.cfg, ./maui.cfg, /etc/maui-py/maui.cfg, as every program finds it:
daemon/paths.py) and its STOREFILE. The configuration the commands use is `-c FILE` when
given, else the one the daemon recorded in the store with its last cycle, else the one found
as above, else the defaults.

Every reading command prints one line on stderr saying which cycle it shows and how old it
is (`data as of cycle 812 (Thu Sep  1 15:02:50), 00:00:04 ago; mauid running, pid 1234`); with
`--json` the same facts are in the output's "cycle" object and stderr stays quiet.

Who is asking: the real user id (pwd); when running as root, $MAUI_PY_USER may name another
user (tests and sudo-like wrappers; ignored for everyone else, so it grants nothing).
Admin commands need that user to be root or listed in ADMIN1.

Exit status: 0 done; 1 the request failed (unknown job or reservation, permission denied,
no store or no cycle yet, a request the daemon refused or did not apply in time);
2 bad usage (argparse).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import pwd
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, TextIO

from ..daemon import paths

if TYPE_CHECKING:
    from ..cfg import SchedulerConfig
    from ..store import LastCycle, StoreReader
    from .view import View

# The configuration, the store and the view import the parser, the planner and the cycle
# (about 0.1 s): every function here that needs them imports them when called, so that
# `showq --help` or a usage error answers at once (benchmarks/startup.py).

PARTITION = "DEFAULT"
"""The partition every job runs in when none are configured (Maui's MPar[1])."""
USER_ENV = "MAUI_PY_USER"
TRACEBACK_ENV = "MAUI_PY_TRACEBACK"
"""Set (to anything) to get Python's traceback instead of the one-line "may be damaged" error."""


class CommandError(Exception):
    """A failure to report on stderr as `prog: message` (as `message` alone when not
    `prefixed`: Maui's own `ERROR:    ...` lines), with exit `status`."""

    def __init__(self, message: str, status: int = 1, *, prefixed: bool = True):
        super().__init__(message)
        self.status, self.prefixed = status, prefixed


# ------------------------------------------------------------------- formatting
# Maui's time formats (model/times.py), imported on first use: importing the model package
# costs a command's --help tens of milliseconds for nothing.
def tstr(seconds: int) -> str:
    """MULToTString: `[-][D:]HH:MM:SS`."""
    from ..model.times import multotstring
    return multotstring(seconds)


def dstr(epoch: int) -> str:
    """MULToDString: `Thu Sep  1 15:02:50`."""
    from ..model.times import multodstring
    return multodstring(epoch)


def dates(data: Mapping[str, Any]) -> Callable[[int], str]:
    """MULToDString for a command's data: in the trace's zone when the data comes from a
    simulator's store (its "clock", cli/clock.py), else dstr."""
    clock = data.get("clock")
    if not clock:
        return dstr
    from .clock import maui_dates
    return maui_dates(clock)


def date(epoch: int) -> str:
    from ..model.times import date as _date
    return _date(epoch)


def duration(seconds: int) -> str:
    from ..model.times import duration as _duration
    return _duration(seconds)


# --------------------------------------------------------------------- arguments
def add_store_arguments(parser: argparse.ArgumentParser, *, short_config: bool = True) -> None:
    """-c/--config (only --config where Maui's command uses -c for something else), --store,
    --json."""
    names = ("-c", "--config") if short_config else ("--config",)
    parser.add_argument(*names, metavar="FILE",
                        help=f"maui.cfg (default: the first of {paths.SEARCH_ORDER.split(', ', 1)[1]})")
    parser.add_argument("--store", metavar="PATH",
                        help="the state store (default: STOREFILE of the configuration); a "
                             "simulation's store (maui-sim --store) works too")
    parser.add_argument("--json", action="store_true",
                        help="print the data as JSON (with the cycle it comes from)")


def parse_duration(text: str) -> int:
    """A Maui duration `[[[DD:]HH:]MM:]SS` (or seconds) -> seconds; usage error otherwise."""
    from ..cfg.values import Time
    try:
        return max(0, Time().parse(text))
    except ValueError:
        raise CommandError(f"invalid duration {text!r} (expected [[[DD:]HH:]MM:]SS)", 2) from None


# ---------------------------------------------------------------------- location
def _load(path: Path) -> SchedulerConfig:
    from ..cfg import ConfigError, load_config
    try:
        return load_config(paths.locate_config(path))
    except paths.ConfigMissing as e:
        raise CommandError(str(e)) from e
    except ConfigError as e:
        raise CommandError(f"unusable configuration: {e.one_line()}") from e


def store_location(args: argparse.Namespace) -> Path:
    """The store the command reads: --store, else STOREFILE of the configuration."""
    if getattr(args, "store", None):
        return Path(args.store)
    try:
        path = paths.locate_config(getattr(args, "config", None))
    except paths.ConfigMissing as e:
        raise CommandError(f"{e} or --store PATH" if str(e) == paths.NOT_FOUND else str(e)) from e
    return paths.store_path(_load(path), path)


def command_config(args: argparse.Namespace, recorded: str = "") -> tuple[SchedulerConfig, str]:
    """(configuration, where it came from): -c, else the daemon's recorded one, else found."""
    from ..cfg import SchedulerConfig
    if getattr(args, "config", None):
        return _load(Path(args.config)), args.config
    for candidate in (Path(recorded) if recorded else None, paths.find_config()):
        if candidate is not None and candidate.is_file():
            return _load(candidate), str(candidate)
    return SchedulerConfig.default(), "defaults"


def open_reader(args: argparse.Namespace) -> StoreReader:
    from ..store import StoreError, StoreReader
    try:
        return StoreReader.open(store_location(args))
    except StoreError as e:
        raise CommandError(str(e)) from e


# ------------------------------------------------------------------------ age
def daemon_status(store: Path) -> str:
    """`mauid running, pid N` or `mauid not running`, from the pid the daemon keeps in
    `<store>.pid` (readable by all; removed when it stops), else in its lock file (mode
    0600: root reads it); a pid left by a killed daemon is checked for life. The lock itself
    is not touched: a probe could make a starting mauid fail its own."""
    from ..daemon.lock import lock_path, pid_path
    text = ""
    for path in (pid_path(store), lock_path(store)):
        try:
            text = path.read_text().strip()
        except OSError:
            continue
        if text:
            break
    if not text.isdigit():
        return "mauid not running"
    try:
        os.kill(int(text), 0)
    except ProcessLookupError:
        return "mauid not running"
    except PermissionError:
        pass
    return f"mauid running, pid {text}"


def cycle_facts(last: LastCycle, store: Path, wall: float | None = None,
                clock: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The "cycle" object of --json and the facts of the age line. `now` is epoch seconds;
    on a simulator's store (`clock`: the trace's, cli/clock.py) also `clock`, and
    `replay_now`, the instant in the replay's own seconds."""
    from .clock import offset
    info = last.info
    wall = time.time() if wall is None else wall
    simulated = info.rm == "sim"
    facts = {"iteration": info.iteration, "now": info.now + offset(clock), "saved_at": info.wall,
             "age_seconds": max(0, int(wall - info.wall)), "simulated": simulated,
             "daemon": "" if simulated else daemon_status(store), "store": str(store),
             "config": info.config_path}
    if clock is not None:
        facts.update(clock=dict(clock), replay_now=info.now)
    return facts


def age_line(facts: Mapping[str, Any]) -> str:
    """`data as of cycle N (DATE), T ago; mauid ...` for stderr."""
    from .clock import date as clock_date
    when = clock_date(facts.get("clock"), facts["now"])
    if facts["simulated"]:
        return f"data as of simulated cycle {facts['iteration']} ({when}), saved {duration(facts['age_seconds'])} ago"
    line = f"data as of cycle {facts['iteration']} ({when}), {duration(facts['age_seconds'])} ago"
    line += f"; {facts['daemon']}" if facts["daemon"] else ""
    return line + (("\n" + stale_line(facts)) if facts.get("rm_unreachable_since") else "")


def stale_line(facts: Mapping[str, Any], wall: float | None = None) -> str:
    """`data is stale: resource manager unreachable since DATE (T ago): error`: while mauid
    cannot read the resource manager it runs no cycle, so what the commands show is old."""
    since = facts["rm_unreachable_since"]
    wall = time.time() if wall is None else wall
    return (f"data is stale: resource manager unreachable since {date(int(since))} "
            f"({duration(max(0, int(wall - since)))} ago): {facts.get('rm_error', '')}")


# ------------------------------------------------------------------------ who
def invoking_user(env: Mapping[str, str] | None = None) -> str:
    """The user running the command ($MAUI_PY_USER counts only for root)."""
    env = os.environ if env is None else env
    uid = os.getuid()
    if uid == 0 and env.get(USER_ENV):
        return env[USER_ENV]
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"UID{uid}"


def admins(cfg: SchedulerConfig) -> set[str]:
    """ADMIN1 users, and root always."""
    return {"root", *(cfg.get("ADMIN1") or ())}


def sees_all(cfg: SchedulerConfig, user: str) -> bool:
    """ADMIN1 and ADMIN2 users see every reservation (UIResList)."""
    return user in admins(cfg) or user in (cfg.get("ADMIN2") or ())


def require_admin(cfg: SchedulerConfig, user: str, prog: str) -> None:
    if user not in admins(cfg):
        raise CommandError(f"permission denied: user {user} may not run {prog} "
                           "(only root and ADMIN1 users may)")


# ---------------------------------------------------------------------- output
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs"})


def printable(text: str) -> str:
    """`text` with every control, format (U+202E right-to-left override, zero-width ...) and
    line-separator character written as an escape (`\\u202e`), newlines and tabs kept: a user's
    or job's name reaches the terminal as text, never as a command to it."""
    if text.isascii():
        return _CONTROL.sub(_escape, text) if _CONTROL.search(text) else text
    import unicodedata
    unsafe = {c for c in set(text) if (not c.isascii() or _CONTROL.match(c)) and c not in "\n\t"
              and unicodedata.category(c) in _UNSAFE_CATEGORIES}
    return "".join(_escape_char(c) if c in unsafe else c for c in text) if unsafe else text


def _escape(m: re.Match) -> str:
    return _escape_char(m.group())


def _escape_char(c: str) -> str:
    n = ord(c)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def emit(args: argparse.Namespace, out: TextIO, data: Mapping[str, Any],
         render: Callable[[Mapping[str, Any]], str], facts: Mapping[str, Any] | None = None,
         err: TextIO | None = None) -> None:
    """--json: {"command", "cycle", "data"}; else the text, and the age line on stderr."""
    if getattr(args, "json", False):
        doc = {"command": data.get("command", ""), "cycle": dict(facts or {}), "data": dict(data)}
        out.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
        return
    if facts is not None and err is not None:
        err.write(age_line(facts) + "\n")
    out.write(printable(render(data)))


def run_guarded(prog: str, err: TextIO, body: Callable[[], int]) -> int:
    """Run a command body; a CommandError becomes `prog: message` on stderr and its status,
    a StoreError (a damaged or foreign store) `prog: FILE: what is wrong` and status 1; a
    store row that cannot be read is skipped, named by `prog: warning: ...` on stderr."""
    with _store_warnings(prog, err):
        return _guarded(prog, err, body)


@contextlib.contextmanager
def _store_warnings(prog: str, err: TextIO):
    """While a command runs, the store reader's warnings (rows it skipped) go to its stderr."""
    class ToStderr(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            err.write(f"{prog}: warning: {record.getMessage()}\n")
    store_log = logging.getLogger("maui_py.store")
    handler = ToStderr(logging.WARNING)
    store_log.addHandler(handler)
    try:
        yield
    finally:
        store_log.removeHandler(handler)


def _guarded(prog: str, err: TextIO, body: Callable[[], int]) -> int:
    from ..store.reader import StoreError
    try:
        return body()
    except CommandError as e:
        err.write(printable(f"{prog}: {e}\n" if e.prefixed else f"{e}\n"))
        return e.status
    except StoreError as e:                 # a damaged or foreign store, found while reading it
        err.write(printable(f"{prog}: {e}\n"))
        return 1
    except BrokenPipeError:
        return 0


def streams(out: TextIO | None, err: TextIO | None) -> tuple[TextIO, TextIO]:
    return out or sys.stdout, err or sys.stderr


@dataclass
class Loaded:
    """What a reading command starts from: the reader, the last cycle, the configuration."""

    reader: StoreReader
    last: LastCycle
    cfg: SchedulerConfig
    facts: dict[str, Any]


def load(args: argparse.Namespace) -> Loaded:
    """Open the store read-only and read the last committed cycle (CommandError if none)."""
    from ..store.rm_status import rm_down
    reader = open_reader(args)
    last = reader.last_cycle()
    if last is None:
        reader.close()
        raise CommandError(f"{reader.path}: no cycle saved yet (has mauid run a cycle?)")
    cfg, _source = command_config(args, last.info.config_path)
    clock = None
    if last.info.rm == "sim":
        from .clock import store_clock
        clock = store_clock(reader.kv().get("cycle"))
    facts = cycle_facts(last, reader.path, clock=clock)
    down = rm_down(reader.conn)
    if down is not None:          # mauid cannot read the resource manager: no new cycles
        facts["rm_unreachable_since"], facts["rm_error"] = down["since"], down["error"]
    return Loaded(reader, last, cfg, facts)


def run_view(prog: str, args: argparse.Namespace, out: TextIO | None, err: TextIO | None,
             collect: Callable[[View, StoreReader], Mapping[str, Any]],
             render: Callable[[Mapping[str, Any]], str]) -> int:
    """A reading command: the last cycle's View -> collect(view, reader) -> data -> emit."""
    from ..store.reader import CORRUPT, StoreError
    from .view import View
    out, err = streams(out, err)

    def body() -> int:
        loaded = load(args)
        with loaded.reader:
            try:
                data = collect(View(loaded.last, loaded.cfg, loaded.reader.load_state()), loaded.reader)
                clock = loaded.facts.get("clock")
                from .clock import offset, readable, to_epoch
                data = readable(data, clock)    # no raw seconds in a sentence
                if clock is not None:           # a simulator's store: its times in epoch seconds
                    data = {**to_epoch(data, offset(clock)), "clock": clock}
                emit(args, out, data, render, loaded.facts, err)
            except (CommandError, StoreError):
                raise
            except (*CORRUPT, AttributeError) as e:
                # rows that decoded but do not fit together (a store edited or damaged in
                # place): one line, not a traceback; MAUI_PY_TRACEBACK=1 shows where
                if os.environ.get(TRACEBACK_ENV):
                    raise
                first = (str(e).splitlines() or [""])[0][:200]
                raise StoreError(f"{loaded.reader.path}: cannot show its last cycle ({type(e).__name__}: "
                                 f"{first}); the store may be damaged ({TRACEBACK_ENV}=1 shows where)") from e
        return 0
    return run_guarded(prog, err, body)


MAX_OPTION = 10**12
"""Largest count, seed or interval an option takes: far beyond any replay, and no 5000-digit int()."""


def at_least(lo: int):
    """An argparse type: an ASCII integer in [lo, MAX_OPTION], else a usage error (exit 2), so
    `--jobs -5` is refused instead of silently meaning something else."""
    def parse(text: str) -> int:
        digits = text.strip().removeprefix("-").removeprefix("+")
        if not (digits.isascii() and digits.isdigit() and len(digits) <= 13):
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer")
        value = int(text)
        if not lo <= value <= MAX_OPTION:
            raise argparse.ArgumentTypeError(f"{value} is out of range ({lo}..{MAX_OPTION})")
        return value
    parse.__name__ = "integer"
    return parse
