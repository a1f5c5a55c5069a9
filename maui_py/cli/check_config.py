"""`maui-py check-config FILE...`: list every error and warning of maui.cfg files.

Exit status: 0 when every file is valid (warnings allowed), 1 when any has errors, 2 when a file
cannot be read (argparse also exits 2 on usage errors). Each file gets its issues in line order
(`file:line:col: severity: PARAM: message`), the parameters it sets that maui-py accepts but does
not act on, and a summary line.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from ..cfg.loader import load_with_issues

HELP = "check maui.cfg files: every error and warning; exit 0 valid, 1 errors, 2 unreadable"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="maui.cfg files to check")
    parser.add_argument("-q", "--quiet", action="store_true", help="show errors only")


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    return max(check_file(path, args.quiet, out) for path in args.files)


def check_file(path: str, quiet: bool = False, out: TextIO | None = None) -> int:
    """Report on one file; return its exit status."""
    out = out or sys.stdout
    try:
        config, errors, warnings = load_with_issues(path)
    except OSError as exc:
        print(f"{path}: error: cannot read: {exc.strerror or exc}", file=out)
        return 2
    shown = errors if quiet else sorted(errors + warnings, key=lambda i: (i.line, i.column))
    for issue in shown:
        print(issue, file=out)
    if config is not None and not quiet:
        for what, source in config.not_acted_on():
            print(f"{source}: note: {what}: accepted but not acted on by maui-py", file=out)
    verdict = "invalid" if errors else "valid"
    print(f"{path}: {_count(len(errors), 'error')}, {_count(len(warnings), 'warning')}: {verdict}", file=out)
    return 1 if errors else 0


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
