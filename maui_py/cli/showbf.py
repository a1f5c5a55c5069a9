"""`showbf [-u USER] [-g GROUP] [-a ACCOUNT] [-c CLASS] [-q QOS] [-d DURATION] [-n NODES]`:
the backfill windows free now, as Maui 3.3.1's ShowBackfillWindow (OUserI.c) prints them.

A window is `procs` processors on `nodes` nodes free from now for `duration` (the
reservation table rebuilt from the last cycle: running jobs, priority, standing and admin
reservations). Reservations the credentials may use (their access list admits a job of
USER/GROUP/ACCOUNT/CLASS/QOS, by default the caller's user and group) count as free, as
they do for such a job. `-d` keeps the windows at least that long, `-n` those with at least
that many nodes; `-c` looks only at the nodes serving the class.

With one partition Maui prints the windows of partition ALL without a `partition` line
(the loop starts with the current partition name ALL): maui-py has one partition.
"""

from __future__ import annotations

import argparse
import grp
import pwd
from typing import TYPE_CHECKING, Any, Mapping, TextIO

from .common import add_store_arguments, dates, invoking_user, parse_duration, run_view, tstr

if TYPE_CHECKING:
    from ..model import Job
    from .view import View

HELP = "show the resources free now for how long (Maui's showbf)"
NO_LIMIT = 100_000_000
"""Windows this long or longer print 'with no timelimit' (ShowBackfillWindow)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-u", "--user", metavar="USER", help="windows USER's jobs could use (default: you)")
    parser.add_argument("-g", "--group", metavar="GROUP", help="... GROUP's (default: your primary group)")
    parser.add_argument("-a", "--account", metavar="ACCOUNT", help="... ACCOUNT's")
    parser.add_argument("-c", "--class", dest="job_class", metavar="CLASS", help="only nodes serving CLASS")
    parser.add_argument("-q", "--qos", metavar="QOS", help="... a job of QOS")
    parser.add_argument("-d", "--duration", metavar="[[[DD:]HH:]MM:]SS", default="0",
                        help="only windows at least this long")
    parser.add_argument("-n", "--nodes", type=int, default=0, metavar="N",
                        help="only windows with at least N nodes")
    add_store_arguments(parser, short_config=False)


def primary_group(user: str) -> str:
    try:
        return grp.getgrgid(pwd.getpwnam(user).pw_gid).gr_name
    except KeyError:
        return "[NONE]"


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    def collect_for(view: View, _reader) -> dict[str, Any]:
        from ..model import Job, JobRequest
        duration = parse_duration(args.duration)
        user = args.user or invoking_user()
        probe = Job("showbf", user, JobRequest(1), max(1, duration), view.now,
                    group=args.group or primary_group(user), account=args.account or "",
                    class_=args.job_class or "", qos=args.qos or "")
        return collect(view, probe, duration, args.nodes)
    return run_view("showbf", args, out, err, collect_for, render)


def collect(view: View, probe: Job, duration: int = 0, nodes: int = 0) -> dict[str, Any]:
    """The windows a job like `probe` could use now, longest-lived last."""
    table = view.table()
    for owner in view.usable_by(probe):
        table.release(owner)
    mask = table.class_mask(probe.class_) if probe.class_ else None
    windows = [{"procs": w.procs, "nodes": w.nodes, "duration": w.duration}
               for w in table.windows(mask) if w.duration >= duration and w.nodes >= nodes]
    return {"command": "showbf", "now": view.now, "user": probe.user, "group": probe.group,
            "account": probe.account, "class": probe.class_, "qos": probe.qos, "partition": "ALL",
            "min_duration": duration, "min_nodes": nodes, "windows": windows}


def render(d: Mapping[str, Any]) -> str:
    """ShowBackfillWindow's buffer, plus the client's newline."""
    dstr = dates(d)
    out = ["backfill window (user: '%s' group: '%s' partition: %s) %s\n"
           % (d["user"], d["group"], d["partition"], dstr(d["now"]))]
    for w in d["windows"]:
        plural = "s" if w["procs"] > 1 else ""
        if w["duration"] < NO_LIMIT:
            out.append("%3d proc%s available for   %11s\n" % (w["procs"], plural, tstr(w["duration"])))
        else:
            out.append("%3d proc%s available with no timelimit\n" % (w["procs"], plural))
    if not d["windows"]:
        out.append("no procs available\n")
    return "".join(out) + "\n\n\n"
