"""`showres [-n [-g]] [-v] [RESID] [--json]`: reservations, as Maui 3.3.1 lists them.

Layouts: the reservation list is UIResList (UserI.c) printed by the client with a trailing
newline; `-n` is MCShowReservedNodes (omclient.c), one line per node and reservation.
Every active job holds a Job reservation over its run (S = R, or S for a job the last cycle
started), a waiting job its priority reservation (S = I); standing, administrative and the
resource manager's reservations are of Maui's type User (their maui-py kind is in --json).
As in Maui, non-job reservations are listed only for ADMIN1/ADMIN2 users and root, their
owner and the users in their access list.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Mapping, TextIO

from .common import add_store_arguments, dates, invoking_user, run_view, sees_all, tstr

if TYPE_CHECKING:
    from .view import View

HELP = "show reservations: jobs', standing and administrative (Maui's showres)"
INFINITE_SPAN = 8_553_600
"""A reservation longer than this shows duration INFINITE in the node view (MCShowReservedNodes)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("resid", nargs="?", metavar="RESID", help="only this reservation (or job)")
    parser.add_argument("-n", "--nodes", action="store_true", help="one line per node and reservation")
    parser.add_argument("-g", "--grep", action="store_true", help="-n: repeat the node name on every line")
    parser.add_argument("-v", "--verbose", action="store_true", help="full start dates (with the year)")
    add_store_arguments(parser)


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    def collect_for_caller(view: View, _reader) -> dict[str, Any]:
        user = invoking_user()
        return collect(view, user, sees_all(view.cfg, user), args.resid, args.nodes, args.grep, args.verbose)
    return run_view("showres", args, out, err, collect_for_caller, render)


def collect(view: View, user: str, admin: bool, resid: str | None = None, nodes: bool = False,
            grep: bool = False, verbose: bool = False) -> dict[str, Any]:
    rows = [r for r in view.reservations if view.visible(r, user, admin)
            and (not resid or r.name == resid)]
    jobs = view.jobs
    out = []
    for r in rows:
        job = jobs.get(r.job_id) if r.type == "Job" else None
        out.append({"name": r.name, "type": r.type, "kind": r.kind, "state": r.state,
                    "job_state": job.state.value if job is not None else "-",
                    "start": r.start, "end": r.end, "nodes": r.nodes, "procs": r.procs,
                    "allocation": [list(a) for a in r.allocation], "owner": r.owner,
                    "acl": r.acl, "flags": list(r.flags)})
    return {"command": "showres", "now": view.now, "node_view": nodes, "grep": grep,
            "verbose": verbose, "node_order": [n.name for n in view.snapshot.nodes],
            "reservations": out}


def _start_text(d: Mapping[str, Any], t: int) -> str:
    """StartTime: MULToDString, or with -v the whole ctime(); in the trace's zone on a simulator's store."""
    if d["verbose"]:
        from .clock import ctime
        return ctime(d.get("clock"), t) + "\n"
    return dates(d)(t)


def render(d: Mapping[str, Any]) -> str:
    return render_nodes(d) if d["node_view"] else render_list(d)


def render_list(d: Mapping[str, Any]) -> str:
    """UIResList, plus the client's newline."""
    now = d["now"]
    out = ["Reservations\n\n",
           "%-18s %5s %1s %11s %11s %11s %9s %s\n\n"
           % ("ReservationID", "Type", "S", "Start", "End", "Duration", "   N/P   ", "StartTime")]
    for r in d["reservations"]:
        out.append("%-18s %5s %1s %11s %11s %11s %4d/%-4d %s"
                   % (r["name"], r["type"], r["state"], tstr(r["start"] - now), tstr(r["end"] - now),
                      tstr(r["end"] - r["start"]), r["nodes"], r["procs"],
                      _start_text(d, r["start"])))
    n = len(d["reservations"])
    out.append("\n%d %s located\n" % (n, "reservation" if n == 1 else "reservations"))
    return "".join(out) + "\n"


def render_nodes(d: Mapping[str, Any]) -> str:
    """MCShowReservedNodes (showres -n)."""
    now, verbose = d["now"], d["verbose"]
    per_node: dict[str, list] = {}
    for r in d["reservations"]:
        for node, _procs, tasks in r["allocation"]:
            per_node.setdefault(node, []).append((r, tasks))
    out = ["reservations on %s\n" % dates(d)(now),
           "%20s  %9s %18s %10s %4s %11s %11s %s%20s\n\n"
           % ("NodeName", "Type", "ReservationID", "JobState", "Task", "Start", "Duration",
              "     " if verbose else "", "StartTime")]
    count = 0
    for node in d["node_order"]:
        for k, (r, tasks) in enumerate(per_node.get(node, ())):
            span = r["end"] - r["start"]
            out.append("%20s  %9s %18s %10s %4s " % (node if k == 0 or d["grep"] else " ", r["type"],
                                                     r["name"], r["job_state"], tasks))
            out.append("%11s %11s  %20s" % (tstr(r["start"] - now),
                                             "INFINITE" if span > INFINITE_SPAN else tstr(span),
                                             _start_text(d, r["start"])))
        count += node in per_node
    out.append("%d nodes reserved\n" % count)
    return "".join(out)
