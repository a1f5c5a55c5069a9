"""`showq [-r | -i | -b] [-u USER] [-v] [--json]`: the queue, as Maui 3.3.1 prints it.

Layouts from the 3.3.1 client (omclient.c): the default view is MCShowQ (ACTIVE JOBS /
IDLE JOBS / BLOCKED JOBS with their summary lines), `-r` MCShowRun (active jobs in detail),
`-i` MCShowIdle (the eligible queue with priorities), `-b` MCShowBlocked (each blocked job
and why). Times are MULToTString right-aligned in 11 columns, dates MULToDString. The
columns maui-py cannot fill the way Maui did: `-r` Effic prints `------` (no utilization
data), Par is the job's partition (DEFAULT); `-r -v` adds Maui's prio column. maui-py's
`--forecast` adds a column to the idle jobs (default view and `-i`): the likely start (p50)
of mauid's stored forecast (FORECASTPOLICY), `-` for a job without one.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Mapping, TextIO

from ..model.report import ReportStatus
from .common import PARTITION, add_store_arguments, dates, run_view, tstr

if TYPE_CHECKING:
    from .view import View

HELP = "show the active, idle and blocked jobs (Maui's showq)"
HEADER = "%-18s %8s %10s %5s %11s %20s\n\n"
ROW = "%-18s %8s %10s %5d %11s  %19s"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("-r", dest="mode", action="store_const", const="running",
                      help="active jobs in detail (partition, XFactor, QOS, group, master host)")
    mode.add_argument("-i", dest="mode", action="store_const", const="idle",
                      help="the eligible (idle) queue with priorities")
    mode.add_argument("-b", dest="mode", action="store_const", const="blocked",
                      help="blocked jobs and why they wait")
    parser.add_argument("-u", "--user", metavar="USER", help="only the jobs of USER")
    parser.add_argument("-v", "--verbose", action="store_true", help="-r: add the priority column")
    parser.add_argument("--forecast", action="store_true",
                        help="idle jobs: add the likely start (p50) of mauid's stored forecast")
    add_store_arguments(parser)


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    return run_view("showq", args, out, err,
                    lambda view, reader: collect(view, args.mode or "all", args.user or "", reader, args.verbose,
                                                 args.forecast),
                    render)


# --------------------------------------------------------------------- collect
def _job(view: View, j) -> dict[str, Any]:
    return {"id": j.id, "user": j.user, "group": j.group, "state": view.state_name(j),
            "procs": j.procs, "wclimit": j.wallclock, "start": j.start_time,
            "submit": j.submit_time, "qos": j.qos, "class": j.class_}


def _active(view: View, j, reader) -> dict[str, Any]:
    nodes = [n for n, _r in j.allocation]
    return {"nodes": nodes, "mhost": nodes[0] if nodes else "", "partition": PARTITION,
            "backfill": _started_as_backfill(reader, j.id), "priority": view.priority(j)}


def _idle(view: View, j, _reader) -> dict[str, Any]:
    rep = view.reports.get(j.id)
    return {"priority": view.priority(j), "queue_time": view.queue_time(j),
            "reserved": rep is not None and rep.status == ReportStatus.RESERVED}


def _blocked(view: View, j, _reader) -> dict[str, Any]:
    rep = view.reports.get(j.id)
    return {"reason": rep.reason if rep is not None else ""}


LISTS = {"all": ("active", "idle", "blocked"), "running": ("active",), "idle": ("idle",),
         "blocked": ("blocked",)}
"""The job lists each view prints."""
EXTRAS = {"active": _active, "idle": _idle, "blocked": _blocked}


def collect(view: View, mode: str, user: str, reader=None, verbose: bool = False,
            forecast: bool = False) -> dict[str, Any]:
    """Everything the chosen view prints, as plain data."""
    data: dict[str, Any] = {"command": "showq", "mode": mode, "user": user, "now": view.now,
                            "verbose": verbose, **view.proc_summary}
    for name in LISTS[mode]:
        data[name] = [{**_job(view, j), **EXTRAS[name](view, j, reader)}
                      for j in getattr(view, name) if not user or j.user == user]
    if forecast and "idle" in data:
        from .forecast_view import p50s
        p50 = p50s(reader) if reader is not None else {}
        data["forecast"] = True
        for j in data["idle"]:
            j["forecast_p50"] = p50.get(j["id"])
    return data


def _p50(d: Mapping[str, Any], j: Mapping[str, Any]) -> str:
    """--forecast's column: the stored p50's date, `-` without one ("" without --forecast)."""
    if not d.get("forecast"):
        return ""
    p = j.get("forecast_p50")
    return "  %19s" % (dates(d)(p).rstrip("\n") if p is not None else "-")


def _started_as_backfill(reader, job_id: str) -> bool:
    from ..store.journal import START
    if reader is None:
        return False
    starts = reader.journal(job_id=job_id, events=(START,), limit=1)
    return bool(starts) and starts[-1].detail.get("kind") == "BACKFILL"


# ---------------------------------------------------------------------- render
def render(d: Mapping[str, Any]) -> str:
    return {"all": render_all, "running": render_running, "idle": render_idle,
            "blocked": render_blocked}[d["mode"]](d)


def _pct(a: int, b: int) -> float:
    return a / b * 100.0 if b > 0 else 0.0


def render_all(d: Mapping[str, Any]) -> str:
    """MCShowQ."""
    dstr = dates(d)
    now = d["now"]
    out = ["ACTIVE JOBS--------------------\n",
           HEADER % ("JOBNAME", "USERNAME", "STATE", "PROC", "REMAINING", "STARTTIME")]
    for j in d["active"]:
        start = j["start"] if j["start"] is not None else now
        out.append(ROW % (j["id"], j["user"], j["state"], j["procs"],
                          tstr(j["wclimit"] - (now - start)), dstr(start)))
    n = len(d["active"])
    tmp = "%d Active Job%c   " % (n, " " if n == 1 else "s")
    up, busy = d["up_procs"], d["busy_procs"]
    out.append("\n%21s %4d of %4d Processors Active (%.2f%%)\n" % (tmp, busy, up, _pct(busy, up)))
    if d["up_nodes"] > 0 and up != d["up_nodes"]:
        out.append("%21s %4d of %4d Nodes Active      (%.2f%%)\n"
                   % (" ", d["active_nodes"], d["up_nodes"], _pct(d["active_nodes"], d["up_nodes"])))
    header = HEADER % ("JOBNAME", "USERNAME", "STATE", "PROC", "WCLIMIT", "QUEUETIME")
    if d.get("forecast"):
        header = header.rstrip("\n") + "  %19s\n\n" % "LIKELY START (p50)"
    out += ["\nIDLE JOBS----------------------\n", header]
    out += [_with_p50(d, j, ROW % (j["id"], j["user"], j["state"], j["procs"], tstr(j["wclimit"]),
                                   dstr(j["submit"]))) for j in d["idle"]]
    n = len(d["idle"])
    out.append("\n%d Idle Job%c\n" % (n, " " if n == 1 else "s"))
    out += ["\nBLOCKED JOBS----------------\n",
            HEADER % ("JOBNAME", "USERNAME", "STATE", "PROC", "WCLIMIT", "QUEUETIME")]
    out += [ROW % (j["id"], j["user"], j["state"] or "-", j["procs"], tstr(j["wclimit"]), dstr(j["submit"]))
            for j in d["blocked"]]
    a, i, b = len(d["active"]), len(d["idle"]), len(d["blocked"])
    out.append("\nTotal Jobs: %d   Active Jobs: %d   Idle Jobs: %d   Blocked Jobs: %d\n" % (a + i + b, a, i, b))
    return "".join(out)


def render_running(d: Mapping[str, Any]) -> str:
    """MCShowRun (showq -r)."""
    dstr = dates(d)
    now, verbose = d["now"], d["verbose"]
    vline = " %6s" % "prio" if verbose else ""
    out = ["%18s%c %1s%s %3s %6s %8s %2s %9s %8s %8s %5s %s%11s  %19s\n\n"
           % ("JobName", " ", "S", vline, "Par", "Effic", "XFactor", "Q", "User", "Group", "MHost",
              "Procs", "", "Remaining", "StartTime")]
    for j in d["active"]:
        start = j["start"] if j["start"] is not None else now
        xf = ((start - j["submit"]) + j["wclimit"]) / max(j["wclimit"], 1)
        vline = " %6d" % j["priority"] if verbose else ""
        out.append("%18s%c %c%s %3.3s %6s %8.1f %2.2s %9s %8s %8s %5d %s%11s  %19s"
                   % (j["id"], "+" if j["backfill"] else " ", j["state"][0], vline, j["partition"],
                      "------", xf, j["qos"] or "-", j["user"], j["group"] or "-", j["mhost"],
                      j["procs"], "", tstr(j["wclimit"] - (now - start)), dstr(start)))
    up, busy = d["up_procs"], d["busy_procs"]
    out.append("\n%3d Jobs   %5d of %5d Processors Active (%.2f%%)\n"
               % (len(d["active"]), busy, up, _pct(busy, up)))
    return "".join(out)


def render_idle(d: Mapping[str, Any]) -> str:
    """MCShowIdle (showq -i)."""
    dstr = dates(d)
    now = d["now"]
    out = ["%18s %11s %8s %2s %9s %8s %6s %s%11s %9s %20s%s\n\n"
           % ("JobName", "Priority", "XFactor", "Q", "User", "Group", "Procs", "", "WCLimit", "Class",
              "SystemQueueTime", "  %19s" % "LIKELY START (p50)" if d.get("forecast") else "")]
    load = 0
    for j in d["idle"]:
        load += j["wclimit"] * j["procs"]
        xf = (now - j["queue_time"] + j["wclimit"]) / max(j["wclimit"], 1)
        out.append(_with_p50(d, j, "%18s%c%11d %8.1f %2.2s %9s %8s %6d%s%12s %9s %21s"
                             % (j["id"], "*" if j["reserved"] else " ", j["priority"], xf, j["qos"] or "-",
                                j["user"], j["group"] or "[NONE]", j["procs"], "", tstr(j["wclimit"]),
                                j["class"] or "[NONE]", dstr(j["queue_time"]))))
    out.append("\nJobs: %d  Total Backlog:  %.2f ProcHours  (%.2f Hours)\n"
               % (len(d["idle"]), load / 3600.0, load / 3600.0 / max(d["up_procs"], 1)))
    return "".join(out)


def _with_p50(d: Mapping[str, Any], j: Mapping[str, Any], line: str) -> str:
    """A row (ending in its date's newline) with --forecast's column, unchanged without."""
    return line.rstrip("\n") + _p50(d, j) + "\n" if d.get("forecast") else line


def render_blocked(d: Mapping[str, Any]) -> str:
    """MCShowBlocked (showq -b)."""
    out = ["%18s %9s %20s\n\n" % ("JobName", "User", "Reason")]
    out += ["%18s %9s %s\n" % (j["id"], j["user"], j["reason"] or j["state"]) for j in d["blocked"]]
    return "".join(out)
