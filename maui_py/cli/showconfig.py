"""`showconfig [-c FILE] [-v]` (also `maui-py showconfig`): the configuration in force.

Like Maui's showconfig it prints `PARAMETER  VALUE` lines in maui.cfg syntax, one per parameter in
table order, each with a trailing `# default` or `# file:line` saying where the value came from;
objects print as `USERCFG[john]  PRIORITY=100 FSTARGET=10.0-  # maui.cfg:30`. The output parses
back to the same configuration. Without -v it shows the parameters maui-py acts on (and any other
the file sets); -v adds every accepted parameter and the defaults of configured objects' attributes.

The file is found as every maui-py program finds it (daemon/paths.py: -c FILE, $MAUI_PY_CONFIG,
$MAUIHOMEDIR/maui.cfg, ./maui.cfg, /etc/maui-py/maui.cfg); with none of them the defaults are
shown (and stderr says so).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..daemon import paths

if TYPE_CHECKING:
    from ..cfg import SchedulerConfig

HELP = "show the configuration in force: every parameter, its value and where it came from"
NOT_ACTED_ON = "accepted, not acted on by maui-py"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-c", "--config", metavar="FILE", help="maui.cfg to read (default: see below)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also accepted-but-inactive parameters and object attribute defaults")
    parser.epilog = f"The file: {paths.SEARCH_ORDER}, the first that exists; else the built-in defaults."


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    from ..cfg import SchedulerConfig
    from ..cfg.loader import load_with_issues
    out, err = out or sys.stdout, err or sys.stderr
    path = Path(args.config) if args.config else paths.find_config()
    if path is None:
        print(f"showconfig: {paths.NOT_FOUND.split(';')[0]}: showing the defaults", file=err)
        config = SchedulerConfig.default()
    else:
        try:
            config, errors, warnings = load_with_issues(path)
        except OSError as exc:
            print(f"showconfig: {paths.cannot_read(path, exc)}", file=err)
            return 2
        for issue in errors + warnings:
            print(issue, file=err)
        if config is None:
            return 1
    out.write(render(config, args.verbose, str(path) if path else "defaults"))
    return 0


def render(config: SchedulerConfig, verbose: bool = False, origin: str = "defaults") -> str:
    """showconfig's text for a configuration."""
    from ..cfg import PARAMS, CredConfig
    from ..cfg.params import ACCEPTED, INDEXED
    lines = [f"# maui-py showconfig: {origin}"]
    for name, index, value, source in config.items(verbose=verbose):
        param = PARAMS[name]
        label = name if index is None else f"{name}[{index}]"
        note = f"  ({NOT_ACTED_ON})" if param.status == ACCEPTED else ""
        if isinstance(value, CredConfig):
            lines.append(_line(label, value.format(), source + note))
            if verbose:
                lines += [_line(label, f"{attr}={row.type.show(row.default, True)}", "default")
                          for attr, row in param.attrs.items() if attr not in value and row.default is not None]
        elif param.scope == INDEXED and index is None:
            lines.append("# " + _line(f"{name}[<index>]", param.type.show(value), source + note))
        else:
            lines.append(_line(label, param.type.show(value), source + note))
    if verbose:
        inactive = config.not_acted_on()
        lines.append(f"# set but {NOT_ACTED_ON}: {len(inactive)}")
        lines += [f"#   {what} ({source})" for what, source in inactive]
    return "\n".join(lines) + "\n"


def _line(label: str, value: str, source: str) -> str:
    return f"{label:<28} {value:<20} # {source}"
