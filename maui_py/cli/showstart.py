"""`showstart JOB` or `showstart PROCS@WALLTIME`: the earliest start of a job, as Maui 3.3.1's
client prints it (mclient.c MCShowEStart; the server's answer is UserI.c UIJobGetStart).

The start is the job's reservation start when it holds one (a running job's reservation
covers its run, so its start is in the past); otherwise the earliest time the job fits in
the reservation table rebuilt from the last cycle (running jobs, priority, standing and
admin reservations; the reservations the job may use count as free), as if the job were
the next to be placed: Maui's MJobGetEStartTime. `PROCS@WALLTIME` asks the same question
for a pseudo-job of PROCS processors for WALLTIME ([[[DD:]HH:]MM:]SS).

maui-py adds mauid's start forecast when one is stored (FORECASTPOLICY: the range p10 to p90
and the likely start, p50, of replays with drawn runtimes, and how old it is;
cli/forecast_view.py), and `showstart --accuracy` prints how good the forecasts turned out.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Mapping, TextIO

from .common import (PARTITION, CommandError, add_store_arguments, dates, parse_duration, run_guarded, run_view,
                     streams, tstr)

if TYPE_CHECKING:
    from ..model import Job
    from .view import View

HELP = "show when a job (or PROCS@WALLTIME) can start at the earliest (Maui's showstart)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("job", metavar="JOB|PROCS@WALLTIME", nargs="?")
    parser.add_argument("--accuracy", action="store_true",
                        help="how good the stored forecasts turned out: share of real starts within "
                             "p10-p90, median errors of p50 and of this estimate, by class, QOS and size")
    parser.add_argument("--window", type=parse_duration_arg, default=None, metavar="DURATION",
                        help="--accuracy: over the jobs first forecast in the last DURATION (default 7 days)")
    add_store_arguments(parser)


def parse_duration_arg(text: str) -> int:
    try:
        return parse_duration(text)
    except CommandError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    from . import forecast_view
    if args.accuracy:
        window = args.window or forecast_view.ACCURACY_WINDOW
        return run_view("showstart", args, out, err,
                        lambda view, reader: {"command": "showstart", "now": view.now, "accuracy":
                                              forecast_view.accuracy(reader, view.now, window)}, render)
    if args.job is None:
        return run_guarded("showstart", streams(out, err)[1], _no_job)
    return run_view("showstart", args, out, err, lambda view, reader: {
        **collect(view, args.job), **(forecast_view.for_job(reader, view, args.job) if "@" not in args.job else {})},
        render)


def _no_job() -> int:
    raise CommandError("give a JOB, PROCS@WALLTIME or --accuracy", 2)


def pseudo_job(spec: str, now: int) -> Job:
    from ..model import Job, JobRequest
    procs, _at, walltime = spec.partition("@")
    if not procs.isdigit() or int(procs) < 1:
        raise CommandError(f"invalid pseudo-job {spec!r} (expected PROCS@WALLTIME)", 2)
    return Job(spec, "[NONE]", JobRequest(int(procs)), max(1, parse_duration(walltime or "1")), now)


def collect(view: View, spec: str) -> dict[str, Any]:
    from ..store.reader import PRIORITY
    if "@" in spec:
        job, how = pseudo_job(spec, view.now), "estimate"
    else:
        job = view.jobs.get(spec)
        if job is None or job.state.finished:
            raise CommandError(f"ERROR:    cannot locate job '{spec}'", prefixed=False)
        how = "estimate"
    prio = {r.job_id or r.name: r for r in view.last.reservations.get(PRIORITY, ())}
    predicted = view.state.predictions.get(job.id)
    span = predicted.estimate if predicted is not None else job.wallclock
    if job.state.active:
        start, how = job.start_time if job.start_time is not None else view.now, "running"
    elif job.id in prio:
        start, how = prio[job.id].start, "reservation"
    else:
        p = view.table().earliest_start(job.request, span, view.now,
                                        ignore=view.usable_by(job),
                                        policy=view.cfg.get("NODEALLOCATIONPOLICY"),
                                        job_class=job.class_)
        if not p:
            raise CommandError(f"ERROR:    cannot determine earliest start time for job '{spec}'"
                               f" ({p.reason})", prefixed=False)
        start = p.start
    return {"command": "showstart", "now": view.now, "job": job.id, "procs": job.procs,
            "wclimit": job.wallclock, "start": start, "end": start + span,
            "partition": PARTITION, "from": how}


def render(d: Mapping[str, Any]) -> str:
    """MCShowEStart, then the forecast (or --accuracy's table)."""
    from . import forecast_view
    if "accuracy" in d:
        return forecast_view.render_accuracy(d["accuracy"])
    dstr = dates(d)
    now = d["now"]
    return ("job %s requires %d proc%s for %s\n" % (d["job"], d["procs"], "" if d["procs"] == 1 else "s",
                                                   tstr(d["wclimit"]))
            + "Earliest start in      %11s on %s" % (tstr(d["start"] - now), dstr(d["start"]))
            + "Earliest completion in %11s on %s" % (tstr(d["end"] - now), dstr(d["end"]))
            + "Best Partition: %s\n\n" % d["partition"]
            + forecast_view.render_job(d))
