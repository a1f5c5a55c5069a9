"""checkjob's "To start sooner" block (`checkjob --advice JOB`): maui_py/advice run on the
last cycle as the store keeps it, and its lines in Maui's checkjob manner.

The moment is the last cycle's (View: its time, nodes, every job, those it started shown
Starting on their nodes) with the state it left; advice.advise replays from there. The
data is checkjob's `advice` list, {change, value, start, reason} each (value: seconds for a
walltime, a count for procs/tasks/nodes, a name for qos/class, what the job waits for for
"waits"; start: epoch seconds, null when unknown), and `advice_as_is`: the start the job
has as it is (null: unknown), whether it starts at the next cycle as it is, and what the
advice cost (replays, their cycles, planner questions).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ..model.times import duration

if TYPE_CHECKING:
    from ..model import Job
    from .view import View

LABELS = {"walltime": "WallTime", "procs": "Procs", "tasks": "Tasks", "nodes": "Nodes",
          "qos": "QOS", "class": "Class"}


def collect(view: View, job: Job) -> dict[str, Any]:
    """The advice for waiting job `job` as checkjob's data keys."""
    from ..advice import Situation, advise, as_data
    from ..forecast.engine import Moment
    jobs = tuple(j for j in view.jobs.values() if not j.state.finished)
    sit = Situation(Moment(view.now, tuple(view.snapshot.nodes), jobs), view.cfg, view.state)
    got = advise(sit, job.id)
    return {"advice": as_data(got),
            "advice_as_is": {"start": got.planned, "starts_now": got.starts_now, "replays": got.replays,
                             "cycles": got.cycles, "planner_questions": got.planner_questions}}


def _value(a: Mapping[str, Any], d: Mapping[str, Any]) -> str:
    v, change = a["value"], a["change"]
    if change == "walltime":
        return f"<= {duration(v)}  (of {duration(d['wclimit'])})"
    if change in ("procs", "tasks"):
        return f"{v}  (of {d['tasks'] * (d['per_task'].get('procs', 1) if change == 'procs' else 1)})"
    if change == "nodes":
        return f"{v}  (of {d['nodes_requested']})"
    return str(v)


def render(d: Mapping[str, Any], dstr) -> str:
    """The block, after Maui's analysis lines: what the job waits for, then one line per
    change with the start it gives (a date and how long from now)."""
    if "advice" not in d:
        return ""
    now, o = d["now"], ["\nTo start sooner:\n"]
    info = d.get("advice_as_is") or {}
    if info.get("starts_now"):
        return o[0] + "  nothing to change: the job starts at the next cycle as it is\n"
    changes = [a for a in d["advice"] if a["change"] != "waits"]
    for a in d["advice"]:
        if a["change"] == "waits":
            o.append("  Waits:     %s\n" % a["reason"])
    for a in changes:
        start = a["start"]
        when = "now" if start <= now else "in %s on %s" % (duration(start - now), dstr(start).rstrip("\n"))
        o.append("  %-9s  %-24s  start %s\n" % (LABELS.get(a["change"], a["change"]) + ":",
                                                 _value(a, d), when))
    if not changes and not any(a["value"] in ("hold", "deferred", "dependency") for a in d["advice"]):
        o.append("  no shorter walltime, smaller size, other QOS or class starts it sooner\n")
    p = info.get("start")
    if changes and p is not None:
        o.append("  (as it is: start in %s on %s)\n" % (duration(p - now), dstr(p).rstrip("\n")))
    return "".join(o)
