"""The `maui-py` command: a dispatcher over command modules.

A command is a module registered in `COMMANDS` (name -> module path) that provides
    HELP                  one line for `maui-py --help`
    add_arguments(parser) its options and arguments
    run(args) -> int      the exit status
so `maui-py simulate` is one `register("simulate", "maui_py.cli.simulate")` line plus its module.
Maui-named scripts (`showconfig`) run one command with its own program name via `run_single`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType

COMMANDS: dict[str, str] = {
    "check-config": "maui_py.cli.check_config",
    "daemon": "maui_py.daemon.main",
    "showconfig": "maui_py.cli.showconfig",
    "simulate": "maui_py.cli.simulate",
}


def register(name: str, module: str) -> None:
    """Add a subcommand implemented by `module` (imported when the parser is built)."""
    COMMANDS[name] = module


def _load(name: str) -> ModuleType:
    return importlib.import_module(COMMANDS[name])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="maui-py", description="A Maui-style batch scheduler for Slurm and Torque.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = _load(name)
        sub = commands.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    return args.run(args)


def run_single(name: str, argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run one command as a program of its own (`showconfig -v`)."""
    module = _load(name)
    parser = argparse.ArgumentParser(prog=prog or name, description=module.HELP)
    module.add_arguments(parser)
    return module.run(parser.parse_args(argv))


def maui_sim_main(argv: list[str] | None = None) -> int:
    """Entry point of `maui-sim`, the simulator under its own name."""
    return run_single("simulate", argv, prog="maui-sim")


def showconfig_main(argv: list[str] | None = None) -> int:
    """Entry point of the Maui-named `showconfig` script."""
    return run_single("showconfig", argv)


if __name__ == "__main__":
    sys.exit(main())
