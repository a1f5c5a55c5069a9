"""Where maui-py's files are: the configuration, home directory, store, log file.

Every program (mauid, showq and the other commands, showconfig) finds maui.cfg the same way,
in this order, the first that exists winning:

    -c FILE                 given on the command line (it must exist);
    $MAUI_PY_CONFIG         like Slurm's $SLURM_CONF (it must exist when set);
    $MAUIHOMEDIR/maui.cfg   Maui's home directory, when the variable is set;
    ./maui.cfg              the current directory (Maui ran from its home directory);
    /etc/maui-py/maui.cfg   the system file (the systemd unit's -c).

A file that is named (-c, $MAUI_PY_CONFIG) but cannot be read, and finding none, are errors
worded the same way by every program (`locate_config`, `ConfigMissing`).

Maui takes relative paths from its home directory (MAUIHOMEDIR). maui-py does the same:
$MAUIHOMEDIR when set, else the directory of the configuration file. LOGFILE is taken
relative to LOGDIR and LOGDIR relative to the home directory, as Maui does; STOREFILE is
relative to the home directory. Absolute paths are used as they are.

The admin commands reach the daemon through a Unix-domain socket next to the store
(`<store>.sock`), so that a command finds it from the same STOREFILE / --store it reads.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:       # the configuration package is not needed to find a file
    from ..cfg import SchedulerConfig

CONFIG_ENV = "MAUI_PY_CONFIG"
CONFIG_NAME = "maui.cfg"
SYSTEM_CONFIG = Path("/etc/maui-py/maui.cfg")
SEARCH_ORDER = f"-c FILE, ${CONFIG_ENV}, $MAUIHOMEDIR/{CONFIG_NAME}, ./{CONFIG_NAME}, {SYSTEM_CONFIG}"
"""The search order in one line, for --help texts and error messages."""


class ConfigMissing(OSError):
    """No configuration file was found, or the one named cannot be read."""


def find_config(env: Mapping[str, str] | None = None) -> Path | None:
    """The configuration file when -c is not given: $MAUI_PY_CONFIG when set (whether or not it
    exists: a name given explicitly is never passed over), else the first of
    $MAUIHOMEDIR/maui.cfg, ./maui.cfg, /etc/maui-py/maui.cfg that is a file; None if none is."""
    env = os.environ if env is None else env
    if env.get(CONFIG_ENV):
        return Path(env[CONFIG_ENV])
    candidates = [Path(env["MAUIHOMEDIR"]) / CONFIG_NAME] if env.get("MAUIHOMEDIR") else []
    candidates += [Path(CONFIG_NAME), SYSTEM_CONFIG]
    return next((path for path in candidates if path.is_file()), None)


def cannot_read(path: str | Path, error: OSError | str) -> str:
    """The one wording of an unreadable configuration file: `cannot read FILE: REASON`."""
    reason = error if isinstance(error, str) else (error.strerror or str(error))
    return f"cannot read {path}: {reason}"


NOT_FOUND = f"no {CONFIG_NAME} found (searched {SEARCH_ORDER.split(', ', 1)[1]}); give -c FILE"


def locate_config(explicit: str | Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    """The configuration file a program uses: `explicit` (-c), else `find_config`. Raises
    ConfigMissing (`cannot read FILE: REASON`, or NOT_FOUND) when there is none to read."""
    path = Path(explicit) if explicit else find_config(env)
    if path is None:
        raise ConfigMissing(NOT_FOUND)
    try:
        with open(path, "rb"):
            pass
    except OSError as e:
        raise ConfigMissing(cannot_read(path, e)) from e
    return path


def home_dir(config_path: str | Path) -> Path:
    env = os.environ.get("MAUIHOMEDIR")
    return Path(env).resolve() if env else Path(config_path).resolve().parent


def store_path(cfg: SchedulerConfig, config_path: str | Path, override: str | Path | None = None) -> Path:
    if override:
        return Path(override).resolve()
    return home_dir(config_path) / str(cfg.get("STOREFILE") or "maui-py.db")


def log_path(cfg: SchedulerConfig, config_path: str | Path) -> Path | None:
    """The log file, or None when LOGFILE is empty or `-` (log to stderr only)."""
    name = str(cfg.get("LOGFILE") or "")
    if name in ("", "-"):
        return None
    return home_dir(config_path) / str(cfg.get("LOGDIR") or ".") / name


SOCKET_SUFFIX = ".sock"


def socket_path(store: str | Path) -> Path:
    """The daemon's request socket: `<store>.sock`, beside the store and its lock."""
    return Path(str(store) + SOCKET_SUFFIX)
