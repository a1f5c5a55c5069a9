"""The stored start forecasts as the commands show them (issue 36): showstart's range and
likely start beside Maui's plan-based estimate, checkjob's range line, showq --forecast's
p50 per idle job, and the tracked accuracy (showstart --accuracy, diagnose --forecast).

Data first (JSON: times as epoch seconds, durations as seconds), text rendered from it:
dates as Maui prints them and durations as [D:]HH:MM:SS, never raw seconds. With
FORECASTPOLICY NONE and nothing stored, the commands print Maui's layout unchanged; with
forecasts on and none stored for a job, they say so plainly.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Mapping

from .common import dates, tstr

ACCURACY_WINDOW = 7 * 86400
"""showstart --accuracy's default window: the jobs first forecast in the last week."""
GROUPS = {"all": "All jobs", "class": "Class", "qos": "QOS", "size": "Size (procs)"}


def _on(cfg) -> bool:
    return str(cfg.get("FORECASTPOLICY") or "NONE") != "NONE"


def for_job(reader, view, job_id: str, clock: Callable[[], float] | None = None) -> dict[str, Any]:
    """{"forecast": {p10, p50, p90, samples, late, plan, computed_at, age, cut, asked} or
    None, "forecast_note": why there is none ("" when nothing is to be said)}."""
    from ..store.forecasts import forecast_of, forecast_run
    clock = clock or time.time
    job = view.jobs.get(job_id)
    if job is None or job.state.active:
        return {"forecast": None, "forecast_note": ""}
    run = forecast_run(reader)
    f = forecast_of(reader, job_id)
    if f is None:
        if run is None and not _on(view.cfg):
            note = ""                            # forecasts off: Maui's page alone
        elif job.holds or job.id in view.state.batch_holds:
            note = "none for a held job (it waits for its hold to be released, not for the queue)"
        elif run is None:
            note = ("no forecast stored yet: mauid makes the first one after a cycle (FORECASTPOLICY "
                    f"{view.cfg.get('FORECASTPOLICY')})")
        else:
            note = (f"no forecast stored for this job: the last forecast, "
                    f"{tstr(max(0, int(clock()) - run.computed_at))} ago, came before it was queued")
        return {"forecast": None, "forecast_note": note}
    at = run.computed_at if run is not None else view.now
    return {"forecast": {"p10": f.p10, "p50": f.p50, "p90": f.p90, "samples": f.samples, "late": f.late,
                         "plan": f.plan, "computed_at": at, "age": max(0, int(clock()) - at),
                         "cut": bool(run.cut) if run is not None else False,
                         "asked": run.asked if run is not None else f.samples},
            "forecast_note": ""}


def render_job(d: Mapping[str, Any]) -> str:
    """showstart's forecast lines (after Maui's), or the note saying why there are none."""
    f = d.get("forecast")
    if f is None:
        return "Forecast: %s\n\n" % d["forecast_note"] if d.get("forecast_note") else ""
    dstr, now = dates(d), d["now"]
    o = ["Likely start in        %11s on %s" % (tstr(f["p50"] - now), dstr(f["p50"])),
         "Likely between         %11s and %s (p10 to p90)\n" % (tstr(f["p10"] - now), tstr(f["p90"] - now)),
         "  from %s" % dstr(f["p10"]),
         "  to   %s" % dstr(f["p90"]),
         "Forecast made %s ago from %d replays%s\n" % (tstr(f["age"]), f["samples"], _caveats(f))]
    return "".join(o) + "\n"


def _caveats(f: Mapping[str, Any]) -> str:
    out = ""
    if f["cut"] and f["samples"] < f["asked"]:
        out += " (FORECASTBUDGET cut it short: %d asked)" % f["asked"]
    if f["late"]:
        out += "; in %d the job had not started by the replay's horizon" % f["late"]
    return out


