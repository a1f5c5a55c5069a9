"""The `maui-py` command: a dispatcher over command modules.

A command is a module registered in `COMMANDS` (name -> module path) that provides
    HELP                  one line for `maui-py --help`
    add_arguments(parser) its options and arguments
    run(args) -> int      the exit status
so `maui-py simulate` is one `register("simulate", "maui_py.cli.simulate")` line plus its module.
Maui-named scripts (`showconfig`) run one command with its own program name via `run_single`.
A command may take over an option of argparse's (`sethold -h TYPE`, as in Maui; --help stays).
Every program and subcommand takes --version.

Start-up cost: this module imports no command; `maui-py COMMAND` and the Maui-named scripts
import only the command they run, and a command module imports the configuration, the store
and the planner only when it runs (not for --help, --version or a usage error). `maui-py
--help` imports every command module for its one-line HELP. benchmarks/startup.py measures it.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from types import ModuleType
from typing import Callable

from .. import __version__

COMMANDS: dict[str, str] = {
    "check-config": "maui_py.cli.check_config",
    "daemon": "maui_py.daemon.main",
    "samples": "maui_py.cli.samples",
    "showconfig": "maui_py.cli.showconfig",
    "simulate": "maui_py.cli.simulate",
}
MAUI_COMMANDS = ("showq", "showres", "showbf", "showstart", "checkjob", "diagnose", "setres",
                 "releaseres", "sethold", "releasehold", "setspri", "runjob")
"""Maui's commands (docs/commands.md): `maui-py showq ...` and a `showq` script each."""
COMMANDS.update({name: f"maui_py.cli.{name}" for name in MAUI_COMMANDS})


def register(name: str, module: str) -> None:
    """Add a subcommand implemented by `module` (imported when the parser is built)."""
    COMMANDS[name] = module


def _load(name: str) -> ModuleType:
    return importlib.import_module(COMMANDS[name])


def version_text(prog: str) -> str:
    """What --version prints: `showq (maui-py) 0.1.0`, `maui-py 0.1.0`."""
    return f"maui-py {__version__}" if prog == "maui-py" else f"{prog} (maui-py) {__version__}"


def add_version(parser: argparse.ArgumentParser, prog: str) -> None:
    parser.add_argument("--version", action="version", version=version_text(prog),
                        help="print the program's name and maui-py's version, then exit")


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The `maui-py` parser; with `argv` naming a command, only that command is loaded (so
    `maui-py showq` starts as fast as `showq`), else every command (for --help)."""
    parser = argparse.ArgumentParser(prog="maui-py", description="A Maui-style batch scheduler for Slurm and Torque.")
    add_version(parser, "maui-py")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = _command_in(argv)
    for name in [chosen] if chosen else COMMANDS:
        module = _load(name)
        sub = commands.add_parser(name, help=module.HELP, description=module.HELP, conflict_handler="resolve")
        module.add_arguments(sub)
        add_version(sub, name)
        sub.set_defaults(run=module.run)
    return parser


def _command_in(argv: list[str] | None) -> str | None:
    """The command `argv` runs when its first word is one (options before it: None)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT, as a shell reports a job killed by it)."""


def terminal_guard(prog: str, body: Callable[[], int]) -> int:
    """Run a whole command as a terminal program should end: Ctrl-C prints one line
    (`prog: interrupted`) and exits 130; a reader that closes the pipe early (`| head`) ends
    the command quietly with status 0 (what it printed was all that was wanted), without
    Python's `Exception ignored ... BrokenPipeError` at exit. No traceback either way."""
    try:
        status = body()
        sys.stdout.flush()          # a broken pipe shows here, not in the interpreter's exit flush
        return status
    except KeyboardInterrupt:
        _drop_stdout()
        try:
            sys.stderr.write(f"\n{prog}: interrupted\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        return INTERRUPTED
    except BrokenPipeError:
        _drop_stdout()
        return 0


def _drop_stdout() -> None:
    """Point stdout at /dev/null so nothing left in its buffer is written (or fails) at exit."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):    # captured or closed: nothing to drop
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def main(argv: list[str] | None = None) -> int:
    def body() -> int:
        words = sys.argv[1:] if argv is None else argv
        parser = build_parser(words)
        args = parser.parse_args(words)
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
        return args.run(args)
    return terminal_guard("maui-py", body)


def run_single(name: str, argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run one command as a program of its own (`showconfig -v`), under terminal_guard."""
    def body() -> int:
        module = _load(name)
        parser = argparse.ArgumentParser(prog=prog or name, description=module.HELP, conflict_handler="resolve")
        module.add_arguments(parser)
        add_version(parser, prog or name)
        return module.run(parser.parse_args(argv))
    return terminal_guard(prog or name, body)


def maui_sim_main(argv: list[str] | None = None) -> int:
    """Entry point of `maui-sim`, the simulator under its own name; `maui-sim whatif` and
    `maui-sim convert` go to the module that parses their own options."""
    words = sys.argv[1:] if argv is None else list(argv)

    def body() -> int:
        from .simulate import SUBCOMMANDS     # imported inside the guard: Ctrl-C here is clean too
        if words and words[0] in SUBCOMMANDS:
            return importlib.import_module(SUBCOMMANDS[words[0]]).main(words)
        return run_single("simulate", argv, prog="maui-sim")
    return terminal_guard("maui-sim", body)


def showconfig_main(argv: list[str] | None = None) -> int:
    """Entry point of the Maui-named `showconfig` script."""
    return run_single("showconfig", argv)


def _maui_script(name: str):
    """The entry point of the Maui-named script `name` (pyproject [project.scripts])."""
    def entry(argv: list[str] | None = None) -> int:
        return run_single(name, argv)
    entry.__name__ = entry.__qualname__ = f"{name}_main"
    entry.__doc__ = f"Entry point of the Maui-named `{name}` script."
    return entry


for _name in MAUI_COMMANDS:              # showq_main, showres_main, ... (pyproject's scripts)
    globals()[f"{_name}_main"] = _maui_script(_name)


if __name__ == "__main__":
    sys.exit(main())
