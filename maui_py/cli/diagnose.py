"""`diagnose -p | -f | -r [RESID]` (`-v`, `--json`): Maui's diagnostics of the last cycle.

- `-p`: each idle job's priority by component (diag_priority.py; UIDiagnosePriority);
- `-f`: fair-share usage and targets per credential (diag_fairshare.py; MFSShow);
- `-r`: every reservation in detail: the header and line layout of Maui's `diagnose -r`
  page (the 3.3.1 source of that report is not in the spec; the admin guide's sample is
  followed), then indented Flags, ACL, CL, Task Resources and HostExp lines;
- `--forecast` (maui-py's): the last start forecast (when, replays, cut short or not) and
  the tracked accuracy of the forecasts, as `showstart --accuracy` prints it.

Every mode ends with the store's rows that could not be read and were skipped (each is
also a warning on stderr), so that the operator sees what the page leaves out.

The client prints the server's buffer and a newline (MCDiagnose); so does this command.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Mapping, TextIO

from .common import CommandError, add_store_arguments, invoking_user, run_view, sees_all, tstr

if TYPE_CHECKING:
    from .view import View

HELP = "diagnose priorities (-p), fair share (-f) or reservations (-r) (Maui's diagnose)"
ACL_NAMES = (("users", "USER"), ("groups", "GROUP"), ("accounts", "ACCT"), ("classes", "CLASS"),
             ("qos", "QOS"), ("jobs", "JOB"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("-p", dest="mode", action="store_const", const="priority", help="job priorities")
    mode.add_argument("-f", dest="mode", action="store_const", const="fairshare", help="fair share")
    mode.add_argument("-r", dest="mode", action="store_const", const="reservations", help="reservations")
    mode.add_argument("--forecast", dest="mode", action="store_const", const="forecast",
                      help="the last start forecast and how accurate the forecasts turned out")
    parser.add_argument("resid", nargs="?", metavar="RESID", help="-r: only this reservation")
    parser.add_argument("-v", "--verbose", action="store_true", help="-f: also credentials without usage")
    add_store_arguments(parser)


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    def collect(view: View, reader) -> dict[str, Any]:
        from . import diag_fairshare, diag_priority
        if args.resid and args.mode != "reservations":
            raise CommandError("a reservation id goes with -r only", 2)
        if args.mode == "priority":
            data = diag_priority.collect(view)
        elif args.mode == "forecast":
            from .forecast_view import forecast_facts
            data = forecast_facts(reader, view)
        elif args.mode == "fairshare":
            policy = view.state.queue_policy
            data = diag_fairshare.collect(view.cfg, policy.dump() if policy is not None else None, args.verbose)
        else:
            user = invoking_user()
            data = collect_reservations(view, user, sees_all(view.cfg, user), args.resid)
        return {"command": "diagnose", "mode": args.mode, "now": view.now, **data,
                "skipped_rows": reader.skipped()}
    return run_view("diagnose", args, out, err, collect, render)


def collect_reservations(view: View, user: str, admin: bool, resid: str | None) -> dict[str, Any]:
    rows = []
    for r in view.reservations:
        if not view.visible(r, user, admin) or (resid and r.name != resid):
            continue
        rows.append({"name": r.name, "type": r.type, "kind": r.kind, "start": r.start, "end": r.end,
                     "nodes": r.nodes, "tasks": sum(t for _n, _p, t in r.allocation), "procs": r.procs,
                     "flags": list(r.flags), "acl": r.acl, "hosts": list(r.hosts),
                     "whole_nodes": r.whole_nodes})
    return {"reservations": rows}


def render(d: Mapping[str, Any]) -> str:
    from . import diag_fairshare, diag_priority
    if d["mode"] == "priority":
        body = diag_priority.render(d)
    elif d["mode"] == "fairshare":
        body = diag_fairshare.render(d)
    elif d["mode"] == "forecast":
        from .forecast_view import render_facts
        body = render_facts(d)
    else:
        body = render_reservations(d)
    return body + "\n" + render_skipped(d.get("skipped_rows") or [])


def render_skipped(rows: list[Mapping[str, str]]) -> str:
    """The store rows skipped because they cannot be read: one line each (table, key, why)."""
    if not rows:
        return ""
    return "".join([f"\nStore rows skipped (cannot be read): {len(rows)}\n"] +
                   [f"  {r['table']} {r['key']!r}: {r['why']}\n" for r in rows])


def _acl(acl: Mapping[str, list[str]]) -> str:
    parts = []
    for key, label in ACL_NAMES:
        names = acl.get(key)
        if names:
            parts.append(f"{label}==" + ":==".join(f"{n}+" for n in names))
    return " ".join(parts)


def render_reservations(d: Mapping[str, Any]) -> str:
    now = d["now"]
    fmt = "%-26s %4s %3s %11s %11s %12s %4s %4s %4s\n"
    out = ["Diagnosing Reservations\n",
           fmt % ("RsvID", "Type", "Par", "StartTime", "EndTime", "Duration", "Node", "Task", "Proc"),
           fmt % ("-----", "----", "---", "---------", "-------", "--------", "----", "----", "----")]
    for r in d["reservations"]:
        out.append(fmt % (r["name"], r["type"], "ALL", tstr(r["start"] - now), tstr(r["end"] - now),
                          tstr(r["end"] - r["start"]), r["nodes"], r["tasks"], r["procs"]))
        if r["flags"]:
            out.append("    Flags: %s\n" % " ".join(r["flags"]))
        acl = _acl(r["acl"]) if r["type"] != "Job" else f"JOB=={r['name']}="
        if acl:
            out.append("    ACL:   %s\n" % acl)
        out.append("    CL:    RSV==%s\n" % r["name"])
        per_task = "[ALL]" if r["whole_nodes"] else r["procs"] // max(r["tasks"], 1)
        out.append("    Task Resources: PROCS: %s\n" % per_task)
        if r["hosts"]:
            out.append("    Attributes (HostExp='%s')\n" % " ".join(r["hosts"]))
        out.append("\n")
    return "".join(out)
