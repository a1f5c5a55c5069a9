"""Where the daemon's files are: home directory, store, log file.

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

from ..cfg import SchedulerConfig


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