def render_line(d: Mapping[str, Any]) -> str:
    """checkjob's line: the range and the likely start, or the note."""
    f = d.get("forecast")
    if f is None:
        return "Forecast:  %s\n" % d["forecast_note"] if d.get("forecast_note") else ""
    now = d["now"]
    return ("Forecast:  start in %s (likely), %s to %s (p10-p90), made %s ago from %d replays\n"
            % (tstr(f["p50"] - now), tstr(f["p10"] - now), tstr(f["p90"] - now), tstr(f["age"]), f["samples"]))


def p50s(reader) -> dict[str, int]:
    """job -> the stored forecast's p50 (showq --forecast)."""
    from ..store.forecasts import all_forecasts
    return {jid: f.p50 for jid, f in all_forecasts(reader).items()}


# ------------------------------------------------------------------- accuracy
def accuracy(reader, now: int, window: int = ACCURACY_WINDOW) -> dict[str, Any]:
    """The tracked accuracy over the jobs first forecast in the last `window` seconds."""
    from ..store.forecasts import forecast_run, tracked
    from ..store.tracked_accuracy import breakdown
    rows = tracked(reader, now - window)
    groups = [{"group": g, "name": name, "jobs": f.jobs, "inside": f.inside, "coverage_80": f.coverage_80,
               "mae_p50": f.mae_p50, "mae_plan": f.mae_plan, "planned": f.planned}
              for (g, name), f in breakdown(rows).items()]
    run = forecast_run(reader)
    return {"window": window, "tracked": len(rows), "waiting": sum(1 for t in rows if t.start is None),
            "groups": groups, "last_forecast": run.computed_at if run is not None else None}


def render_accuracy(a: Mapping[str, Any]) -> str:
    o = ["Forecast accuracy over the jobs first forecast in the last %s (%d tracked, %d not started yet)\n"
         % (tstr(a["window"]), a["tracked"], a["waiting"]),
         "a job counts once it started after its first forecast; error = |estimate - real start|\n\n",
         "%-12s %-14s %6s %14s %14s %14s\n" % ("Group", "Name", "Jobs", "In p10-p90", "p50 MedErr",
                                                 "Plan MedErr")]
    if not any(g["jobs"] for g in a["groups"]):
        o.append("(no tracked job has started yet)\n")
    for g in a["groups"]:
        cov = "%5.1f%%" % (100.0 * g["coverage_80"]) if g["coverage_80"] is not None else "-"
        o.append("%-12s %-14.14s %6d %14s %14s %14s\n"
                 % (GROUPS.get(g["group"], g["group"]), g["name"] or "-", g["jobs"], cov,
                    tstr(g["mae_p50"]) if g["mae_p50"] is not None else "-",
                    tstr(g["mae_plan"]) if g["mae_plan"] is not None else "-"))
    return "".join(o)


def forecast_facts(reader, view) -> dict[str, Any]:
    """diagnose --forecast: the policy, the last run's facts and the tracked accuracy."""
    from ..store.forecasts import forecast_run
    run = forecast_run(reader)
    facts = None if run is None else {"computed_at": run.computed_at, "asked": run.asked, "done": run.done,
                                      "cut": run.cut, "seconds": run.seconds, "jobs": run.jobs,
                                      "policy": run.policy}
    return {"policy": str(view.cfg.get("FORECASTPOLICY") or "NONE"),
            "interval": int(view.cfg.get("FORECASTINTERVAL") or 0), "run": facts,
            "accuracy": accuracy(reader, view.now)}


def render_facts(d: Mapping[str, Any]) -> str:
    dstr = dates(d)
    o = ["Start forecasts: FORECASTPOLICY %s, every %s\n" % (d["policy"], tstr(d["interval"]))]
    r = d["run"]
    if r is None:
        o.append("no forecast stored\n")
    else:
        o.append("last forecast: of the cycle at %s" % dstr(r["computed_at"]))
        o.append("  %d jobs, %d of %d replays%s, %s\n"
                 % (r["jobs"], r["done"], r["asked"], " (cut short by FORECASTBUDGET)" if r["cut"] else "",
                    tstr(round(r["seconds"]))))
    return "".join(o) + "\n" + render_accuracy(d["accuracy"])
