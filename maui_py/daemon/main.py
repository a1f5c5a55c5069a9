"""`mauid` (and `maui-py daemon`): run the scheduler against a resource manager.

    mauid -c /etc/maui-py/maui.cfg                 # detach and run
    mauid -c maui.cfg --foreground                 # stay attached, log to stderr only (systemd)
    mauid -c maui.cfg --once                       # one cycle, then exit (cron, tests)

Exit status: 0; 1 runtime failure (or --once and the cycle failed); 2 unusable
configuration or store (a damaged store, found at start by SQLite's quick_check or while
running: one line saying what is wrong, nothing more written to it); 3 another mauid holds
the store's lock. The systemd unit does not restart on 2 or 3 (RestartPreventExitStatus).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from .. import __version__
from ..cfg import ConfigError
from ..rm.protocol import RMError
from ..store import StoreDamaged, StoreError
from . import paths
from .lock import DaemonLock, LockHeld, lock_path
from .loop import Daemon

HELP = "run the scheduler daemon (mauid) against the resource manager in RMCFG"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-c", "--config", default=None, metavar="FILE",
                        help=f"maui.cfg to use (default: the first of {paths.SEARCH_ORDER.split(', ', 1)[1]})")
    parser.add_argument("--store", default=None, metavar="PATH",
                        help="the state store (default: STOREFILE, relative to the home directory)")
    parser.add_argument("--once", action="store_true", help="run one cycle, then exit (stays attached)")
    parser.add_argument("--foreground", action="store_true",
                        help="do not detach; log to stderr instead of LOGFILE (systemd: journald)")
    parser.add_argument("--rm", default=None, metavar="NAME",
                        help="the RMCFG[NAME] to drive (default: the first one)")


def _config_path(arg: str | None) -> str:
    """-c FILE, else the file every maui-py program finds (paths.locate_config); ConfigMissing."""
    return str(paths.locate_config(arg))


def _detach() -> None:
    """The classic double fork: no controlling terminal, stdio on /dev/null."""
    if os.fork() > 0:
        os._exit(0)
    os.setsid()
    if os.fork() > 0:
        os._exit(0)
    os.chdir("/")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def run(args: argparse.Namespace) -> int:
    try:
        config = _config_path(args.config)
    except paths.ConfigMissing as e:
        print(f"mauid: {e}", file=sys.stderr)
        return 2
    foreground = args.foreground or args.once
    try:
        daemon = Daemon(config, store_path=args.store, rm_name=args.rm, stderr=foreground,
                        log_file=not foreground)
    except ConfigError as e:
        print(f"mauid: {e}", file=sys.stderr)
        return 2
    if not foreground:
        held = _lock_holder(daemon)
        if held:
            print(f"mauid: {held}", file=sys.stderr)
            return 3
        _detach()
    try:
        return daemon.run(once=args.once)
    except LockHeld as e:
        return _fail(f"mauid: {e}", 3, detached=not foreground)
    except StoreDamaged as e:
        when = f"stopped after {daemon.cycles_run} cycles" if daemon.cycles_run else "cannot start"
        return _fail(f"mauid: {when}: {e}", 2, detached=not foreground)
    except (StoreError, OSError, RMError, ValueError) as e:
        return _fail(f"mauid: cannot start: {e}", 2, detached=not foreground)


def _fail(message: str, status: int, *, detached: bool) -> int:
    """To stderr, or to the log for a detached daemon (its stderr is /dev/null)."""
    if detached:
        logging.getLogger("maui_py.daemon").error("%s", message)
    else:
        print(message, file=sys.stderr)
    return status


def _lock_holder(daemon: Daemon) -> str | None:
    """Checked before detaching, so that the terminal sees the refusal."""
    try:
        DaemonLock(lock_path(daemon.store_path)).acquire().release()
    except LockHeld as e:
        return str(e)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mauid", description=HELP)
    add_arguments(parser)
    parser.add_argument("--version", action="version", version=f"%(prog)s (maui-py) {__version__}")
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
