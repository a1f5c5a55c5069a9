"""`maui-sim whatif LOG... -c current.cfg -c proposed.cfg` (or `-c base.cfg --set P=v1,v2`):
replay a site's own accounting log under each config on shaken inputs and report, per user,
account, QOS and job size, the change against the current config with 95 % intervals.
`maui-sim convert LOG... -o out.swf` writes the log as SWF for other tools.

LOG is sacct -P output, a jobcomp/filetxt log, Torque accounting files or an SWF trace
(--format, else sniffed). The cluster comes from --cluster (sinfo or pbsnodes -x output) or
--nodes (a cluster spec), else from an SWF header. Runs go to --workers local processes, or
with --slurm to one Slurm job array (--jobs, the old name of --workers, still works with a
note: elsewhere in maui-sim --jobs is a number of jobs). Exit status: 0; 1 when a replay broke the schedule's
own checks; 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

from .common import at_least
from .warnlines import print_warnings

FORMATS = ("sacct", "jobcomp", "torque", "swf")
"""Same as maui_py.sim.importers.FORMATS (checked by the tests); the simulator is imported
only when a command runs, not for --help or a usage error."""
HELP = "what-if: replay a site's accounting log under current and proposed configs, with error bars"


def _jitter(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= v < 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range [0, 1)")
    return v


class DeprecatedWorkers(argparse.Action):
    """`--jobs N` / `-j N`, the old name of --workers: still taken, with a note on stderr (in
    maui-sim --jobs is the number of jobs to replay; one name, one meaning)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog}: {option_string} is now --workers (worker processes); "
              f"{option_string} will go (in maui-sim, --jobs is the number of jobs to replay; "
              "here that is --limit)", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("logs", nargs="+", metavar="LOG", help="accounting log file(s) of one format")
    p.add_argument("--format", choices=FORMATS, help="the logs' format (default: sniffed)")
    p.add_argument("-c", "--config", action="append", default=[], metavar="FILE",
                   help="the current maui.cfg, then proposed ones (or one base with --set)")
    p.add_argument("--set", action="append", default=[], metavar="PARAM=V1,V2",
                   help="sweep PARAM over values on the first config (repeat: every combination)")
    p.add_argument("--cluster", metavar="FILE", help="sinfo (--json or -N -o '%%N|%%c|%%m|%%f|%%G|%%P') "
                   "or pbsnodes -x output")
    p.add_argument("--nodes", metavar="SPEC", help="cluster spec or file, as for maui-sim")
    p.add_argument("--shakes", type=at_least(1), default=10, metavar="K",
                   help="shaken copies of the input per config (default 10)")
    p.add_argument("--seed", type=at_least(0), default=1, help="seed of the shaking (default 1)")
    p.add_argument("--submit-jitter", type=at_least(0), default=60, metavar="SECONDS",
                   help="arrivals move by up to this many seconds (default 60)")
    p.add_argument("--runtime-jitter", type=_jitter, default=0.05, metavar="FRACTION",
                   help="runtimes scale by up to this fraction (default 0.05)")
    p.add_argument("--limit", type=at_least(1), metavar="N", help="only the first N jobs")
    p.add_argument("--no-eligible", action="store_true",
                   help="arrive at submission, not at eligibility (dependencies, begin times)")
    p.add_argument("--poll", type=at_least(0), default=0, metavar="SECONDS",
                   help="schedule every SECONDS (default: at every event)")
    p.add_argument("--workers", type=at_least(1), default=1, metavar="N",
                   help="local worker processes for the runs (default 1)")
    p.add_argument("-j", "--jobs", type=at_least(1), dest="workers", action=DeprecatedWorkers,
                   metavar="N", help=argparse.SUPPRESS)
    p.add_argument("--slurm", metavar="DIR",
                   help="run as one Slurm job array; DIR (seen by every node) holds plan and results")
    p.add_argument("--slurm-time", default="01:00:00", metavar="TIME", help="time per task")
    p.add_argument("--slurm-mem", default="2G", metavar="MEM", help="memory per task")
    p.add_argument("--slurm-partition", metavar="NAME")
    p.add_argument("--out", type=Path, metavar="DIR", help="write whatif.html and whatif.json")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")


def _load(args: argparse.Namespace):
    from ..sim.cluster import cluster_from_option
    from ..sim.importers import load_workload
    from ..sim.importers.nodes import read_cluster
    from ..sim.importers.workload import ImportLineWarning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ImportLineWarning)
        workload = load_workload(args.logs, args.format)
        if args.cluster:
            workload.nodes = read_cluster(args.cluster)
    print_warnings(caught)
    if args.nodes and not args.cluster:
        workload.nodes = cluster_from_option(args.nodes)
    if args.limit:
        workload.jobs = sorted(workload.jobs, key=lambda j: (j.submit, j.id))[: args.limit]
    return workload


