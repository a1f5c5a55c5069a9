"""`maui-py check-config [--strict] [--nodes HOSTLIST] FILE...`: list every error and warning of
maui.cfg files.

Exit status: 0 when every file is valid (warnings allowed), 1 when any has errors (with --strict,
or warnings, or settings maui-py reads but does not act on: a site's CI can gate its maui.cfg,
and a misspelt parameter such as RESERVATIONDEPHT, which Maui ignores with a warning, or a
preemption setting maui-py does not implement, fails the gate), 2 when a file cannot be read
(argparse also exits 2 on usage errors). Each file gets its issues in line order (`file:line:col: severity:
PARAM: message`), the parameters it sets that maui-py accepts but does not act on, how each host
expression (SRCFG HOSTLIST) is read and, with --nodes, the nodes it matches (a regular expression
that matches more nodes than its hostlist reading is a warning), and a summary line.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from ..daemon.paths import cannot_read

if TYPE_CHECKING:
    from ..cfg import SchedulerConfig

HELP = "check maui.cfg files: every error and warning; exit 0 valid, 1 errors (--strict: or warnings), 2 unreadable"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="maui.cfg files to check")
    parser.add_argument("-q", "--quiet", action="store_true", help="show errors only (and, with --strict, warnings)")
    parser.add_argument("--strict", action="store_true",
                        help="warnings, and settings maui-py reads but does not act on, fail too (exit 1): "
                             "unknown parameters, values read another way, preemption, ...")
    parser.add_argument("--nodes", metavar="HOSTLIST",
                        help="the cluster's nodes as a Slurm hostlist (`node[001-128]`, or "
                             "\"$(sinfo -h -o %%N)\"): show the nodes each HOSTLIST matches")


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    nodes = None
    if args.nodes is not None:
        from ..model.hostlist import HostlistError, expand
        try:
            nodes = expand(args.nodes)
        except HostlistError as e:
            print(f"check-config: --nodes: {e}", file=sys.stderr)
            return 2
    return max(check_file(path, args.quiet, out, strict=args.strict, nodes=nodes) for path in args.files)


def check_file(path: str, quiet: bool = False, out: TextIO | None = None, *, strict: bool = False,
               nodes: list[str] | None = None) -> int:
    """Report on one file; return its exit status."""
    from ..cfg.loader import load_with_issues
    out = out or sys.stdout
    try:
        config, errors, warnings = load_with_issues(path)
    except OSError as exc:
        print(f"{path}: error: {cannot_read(path, exc)}", file=out)
        return 2
    shown = errors if quiet and not strict else sorted(errors + warnings, key=lambda i: (i.line, i.column))
    for issue in shown:
        print(issue, file=out)
    notes, host_warnings = host_lines(config, nodes) if config is not None else ([], [])
    inactive = config.not_acted_on() if config is not None else []
    if not quiet or strict:
        for what, source in inactive:
            print(f"{source}: note: {what}: accepted but not acted on by maui-py", file=out)
    if config is not None and not quiet:
        for line in notes:
            print(line, file=out)
    if not quiet or strict:
        for line in host_warnings:
            print(line, file=out)
    n_warnings = len(warnings) + len(host_warnings)
    failed = bool(errors) or (strict and (n_warnings > 0 or bool(inactive)))
    summary = f"{_count(len(errors), 'error')}, {_count(n_warnings, 'warning')}"
    if strict and inactive:
        summary += f", {len(inactive)} not acted on"
    print(f"{path}: {summary}: {_verdict(errors, n_warnings, len(inactive), failed)}", file=out)
    return 1 if failed else 0


def _verdict(errors: list, n_warnings: int, n_inactive: int, failed: bool) -> str:
    """valid / invalid, and with --strict what failed the gate: a setting maui-py reads but
    does not act on fails it like a warning (the site's maui.cfg expects something that
    will not happen)."""
    if errors:
        return "invalid"
    if not failed:
        return "valid"
    reasons = (["warnings"] if n_warnings else []) + (["settings not acted on"] if n_inactive else [])
    return f"invalid (--strict: {' and '.join(reasons)} fail)"


def host_lines(config: SchedulerConfig, nodes: list[str] | None) -> tuple[list[str], list[str]]:
    """(notes, warnings) about every host expression of the file's objects (SRCFG HOSTLIST):
    how it is read and, given the cluster's `nodes`, what it matches."""
    from ..cfg import PARAMS
    from ..cfg.values import HostList
    from ..model import hostlist
    notes: list[str] = []
    warnings: list[str] = []
    for name, param in PARAMS.items():
        attrs = [a for a, row in param.attrs.items() if isinstance(row.type, HostList)]
        for obj_name, obj in sorted(config.objects(name).items()) if attrs else ():
            for attr in (a for a in attrs if obj.get(a)):
                where = f"{obj.source(attr)}: %s: {name}[{obj_name}] {attr}: "
                for text in obj[attr]:
                    note, warning = _describe(text, nodes, hostlist)
                    notes.append(where % "note" + note)
                    if warning:
                        warnings.append(where % "warning" + warning)
    return notes, warnings


def _describe(text: str, nodes: list[str] | None, hostlist) -> tuple[str, str]:
    """One expression's note and warning ("" if none)."""
    reading = hostlist.read(text)
    if nodes is None:
        if reading is hostlist.Reading.REGEX:
            return f"{text!r} is a regular expression searched in every node name (--nodes shows what it matches)", ""
        if reading is hostlist.Reading.ALL:
            return "ALL: every node", ""
        names = hostlist.expand(text)
        return f"{text!r} is a hostlist naming {_count(len(names), 'host')}: {hostlist.compress(names)}", ""
    found = hostlist.match(text, nodes)
    matched = hostlist.compress(found.hosts) if found.hosts else "no node"
    kind = {"regex": "regular expression", "hostlist": "hostlist", "all": "ALL"}[found.reading.value]
    return f"{text!r} ({kind}) matches {_count(len(found.hosts), 'node')}: {matched}", found.warning


def replay_cost_lines(configs) -> list[str]:
    """`SOURCE: warning: ...` for each (name, config) whose simulator replay turns each second
    while kept reservations go round (core/compat.replay_cost: MAUICOMPAT 3.3 with
    RESERVATIONPOLICY HIGHEST), naming where MAUICOMPAT was set: maui-sim and its whatif
    print them before a replay that may take hours."""
    from ..core.compat import replay_cost
    out = []
    for name, config in configs:
        text = replay_cost(config)
        if text:
            where = config.source("MAUICOMPAT")
            out.append(f"{where if ':' in where else name}: warning: {text}")
    return out


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
