"""`setres [-n NAME] [-s START] [-d DURATION | -e END] [-u USERS] [-g GROUPS] [-a ACCOUNTS]
[--classes CLASSES] [-q QOS] RESOURCES`: make an administrative reservation (Maui's setres; admins).
Maui's `-c CLASSES` is `--classes`: `-c` is `-c/--config FILE`, as in every maui-py program.

RESOURCES is `ALL`, `TASKS==N` (N processors, placed by the scheduler), or nodes: names and
Slurm hostlists (`node[01-04,7]`, `n01,n02`, several arguments), or Maui regular expressions
searched in the node names when clearly one (`^gpu`, `node0[1-4]$`; model/hostlist.py, as
SRCFG HOSTLIST reads them; stderr warns when one matches more nodes than its hostlist reading).
START and END are Maui times: `HH:MM[:SS][_MO/DD[/YY]]` (in the configuration's TIMEZONE,
the host's zone unless set; today by default), `+[[DD:]HH:]MM:SS` from now, or NOW (the
default); DURATION is `[[DD:]HH:]MM:SS`; without -d or -e the reservation has no end (Maui:
100000000 s). The access lists are `:` or `,` separated; a reservation without one shuts
everybody out.
The reservation is made at the daemon's next cycle (request.py) and named NAME, else after
the first name of its access list (SYSTEM without one) and the request number.
"""

from __future__ import annotations

import argparse
import re
import sys
from datetime import datetime, timedelta, tzinfo
from typing import Any, TextIO

from .common import CommandError, date, duration, parse_duration
from .request import Context, add_request_arguments, submit

HELP = "reserve nodes or processors for users, groups, accounts, classes or QOS (Maui's setres; ADMIN1 only)"
NO_END = 100_000_000
_CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?(?:_(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?)?")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("resources", nargs="+", metavar="RESOURCES",
                        help="ALL, TASKS==N, node names or Slurm hostlists (node[01-04,7]), or ^regular expressions")
    parser.add_argument("-n", "--name", metavar="NAME", help="reservation name")
    parser.add_argument("-s", "--start", metavar="TIME", default="NOW", help="start (default NOW)")
    end = parser.add_mutually_exclusive_group()
    end.add_argument("-d", "--duration", metavar="DURATION", help="length")
    end.add_argument("-e", "--end", metavar="TIME", help="end")
    for flag, dest, what in (("-u", "users", "users"), ("-g", "groups", "groups"), ("-a", "accounts", "accounts"),
                             ("-q", "qos", "QOS")):
        parser.add_argument(flag, dest=dest, metavar="LIST", default="", help=f"{what} who may use it")
    parser.add_argument("--classes", dest="classes", metavar="LIST", default="",
                        help="classes who may use it (Maui's setres -c: here -c is --config, as in every "
                             "maui-py program)")
    add_request_arguments(parser)


def parse_time(text: str, now: float, zone: tzinfo) -> int:
    """A Maui absolute or relative time (MUStringToE) -> epoch seconds; clock times are
    read in `zone` (the configuration's TIMEZONE, cfg/zone.py)."""
    t = text.strip()
    if t.upper() == "NOW":
        return int(now)
    if t.startswith("+"):
        return int(now) + parse_duration(t[1:])
    if t.isdigit() and len(t) >= 9:
        return int(t)
    m = _CLOCK.fullmatch(t)
    if not m:
        raise CommandError(f"ERROR:    invalid time specified, '{text}'", 2, prefixed=False)
    hh, mm, ss, mo, dd, yy = m.groups()
    today = datetime.fromtimestamp(now, zone)
    year = today.year if yy is None else (int(yy) + 2000 if len(yy) == 2 else int(yy))
    try:
        at = datetime(year, int(mo) if mo else today.month, int(dd) if dd else today.day,
                      tzinfo=zone) + timedelta(hours=int(hh), minutes=int(mm), seconds=int(ss or 0))
    except ValueError:
        raise CommandError(f"ERROR:    invalid time specified, '{text}'", 2, prefixed=False) from None
    return int(at.timestamp())


def _names(text: str) -> list[str]:
    return sorted({n for n in re.split(r"[:,\s]+", text) if n})


def resources(words: list[str], nodes: list[str]) -> dict[str, Any]:
    """ALL, TASKS==N, or the nodes the host expressions name (as SRCFG HOSTLIST reads them:
    model/hostlist.py); "warnings" lists what a regular expression matched beyond its hostlist
    reading, and expressions that name no node."""
    from ..cfg.errors import BadValue
    from ..cfg.params import HOSTS
    from ..model import hostlist
    expr = " ".join(words)
    if expr.upper() == "ALL":
        return {"all_nodes": True}
    m = re.fullmatch(r"TASKS==(\d+)", expr, re.IGNORECASE)
    if m:
        if int(m.group(1)) < 1:
            raise CommandError("ERROR:    TASKS==N needs N >= 1", 2, prefixed=False)
        return {"tasks": int(m.group(1))}
    try:
        hosts, matches = hostlist.match_all(HOSTS.parse(expr), nodes)
    except (BadValue, hostlist.HostlistError) as e:
        raise CommandError(f"ERROR:    invalid node expression '{expr}' ({e})", 2, prefixed=False) from None
    if not hosts:
        raise CommandError(f"ERROR:    cannot determine nodelist for '{expr}'", prefixed=False)
    return {"hosts": list(hosts), "warnings": [m.warning for m in matches if m.warning]}


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    def build(ctx: Context):
        zone = ctx.view.cfg.zone
        start = parse_time(args.start, ctx.wall, zone)
        if args.end:
            end = parse_time(args.end, ctx.wall, zone)
        elif args.duration:
            end = start + parse_duration(args.duration)
        else:
            end = start + NO_END
        if end <= start:
            raise CommandError("ERROR:    cannot create reservation (invalid timeframe)", prefixed=False)
        if args.name and args.name in ctx.admin_reservations:
            raise CommandError(f"ERROR:    reservation '{args.name}' already exists", prefixed=False)
        what = resources(args.resources, [n.name for n in ctx.view.snapshot.nodes])
        for warning in what.pop("warnings", ()):
            (err or sys.stderr).write(f"setres: warning: {warning}\n")
        payload = {"name": args.name or "", "start": start, "end": end, **what,
                   **{k: _names(getattr(args, k)) for k in ("users", "groups", "accounts", "classes", "qos")}}
        on = ("all nodes" if what.get("all_nodes") else f"{what['tasks']} tasks" if "tasks" in what
              else ",".join(what["hosts"]))
        length = "no end" if end - start >= NO_END else duration(end - start)
        return [(payload, f"{args.name or '(unnamed)'} on {on} from {date(start)} for {length}")]
    return submit(args, "setres", "setres", build, out, err)