def run(args: argparse.Namespace) -> int:
    from ..cfg import ConfigError
    from ..cfg.loader import read_config_text
    from ..sim.cluster import ClusterSpecError
    from ..sim.shake import ShakeSpec
    from ..sim.whatif import ConfigVariant, analyse, make_plan, parse_sets, run_count, sweep_variants
    from ..sim.whatif_report import summary_text, write
    from ..sim.whatif_runner import SlurmRunError, run_local, run_slurm
    if not args.config:
        print("maui-sim whatif: give -c CURRENT.cfg (and -c PROPOSED.cfg or --set)", file=sys.stderr)
        return 2
    if len(args.config) < 2 and not args.set:
        print("maui-sim whatif: nothing to compare: a second -c FILE or --set PARAM=...", file=sys.stderr)
        return 2
    try:
        workload = _load(args)
        texts = [(path, read_config_text(path)) for path in args.config]
        variants = [ConfigVariant(path, text) for path, text in texts]
        if args.set:
            variants = sweep_variants(texts[0][0], texts[0][1], parse_sets(args.set)) + variants[1:]
        plan = make_plan(workload, variants, shakes=args.shakes, seed=args.seed,
                         spec=ShakeSpec(args.submit_jitter, args.runtime_jitter), poll=args.poll,
                         eligible_arrival=not args.no_eligible)
    except ConfigError as e:
        print(e, file=sys.stderr)
        return 2
    except (OSError, ValueError, ClusterSpecError) as e:
        print(f"maui-sim whatif: {e}", file=sys.stderr)
        return 2
    if not args.poll:
        from ..sim.whatif import parse_variant
        from .check_config import replay_cost_lines
        for line in replay_cost_lines((v.name, parse_variant(v)) for v in variants):
            print(f"maui-sim whatif: {line}", file=sys.stderr)
    n = run_count(plan)
    show = None if args.quiet else run_progress(sys.stderr)
    t0 = time.perf_counter()
    try:
        if args.slurm:
            runs = run_slurm(plan, args.slurm, time_limit=args.slurm_time, mem=args.slurm_mem,
                             partition=args.slurm_partition)
        else:
            runs = run_local(plan, args.workers, show)
    except SlurmRunError as e:
        print(f"maui-sim whatif: {e}", file=sys.stderr)
        return 1
    data = analyse(plan, runs)
    data["wall_seconds"] = round(time.perf_counter() - t0, 2)
    print(summary_text(data))
    from ..sim.timefmt import human_duration
    print(f"\n{n} runs in {human_duration(data['wall_seconds'])} "
          f"({'Slurm array' if args.slurm else f'{args.workers} local process(es)'})")
    if args.out:
        print("wrote " + ", ".join(str(p) for p in write(data, args.out)))
    return 1 if any(c["violations"] for c in data["configs"]) else 0


def run_progress(stream):
    """progress(k, total) for run_local: on a terminal one line redrawn in place, elsewhere (a
    pipe, a log) one line per run, so the lines never run together."""
    tty = stream.isatty()

    def show(k: int, total: int) -> None:
        if tty:
            stream.write(f"\rrun {k}/{total}" + ("\n" if k >= total else ""))
        else:
            stream.write(f"run {k}/{total}\n")
        stream.flush()
    return show


CONVERT_HELP = "write an accounting log (sacct, jobcomp, Torque) as an SWF trace"


def add_convert_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("logs", nargs="+", metavar="LOG")
    p.add_argument("--format", choices=FORMATS, help="the logs' format (default: sniffed)")
    p.add_argument("-o", "--output", required=True, type=Path, metavar="FILE",
                   help="the SWF file (.gz: gzipped)")


def run_convert(args: argparse.Namespace) -> int:
    """SWF keeps numbers only: the header's Note lines give the user, group, queue and
    account (as SWF partition) each number stands for."""
    from ..sim.importers import load_workload
    from ..sim.importers.workload import ImportLineWarning, to_swf_records
    from ..sim.swf import SwfHeader, write_swf
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ImportLineWarning)
            workload = load_workload(args.logs, args.format)
        print_warnings(caught)
        jobs = sorted(workload.jobs, key=lambda j: (j.submit, j.id))
        records, tables = to_swf_records(jobs)
        t0 = min((j.submit for j in jobs), default=0)
        pairs: list[tuple[str, object]] = [
            ("Version", "2.2"), ("Computer", "converted by maui-sim convert"),
            ("Conversion", f"maui-sim convert from {workload.source}"), ("UnixStartTime", t0),
            ("MaxJobs", len(records)), ("MaxRecords", len(records))]
        if workload.nodes:
            pairs += [("MaxNodes", len(workload.nodes)),
                      ("MaxProcs", sum(n.resources.procs for n in workload.nodes))]
        for kind, label in (("user", "user"), ("group", "group"), ("queue", "queue"),
                            ("partition", "partition (account)")):
            for name, num in tables[kind].items():
                pairs.append(("Note", f"{label} {num} = {name}"))
        for reason, count in sorted(workload.skipped.items()):
            pairs.append(("Note", f"import: {reason}: {count}"))
        write_swf(records, args.output, SwfHeader.build(pairs))
    except (OSError, ValueError) as e:
        print(f"maui-sim convert: {e}", file=sys.stderr)
        return 2
    print(f"wrote {args.output}: {len(records)} jobs")
    return 0


def main(argv: list[str] | None = None) -> int:
    """`maui-sim whatif ...` / `maui-sim convert ...` without the dispatcher."""
    from .main import terminal_guard
    argv = list(sys.argv[1:] if argv is None else argv)
    name = argv[0] if argv and argv[0] in ("whatif", "convert") else "whatif"
    rest = argv[1:] if argv and argv[0] in ("whatif", "convert") else argv
    parser = argparse.ArgumentParser(prog=f"maui-sim {name}",
                                     description=HELP if name == "whatif" else CONVERT_HELP)
    (add_arguments if name == "whatif" else add_convert_arguments)(parser)
    return terminal_guard(parser.prog, lambda: (run if name == "whatif" else run_convert)(parser.parse_args(rest)))


if __name__ == "__main__":
    sys.exit(main())
