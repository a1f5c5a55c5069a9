"""`checkjob [-v] JOB [--json]`: everything about one job, as Maui 3.3.1's UIJobShow
(UserI.c) writes it and its client (MCJobShow: two newlines, the text, a newline) prints it.

Only the template lines that apply are printed, in Maui's order: state and credentials,
wall time, submit/start times, the request (tasks, features, dedicated resources, nodes),
bypass and start counts, flags, the defer, the reservation, holds, the message (maui-py's
one-line reason the job waits), PE and priorities, then for a waiting job Maui's analysis
of why it cannot run now. `-v` adds Maui's verbose lines and, after them, what only maui-py
knows: the cycle's report, the priority breakdown by component and the job's recent journal.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Mapping, TextIO

from ..model.report import ReportStatus
from . import advice_block
from .common import CommandError, add_store_arguments, dates, run_view, tstr

if TYPE_CHECKING:
    from ..model import Job
    from .view import View

HELP = "show everything about a job and why it waits (Maui's checkjob)"
NONE = "[NONE]"
JOURNAL_LINES = 8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("job", metavar="JOB")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="Maui's verbose lines, then maui-py's report, priority breakdown and journal")
    parser.add_argument("--advice", action="store_true",
                        help="for a waiting job, what it waits for and the changes that start it "
                             "sooner, each checked in a replay (a 'To start sooner' block)")
    add_store_arguments(parser)


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    def collect_job(view: View, reader) -> dict[str, Any]:
        job = view.jobs.get(args.job)
        if job is None or job.state.finished:
            raise CommandError(f"ERROR:  cannot locate job '{args.job}'", prefixed=False)
        from .forecast_view import for_job
        data = {**collect(view, job, reader.journal(job_id=job.id, limit=JOURNAL_LINES), args.verbose),
                **for_job(reader, view, job.id)}
        if args.advice and not job.state.active:
            data.update(advice_block.collect(view, job))
        return data
    return run_view("checkjob", args, out, err, collect_job, render)


# --------------------------------------------------------------------- collect
def _holds(view: View, job: Job) -> list[str]:
    from ..model import HoldType
    holds = set(job.holds)
    if job.id in view.state.batch_holds:
        holds.add(HoldType.BATCH)
    rec = view.state.deferred.get(job.id)
    if rec is not None and rec.until > view.now:
        holds.add(HoldType.DEFER)
    order = (HoldType.BATCH, HoldType.SYSTEM, HoldType.USER, HoldType.DEFER)    # as Maui lists them
    return [h.value for h in order if h in holds]


def _hold_reason(view: View, job: Job, journal) -> str:
    """Why a held job is held, when maui-py knows: its batch-hold reason (a class limit,
    DEFERCOUNT), else the last refusal that held it (a start Slurm would never run)."""
    why = view.state.batch_holds.get(job.id)
    if why:
        return why
    for e in reversed(list(journal)):
        if e.event == "start-failed" and "held" in e.reason.split(":")[0]:
            return e.reason
    return ""


def _reservation(view: View, job: Job) -> dict[str, int] | None:
    from ..store.reader import PRIORITY
    if job.state.active:
        start = job.start_time if job.start_time is not None else view.now
        return {"start": start, "end": start + job.wallclock}
    for r in view.last.reservations.get(PRIORITY, ()):
        if (r.job_id or r.name) == job.id:
            return {"start": r.start, "end": r.end}
    return None


def _prediction(st, job: Job) -> dict[str, Any] | None:
    """The runtime the scheduler plans the job with (PREDICTIONPOLICY) and where it came from."""
    p = st.predictions.get(job.id)
    if p is None:
        return None
    return {"estimate": p.estimate, "source": p.source}


def _flags(job: Job, backfill: bool) -> list[str]:
    flags = ["BACKFILL"] if backfill else []
    if job.reservation:
        flags.append(f"ADVRES:{job.reservation}")
    if job.request.exclusive:
        flags.append("DEDICATED")
    if job.request.hostlist:
        flags.append("HOSTLIST")
    return flags


def collect(view: View, job: Job, journal=(), verbose: bool = False) -> dict[str, Any]:
    from ..model import HoldType
    from ..store.codec import encode
    from ..store.journal import START
    now, req, st = view.now, job.request, view.state
    rep = view.reports.get(job.id)
    active = job.state.active
    start = job.start_time if job.start_time is not None else now
    qtime = view.queue_time(job)
    defer = st.deferred.get(job.id)
    deferred = defer is not None and defer.until > now
    breakdown = view.last.priorities.get(job.id)
    backfill = any(e.event == START and e.detail.get("kind") == "BACKFILL" for e in journal)
    holds = _holds(view, job)
    state = job.state.value if active else ("Hold" if set(job.holds) - {HoldType.DEFER} else "Idle")
    data: dict[str, Any] = {
        "command": "checkjob", "now": now, "verbose": verbose, "id": job.id, "state": state,
        "estate": "Deferred" if deferred else state, "user": job.user, "group": job.group,
        "account": job.account, "class": job.class_, "qos": job.qos,
        "walltime": now - start if active else 0, "wclimit": job.wallclock,
        "submit": job.submit_time, "start": start if active else None,
        "queued": (start if active else now) - job.submit_time,
        "eligible": max(0, (start if active else now) - qtime), "queue_time": qtime,
        "tasks": req.tasks, "partition": "DEFAULT" if active else "ALL",
        "features": sorted(req.features), "per_task": encode(req.per_task),
        "nodes_requested": req.nodes, "tasks_per_node": req.tasks_per_node,
        "exclusive": req.exclusive, "hostlist": list(req.hostlist),
        "allocation": [[n, r.procs // max(req.per_task.procs, 1)] for n, r in job.allocation],
        "bypass": st.bypass.get(job.id, 0), "start_count": st.start_counts.get(job.id, 0),
        "flags": _flags(job, backfill), "deferred": deferred,
        "defer_reason": defer.reason if defer is not None else "",
        "reservation": _reservation(view, job), "holds": holds,
        "hold_reason": _hold_reason(view, job, journal) if holds else "",
        "message": "" if active or rep is None else rep.reason,
        "pe": breakdown.subfactors.get("PE", float(job.procs)) if breakdown else float(job.procs),
        "priority": view.priority(job), "system_priority": view.system_priority(job),
        "report": encode(rep) if rep is not None else None,
        "breakdown": encode(breakdown) if breakdown is not None else None,
        "journal": [{"cycle": e.cycle, "at": e.at, "event": e.event, "reason": e.reason} for e in journal],
        "prediction": _prediction(st, job),
    }
    if not active:
        data["analysis"] = _analysis(view, job, holds, rep)
    return data


def _analysis(view: View, job: Job, holds: list[str], rep) -> dict[str, Any]:
    """Why the job cannot start now (UIJobShow's feasibility part), as data."""
    req, summary = job.request, view.proc_summary
    need = job.procs
    out: dict[str, Any] = {"blocked": [], "idle_procs": summary["idle_procs"], "needed": need}
    if holds and holds != ["Defer"]:
        out["blocked"].append("hold")
    if not job.depends_satisfied:
        out["blocked"].append("dependency")
    if need > summary["idle_procs"]:
        out["blocked"].append("idle_procs")
    if out["blocked"]:
        return out
    out["total_procs"] = summary["up_procs"]
    if rep is not None and rep.status == ReportStatus.BLOCKED and rep.reason.startswith("blocked: "):
        out["policy"] = rep.reason[len("blocked: "):]
        return out
    per = req.per_task
    reasons: dict[str, int] = {}
    feasible = nodes_ok = idle = 0
    for node in view.snapshot.nodes:
        why = ""
        free = view.free_now.get(node.name, 0)
        if not node.state.usable:
            why = "State"
        elif not req.features <= node.features:
            why = "Features"
        elif not node.serves(job.class_):
            why = "Class"
        elif req.hostlist and node.name not in req.hostlist:
            why = "HostList"
        elif per.mem > node.resources.mem:
            why = "Memory"
        if node.state.usable:
            idle += free
        if why:
            reasons[why] = reasons.get(why, 0) + 1
            continue
        tasks = free // per.procs if per.procs > 0 else req.tasks
        if tasks <= 0:
            reasons["Procs"] = reasons.get("Procs", 0) + 1
            continue
        feasible += tasks * per.procs
        nodes_ok += 1
    out.update({"partition": "DEFAULT", "partition_idle": idle, "feasible": feasible,
                "feasible_nodes": nodes_ok, "rejections": reasons})
    return out


# ---------------------------------------------------------------------- render
def _creds(d: Mapping[str, Any]) -> str:
    parts = [f"  {k}:{d[key]}" for k, key in (("user", "user"), ("group", "group"),
                                              ("account", "account"), ("class", "class"),
                                              ("qos", "qos")) if d[key]]
    return "Creds:" + "".join(parts) + "\n"


def _per_task(p: Mapping[str, Any]) -> str:
    text = f"Procs: {p.get('procs', 0)}"
    if p.get("mem"):
        text += f"  Mem: {p['mem']}M"
    return text + "".join(f"  {name}: {count}" for name, count in p.get("gres", ()))


def _node_list(pairs, sep: str) -> str:
    out = []
    for k, (node, tasks) in enumerate(pairs):
        out.append("[%.20s:%d]" % (node, tasks))
        if k % 4 == 3:
            out.append(sep)
    return "".join(out)


def render(d: Mapping[str, Any]) -> str:
    """MCJobShow around UIJobShow's buffer."""
    dstr = dates(d)
    v, now = d["verbose"], d["now"]
    o = [f"checking job {d['id']}\n\n",
         "State: %s%s\n" % (d["state"], f"  EState: {d['estate']}" if d["estate"] != d["state"] else ""),
         _creds(d),
         "WallTime: %s of %s\n" % (tstr(d["walltime"]), tstr(d["wclimit"])),
         _predicted(d),
         "SubmitTime: %s  (Time Queued  Total: %s  Eligible: %s)\n\n"
         % (dstr(d["submit"]), tstr(d["queued"]), tstr(d["eligible"]))]
    if d["start"] is not None:
        o.append("StartTime: %s" % dstr(d["start"]))
    o.append("Total Tasks: %d\n" % d["tasks"])
    o.append("\nReq[0]  TaskCount: %d  Partition: %s\n" % (d["tasks"], d["partition"]))
    o.append("Network: %s  Memory >= 0  Disk >= 0  Swap >= 0\n" % NONE)
    features = "".join(f"[{f}]" for f in d["features"]) or NONE
    o.append("Opsys: %s  Arch: %s  Features: %s\n" % (NONE, NONE, features))
    pt = d["per_task"]
    if v:
        o.append("Exec:  ''  ExecSize: 0  ImageSize: 0\n")
    if v or pt.get("procs", 0) != 1 or pt.get("mem") or pt.get("gres"):
        o.append("Dedicated Resources Per Task: %s\n" % _per_task(pt))
    if v:
        o.append("NodeAccess: %s\n" % ("SINGLEJOB" if d["exclusive"] else "SHARED"))
        if d["tasks_per_node"] > 0:
            o.append("TasksPerNode: %d  " % d["tasks_per_node"])
    nodes = d["nodes_requested"]
    if (nodes > 0 and nodes * d["tasks_per_node"] != d["tasks"]) or v:
        o.append("NodeCount: %d\n" % nodes)
    if d["allocation"]:
        o.append("Allocated Nodes:\n" + _node_list(d["allocation"], "\n") + "\n")
        if v:
            spread = [n for n, t in d["allocation"] for _ in range(t)]
            o.append("Task Distribution: %s\n" % ",".join(spread[:11] + ([" ..."] if len(spread) > 11 else [])))
    o.append("\n\n")
    o.append("IWD: %s  Executable:  %s\n" % (NONE, NONE))
    o.append("Bypass: %d  StartCount: %d\n" % (d["bypass"], d["start_count"]))
    o.append("PartitionMask: [ALL]\n")
    if v and d["queue_time"] != d["submit"]:
        o.append("SystemQueueTime: %20s\n" % dstr(d["queue_time"]))
    if d["flags"]:
        o.append("Flags:      " + "".join(f" {f}" for f in d["flags"]) + "\n")
        if d["hostlist"]:
            o.append("HostList: \n  " + _node_list([(h, 1) for h in d["hostlist"]], "\n  "))
        o.append("\n")
    if d["deferred"]:
        why = "APIFailure" if d["defer_reason"].startswith("start failed") else "NoResources"
        o.append("job is deferred.  Reason:  %s  (%s)\n" % (why, d["defer_reason"]))
    r = d["reservation"]
    if r is not None:
        o.append("Reservation '%s' (%s -> %s  Duration: %s)\n"
                 % (d["id"], tstr(r["start"] - now), tstr(r["end"] - now), tstr(r["end"] - r["start"])))
    from .forecast_view import render_line
    o.append(render_line(d))             # mauid's start forecast (FORECASTPOLICY), when stored
    if d["holds"]:
        o.append("Holds:    " + "".join(f"{h}  " for h in d["holds"]) + "\n")
        if d.get("hold_reason"):
            o.append("Hold reason:  %s\n" % d["hold_reason"])
    if d["message"] and not d["deferred"]:
        o.append("Messages:  %s\n" % d["message"])
    sp = d["system_priority"]
    o.append("PE:  %.2f  StartPriority:  %d%s\n" % (d["pe"], d["priority"],
                                                   "  SystemPriority:  %d\n" % sp if sp else ""))
    if "analysis" in d:
        o.append(_render_analysis(d["id"], d["analysis"]))
    o.append(advice_block.render(d, dstr))
    if v:
        o.append(_render_extras(d))
    return "\n\n" + "".join(o) + "\n"


def _predicted(d: Mapping[str, Any]) -> str:
    """maui-py's line under WallTime when the job is planned with a runtime prediction."""
    p = d.get("prediction")
    if not p:
        return ""
    return "Predicted: %s  (%s)\n" % (tstr(p["estimate"]), p["source"])


def _render_analysis(job_id: str, a: Mapping[str, Any]) -> str:
    o = []
    if "hold" in a["blocked"]:
        o.append("job cannot run  (job has hold in place)\n")
    if "dependency" in a["blocked"]:
        o.append("job cannot run  (dependency not met)\n")
    if "idle_procs" in a["blocked"]:
        o.append("job cannot run  (insufficient idle procs:  %d available)\n" % a["idle_procs"])
    if a["blocked"]:
        return "".join(o)
    if a["needed"] > a["total_procs"]:
        o.append("job cannot run in any partition  (insufficient total procs:  %d available)\n"
                 % a["total_procs"])
    if "policy" in a:
        return "".join(o) + "job cannot run in partition DEFAULT.  (%s)\n" % a["policy"]
    p, need = a["partition"], a["needed"]
    if a["partition_idle"] < need:
        o.append("job cannot run in partition %s (insufficient idle procs available: %d < %d)\n\n"
                 % (p, a["partition_idle"], need))
    elif a["feasible"] < need:
        o.append("job cannot run in partition %s (idle procs do not meet requirements : %d of %d procs found)\n"
                 % (p, a["feasible"], need))
        o.append("idle procs: %3d  feasible procs: %3d\n" % (a["partition_idle"], a["feasible"]))
        for k, (why, n) in enumerate(sorted(a["rejections"].items())):
            if k % 5 == 0:
                o.append("\nRejection Reasons: ")
            o.append("[%-13s: %4d]" % (why, n))
        o.append("\n\n")
    else:
        o.append("job can run in partition %s (%d procs available.  %d procs required)\n"
                 % (p, a["feasible"], need))
    return "".join(o)


def _render_extras(d: Mapping[str, Any]) -> str:
    """-v: what maui-py knows beyond Maui's template."""
    dstr = dates(d)
    o = ["\nmaui-py:\n"]
    rep = d["report"]
    if rep is not None:
        o.append("  report:  %s: %s\n" % (rep["status"], rep["reason"]))
    b = d["breakdown"]
    if b is not None:
        comps = "  ".join(f"{c} {v:.2f}" for c, v in sorted(b.get("components", {}).items()) if v)
        o.append("  priority:  %.2f  (%s)\n" % (b["priority"], comps or "no component"))
        subs = "  ".join(f"{s} {v:.2f}" for s, v in sorted(b.get("weighted", {}).items()) if v)
        if subs:
            o.append("  weighted subfactors:  %s\n" % subs)
    for e in d["journal"]:
        o.append("  journal:  cycle %s  %s  %s  %s\n"
                 % (e["cycle"], dstr(int(e["at"]))[:19], e["event"], e["reason"]))
    return "".join(o)
