"""`maui-sim LOG --format sacct|jobcomp|torque --cluster FILE`: one replay of a site's own
accounting log, no shaking (`maui-sim whatif` shakes). The log is read by the importers
`whatif` uses and cut by the same replay_input, so both replay the same jobs; the times
stay the log's own (seconds since 1970, shown as dates in the log's zone)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from ..sim.importers import FORMATS
from ..sim.importers.replay import read_site_log, replay_input
from ..sim.timefmt import TraceClock, clock_for
from .warnlines import print_warnings

SITE_FORMATS = tuple(f for f in FORMATS if f != "swf")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=SITE_FORMATS,
                   help="the trace is a site's own log of this format (sacct -P, Slurm "
                        "jobcomp/filetxt, Torque accounting), replayed once; needs --cluster "
                        "or --nodes")
    p.add_argument("--cluster", metavar="FILE",
                   help="with --format: the cluster, as sinfo (--json or -N -h -o "
                        "'%%N|%%c|%%m|%%f|%%G|%%P') or pbsnodes -x output")


def wanted(args: argparse.Namespace) -> bool:
    """Whether the trace is a site's log (--format or --cluster given)."""
    return bool(getattr(args, "format", None) or getattr(args, "cluster", None))


def site_workload(args: argparse.Namespace, log: str | None):
    """(title, nodes, sim jobs, clock, source, notes) of a site's log; ValueError saying what
    is missing or wrong (no log, no cluster, --load, nothing to replay)."""
    from ..sim.cluster import cluster_from_option
    if not log:
        raise ValueError("--format/--cluster: give the log to replay")
    if args.load is not None:
        raise ValueError("--load compresses an SWF trace or a generated workload; a site's "
                         "log is replayed at its own arrival times")
    if not args.cluster and not args.nodes:
        raise ValueError(f"{log}: give the cluster: --cluster (sinfo or pbsnodes -x output) or --nodes")
    nodes = cluster_from_option(args.nodes) if args.nodes and not args.cluster else ()
    workload, caught = read_site_log([log], args.format, args.cluster, nodes)
    print_warnings(caught)
    cut = replay_input(workload)
    sims = cut.sims[: args.jobs] if args.jobs else cut.sims
    if not sims:
        raise ValueError(f"{log}: no job both started and ended on this cluster: nothing to "
                         f"replay ({cut.notes() or 'empty log'})")
    notes = cut.notes()
    if notes:
        print(f"{Path(log).name}: {notes}", file=sys.stderr)
    clock = replace(clock_for(1, workload.dates)[0], unix_start=0) if workload.dates else TraceClock()
    source = f"{log} ({args.format or 'format sniffed'})" + (f", first {args.jobs} jobs" if args.jobs else "")
    return Path(log).name, list(workload.nodes), sims, clock, source, notes or "none"
