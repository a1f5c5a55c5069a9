"""`maui-sim [TRACE] -c maui.cfg` (also `maui-py simulate`): replay a workload through the
scheduling cycle and print what it did. `maui-sim compare TRACE -c a.cfg -c b.cfg` runs each
configuration on the same workload and prints one table.

Without a trace, a workload is generated from the Lublin-Feitelson model (seeded), with its
arrivals compressed to an offered load of --load (the model alone loads a machine to ~0.35).
The cluster comes from --nodes, else from the trace header (one processor per node).
`maui-sim LOG --format sacct|jobcomp|torque --cluster FILE` replays a site's own log once
(cli/sitelog.py: the importers and the cut `maui-sim whatif` uses).
Exit status: 0, or 1 when the simulated resource manager found a schedule violation.
"""

from __future__ import annotations

import argparse
import bisect
import fcntl
import os
import shutil
import stat
import sys
import time
import warnings
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from ..cfg import ConfigError, SchedulerConfig, load_config
from ..core.cycle import run_cycle
from ..model import ClusterSnapshot, JobState
from ..sim import lublin
from ..sim.cluster import ClusterSpecError, cluster_from_option, from_trace_header
from ..sim.engine import SimOptions, Simulation
from .. import __version__
from .common import at_least
from . import simforecast, sitelog
from .check_config import replay_cost_lines
from .warnlines import print_warnings
from ..sim.lookslike import describe
from ..sim.metrics import summarize
from ..sim.forecast_report import forecast_text
from ..sim.report import (ReportInfo, cluster_text, compare_text, machine_procs,
                             summary_text, write_report)
from ..sim.swfnames import header_names, name_jobs
from ..sim.swf import (ESTIMATE_RULES, PROCESSOR_RULES, SwfFormatWarning, SwfRecord, clean,
                       read_swf, to_sim_jobs, unique_ids)
from ..sim.timefmt import TraceClock, clock_from_header, human_duration
from ..daemon.lock import lock_path
from ..daemon.paths import socket_path
from ..store import Store, StoreError, StoreReader

HELP = "replay a workload (an SWF trace, a site's log or a generated one) through the scheduling cycle"
SUBCOMMANDS = {"whatif": "maui_py.cli.whatif", "convert": "maui_py.cli.whatif"}
"""`maui-sim NAME ...`: a module whose main(argv) parses its own options (argv[0] is NAME)."""


EPILOG = ("Also: 'maui-sim whatif LOG -c current.cfg -c proposed.cfg' replays a site's own "
          "accounting log (sacct -P, jobcomp, Torque or SWF) under each config with error bars; "
          "'maui-sim convert LOG -o out.swf' writes such a log as SWF. Each has its own --help.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.epilog = EPILOG
    p.add_argument("words", nargs="*", metavar="[compare] TRACE",
                   help="an SWF trace (.swf or .swf.gz), or a site's log with --format; "
                        "'compare TRACE' to compare configs")
    p.add_argument("-c", "--config", action="append", default=[], metavar="FILE",
                   help="maui.cfg (repeat with compare); default: Maui's defaults")
    p.add_argument("--nodes", metavar="SPEC",
                   help="cluster: '128x8', '16x64:mem=256000:gpu=4:features=fast' (groups "
                        "joined by '+') or a file of such lines; default: the trace header")
    sitelog.add_arguments(p)
    p.add_argument("--jobs", type=at_least(1), metavar="N", help="replay only the first N jobs")
    p.add_argument("--synthetic", type=at_least(1), default=2000, metavar="N",
                   help="jobs to generate when no trace is given (default 2000)")
    p.add_argument("--machine-procs", type=at_least(1), default=128, metavar="P",
                   help="processors of the generated workload's machine (default 128)")
    p.add_argument("--load", type=_load_value, metavar="X",
                   help="compress arrivals to this offered load (default 0.8 for a generated "
                        "workload, the trace's own otherwise)")
    p.add_argument("--seed", type=at_least(0), default=1, help="seed of the generated workload")
    p.add_argument("--no-clean", action="store_true",
                   help="keep the trace as it is (the standard cleaning is on by default)")
    p.add_argument("--estimates", choices=ESTIMATE_RULES, default="requested",
                   help="estimate of a job that ran past its request: the requested time "
                        "(default) or the recorded runtime, as the simulator behind the "
                        "published EASY figures did ('max')")
    p.add_argument("--processors", choices=PROCESSOR_RULES, default="allocated",
                   help="a job's processors: allocated when known, else requested (default), or "
                        "requested when known, as the simulator behind the published EASY++ "
                        "figures read its traces ('requested')")
    p.add_argument("--poll", type=at_least(0), default=0, metavar="SECONDS",
                   help="schedule every SECONDS, RMPOLLINTERVAL style (default: at every event)")
    p.add_argument("--per-event", action="store_true",
                   help="a cycle after each submission and each job end, submissions first at "
                        "one time, as event-driven simulators (pyss, behind the published "
                        "EASY-SJBF and EASY++ figures) do; default: one cycle per time, as "
                        "Maui's iteration sees every change since the last")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="write jobs.csv, summary.txt/json, report.json and index.html (one "
                        "self-contained page with plots) to DIR, e.g. sim-report/")
    p.add_argument("--check", action="store_true",
                   help="also check the reservation table's invariants every cycle (slow)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress on stderr (default: a bar on a terminal, else a line every 5 s)")
    p.add_argument("--store", type=Path, metavar="PATH",
                   help="also write the replay's state and last cycle to a store file, for the "
                        "commands (showq --store PATH, checkjob, showres ...); first config only")
    p.add_argument("--store-at", type=int, metavar="SECONDS",
                   help="with --store: the last cycle at most SECONDS after the first submission "
                        "instead of the end of the replay")
    simforecast.add_arguments(p)


def _load_value(text: str) -> float:
    """--load: an offered load, a finite number in (0, 100] (not -1, nan or inf)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (0 < value <= 100):          # also false for nan
        raise argparse.ArgumentTypeError(f"{text!r} is out of range (a load above 0, at most 100)")
    return value


PROGRESS_SECONDS = 5.0
"""Seconds between two progress lines when stderr is not a terminal."""


class Progress:
    """Progress of one replay on stderr: on a terminal a bar redrawn in place, elsewhere (a
    log, a CI job) one line every `every` seconds; both with the jobs submitted so far, the
    simulated date and an estimate of the time left (from the share of jobs submitted).
    Driven by SimOptions.on_cycle; reads the wall clock once every 32 cycles."""

    def __init__(self, jobs, label: str, clock: TraceClock, stream=None, tty: bool | None = None,
                 every: float | None = None, timer=time.monotonic):
        self.submits = sorted(sj.job.submit_time for sj in jobs)
        self.label, self.clock, self.timer = label, clock, timer
        self.every = PROGRESS_SECONDS if every is None else every
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.start = self.last = timer()
        self.cycles = 0
        self.shown = False

    def _parts(self, done: int, now: int, elapsed: float) -> str:
        total = len(self.submits)
        eta = (f"ETA {human_duration(elapsed * (total - done) / done)}" if 0 < done < total
               else "draining" if done else "starting")
        return (f"{done}/{total} jobs submitted, {eta}, {human_duration(elapsed)} elapsed, "
                f"at {self.clock.date(now)}")

    def line(self, done: int, now: int, elapsed: float) -> str:
        return f"{self.label}: {self._parts(done, now, elapsed)}"

    def on_cycle(self, now: int, _result=None) -> None:
        self.cycles += 1
        if self.cycles % 32:
            return
        t = self.timer()
        if t - self.last < (0.5 if self.tty else self.every):
            return
        self.last = t
        self.show(bisect.bisect_right(self.submits, now), now, t - self.start)

    def show(self, done: int, now: int, elapsed: float) -> None:
        if self.tty:
            width = 24
            filled = int(width * done / max(len(self.submits), 1))
            line = f"[{'#' * filled}{'.' * (width - filled)}] {self._parts(done, now, elapsed)} ({self.label})"
            columns = shutil.get_terminal_size().columns
            self.stream.write("\r" + line[: max(columns - 1, 20)] + "\x1b[K")   # one screen line
        else:
            self.stream.write(self.line(done, now, elapsed) + "\n")
        self.stream.flush()
        self.shown = True

    def finish(self, result) -> None:
        """The closing line (only when a progress line was shown: short runs stay quiet)."""
        if not self.shown:
            return
        elapsed = self.timer() - self.start
        text = f"{self.label}: {len(result.records)} jobs replayed in {human_duration(elapsed)}"
        self.stream.write(("\r" + text + "\x1b[K\n") if self.tty else text + "\n")
        self.stream.flush()


class WriteNotes:
    """What maui-sim is doing after a replay (summarising, writing jobs.csv and the report),
    on stderr, so a long write is not silent: at most one line every PROGRESS_SECONDS, and
    none for a replay of fewer than `min_jobs` jobs (those take a moment). Called with one
    short text per step (report.write_report's progress)."""

    def __init__(self, jobs: int, min_jobs: int = 100_000, stream=None, every: float | None = None,
                 timer=time.monotonic):
        self.on = jobs >= min_jobs
        self.stream = stream or sys.stderr
        self.every = PROGRESS_SECONDS if every is None else every
        self.timer = timer
        self.start = timer()
        self.last: float | None = None

    def __call__(self, text: str) -> None:
        if not self.on:
            return
        t = self.timer()
        if self.last is not None and t - self.last < self.every:
            return
        self.last = t
        self.stream.write(f"maui-sim: {text} ({human_duration(t - self.start)} elapsed)\n")
        self.stream.flush()

    def done(self) -> None:
        if self.on and self.last is not None:
            self.stream.write(f"maui-sim: report written in {human_duration(self.timer() - self.start)}\n")
            self.stream.flush()


def compress(records: list[SwfRecord], procs: int, load: float) -> list[SwfRecord]:
    """Scale submit times so that offered load = sum(procs x runtime) / (procs x span)."""
    from dataclasses import replace
    if len(records) < 2 or load <= 0:
        return records
    t0 = records[0].submit
    span = max(r.submit for r in records) - t0 or 1
    work = sum(r.procs * max(r.runtime, 0) for r in records)
    factor = (work / (procs * span)) / load
    return [replace(r, submit=t0 + int((r.submit - t0) * factor)) for r in records]


@dataclass
class Workload:
    """What a replay runs and what the report says about it."""

    title: str
    nodes: list
    jobs: list
    clock: TraceClock = field(default_factory=TraceClock)
    clock_warning: str | None = None
    source: str = ""
    computer: str = ""
    cleaning: str = ""


def load_workload(args: argparse.Namespace, trace: str | None) -> Workload:
    """The workload from a trace or the generator; cleaning reported on stderr. A trace's
    dates come from its header (UnixStartTime, TimeZoneString); a generated workload's
    times are relative."""
    clock, warning, source = TraceClock(), None, "generated"
    if sitelog.wanted(args):
        title, nodes, jobs, clock, source, notes = sitelog.site_workload(args, trace)
        return Workload(title, nodes, jobs, clock, None, source, "", f"left out: {notes}")
    if trace:
        header, records = read_trace(trace)
        machine = header.max_procs or header.max_nodes or max((r.procs for r in records), default=1)
        title = Path(trace).name
        clock, warning = clock_from_header(header)
        source = str(trace)
    else:
        machine = args.machine_procs
        records = lublin.generate(args.synthetic, machine, args.seed)
        header = lublin.header(args.synthetic, machine, args.seed)
        title = f"synthetic Lublin-Feitelson workload ({args.synthetic} jobs, seed {args.seed})"
    cleaning = "none (--no-clean)"
    if not args.no_clean:
        records, rep = clean(records, machine, estimates=args.estimates, processors=args.processors)
        cleaning = rep.summary()
        if rep.dropped or rep.clipped:
            print(f"{title}: {rep.summary()}", file=sys.stderr)
    load = args.load if args.load is not None else (None if trace else 0.8)
    if load:
        records = compress(records, machine, load)
        source += f", arrivals compressed to offered load {load:g}"
    if args.jobs:
        records = records[: args.jobs]
        source += f", first {args.jobs} jobs"
    if not records:
        raise ValueError(f"{title}: no job left to replay ({cleaning})")
    nodes = (cluster_from_option(args.nodes) if args.nodes
             else from_trace_header(header, 1, max((r.procs for r in records), default=1)))
    jobs = to_sim_jobs(records)
    if trace:
        jobs = name_jobs(jobs, header_names(header))     # a converted log's own names
    return Workload(title, nodes, jobs, clock, warning, source,
                    header.computer if trace else "", cleaning)


def read_trace(trace: str):
    """read_swf, its warnings printed as `file:line: message` (the first ten, then a count);
    a file with no SWF job line at all is a ValueError saying what it looks like (sacct
    output, an empty file ...), not a replay of nothing."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SwfFormatWarning)
        header, records = read_swf(trace)
        records = unique_ids(records)       # a repeated job id: warned about, renumbered
    if not records:
        raise ValueError(f"{trace}: nothing to replay: {describe(trace)}")
    print_warnings(caught)
    return header, records


def workload(args: argparse.Namespace, trace: str | None):
    """(title, nodes, sim jobs): load_workload without the report's facts."""
    w = load_workload(args, trace)
    return w.title, w.nodes, w.jobs


def _config_text(name: str) -> str:
    try:
        return Path(name).read_text(errors="replace")
    except OSError:
        return ""


def _warn(args: argparse.Namespace, w, configs) -> None:
    """Warnings before a replay: the workload's clock, and a configuration whose replay is
    known to be slow (MAUICOMPAT 3.3 with HIGHEST cycles each second: check_config)."""
    if w.clock_warning:
        print(f"maui-sim: {w.title}: {w.clock_warning}", file=sys.stderr)
    if not (args.poll or args.per_event):
        for line in replay_cost_lines(configs):
            print(f"maui-sim: {line}", file=sys.stderr)


def _store(args: argparse.Namespace, w, config) -> bool:
    """Replay the first config again into the store (--store); False after an error."""
    try:
        progress = None if args.quiet else Progress(w.jobs, "maui-sim --store", w.clock)
        print(f"\nwrote {store_replay(args.store, w.nodes, w.jobs, config, args.store_at, w.clock, progress)}")
    except (StoreInUse, ValueError) as e:
        print(f"maui-sim: {e}", file=sys.stderr)
        return False
    return True


def run(args: argparse.Namespace) -> int:
    words = list(args.words)
    comparing = bool(words) and words[0] == "compare"
    if comparing:
        words = words[1:]
        if len(args.config) < 2:
            print("maui-sim compare: give at least two -c FILE", file=sys.stderr)
            return 2
    if len(words) > 1:
        print(f"maui-sim: one trace at a time (got {' '.join(words)})", file=sys.stderr)
        return 2
    if args.store:
        try:
            check_store_target(args.store)      # before the replay, not after it
        except StoreInUse as e:
            print(f"maui-sim: {e}", file=sys.stderr)
            return 2
    try:
        configs = [(path, load_config(path)) for path in args.config] or \
            [("Maui defaults", SchedulerConfig.default())]
        w = load_workload(args, words[0] if words else None)
    except ConfigError as e:
        print(e, file=sys.stderr)
        return 2
    except (OSError, ClusterSpecError, ValueError) as e:
        print(f"maui-sim: {e}", file=sys.stderr)
        return 2
    _warn(args, w, configs)
    nodes, jobs = w.nodes, w.jobs
    results, fc = [], None
    for name, cfg in configs:
        progress = None if args.quiet else Progress(jobs, f"maui-sim {name}", w.clock)
        on_cycle = progress and progress.on_cycle
        first = simforecast.forecaster(args, cfg, on_cycle) if args.forecast and not results else None
        sim = Simulation(nodes, jobs, cfg, SimOptions(poll_interval=args.poll,
                                                      per_event=args.per_event,
                                                      check_table=args.check,
                                                      on_cycle=first.on_cycle if first else on_cycle,
                                                      leave_idle=first is None,   # a cycle at every arrival
                                                      cycle_reserves=False), name)
        if first:
            fc = first.attach(sim)
        results.append((name, sim.run()))
        if progress:
            progress.finish(results[-1][1])
    print(f"{w.title} on {len(nodes)} nodes, {sum(n.resources.procs for n in nodes)} procs\n")
    note = None if args.quiet else WriteNotes(len(jobs))
    if note:
        note("summarising the replay")
    sums = [summarize(r.records, machine_procs(r)) for _n, r in results]
    if comparing:
        print(compare_text(results, w.clock, sums))
    else:
        print(summary_text(results[0][1], sums[0], title=f"config: {results[0][0]}", clock=w.clock))
    forecast = simforecast.report_data(fc) if fc else None
    if forecast:
        print("\n" + forecast_text(forecast))
    if args.out:
        info = ReportInfo(workload=w.title, source=w.source, computer=w.computer, cleaning=w.cleaning,
                          cluster=cluster_text(nodes),
                          configs=[(n, _config_text(n) if args.config else "") for n, _c in configs],
                          version=__version__,
                          generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                          clock=w.clock, clock_note=w.clock_warning or "")
        written = write_report(results, args.out, info, note, sums, forecast)
        if note:
            note.done()
        print(f"\nwrote {', '.join(str(p) for p in written)}")
    if args.store and not _store(args, w, configs[0]):
        return 2
    return 0 if all(r.check.ok for _n, r in results) else 1


class StoreInUse(Exception):
    """--store names a file maui-sim must not replace (the message says why)."""


def _lock_held(path: Path) -> bool:
    """Whether a mauid holds the store's lock. Probed with a shared flock on the existing
    lock file opened read-only: nothing is created or written (a mauid holds it exclusively)."""
    try:
        fd = os.open(lock_path(path), os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return False
    except OSError:
        return True                         # cannot tell: assume a daemon's
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:                         # held (EWOULDBLOCK), or cannot tell: a daemon's
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def check_store_target(path: Path) -> None:
    """Raise StoreInUse unless maui-sim may (re)write `path`: nothing there, an empty file,
    or a store an earlier maui-sim wrote (its last cycle is simulated) that no mauid holds.
    A daemon's store, a locked one, any other SQLite file or any other file is left as it
    is, byte for byte (it is only read, read-only)."""
    path = Path(path)
    if _lock_held(path):
        raise StoreInUse(f"{path}: a running mauid holds this store's lock: not touching it")
    if os.path.lexists(socket_path(path)):
        raise StoreInUse(f"{path}: a mauid serves this store ({socket_path(path)} exists): not touching it")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(st.st_mode):
        raise StoreInUse(f"{path} exists and is not a regular file: not touching it")
    if st.st_size == 0:
        return
    try:
        with StoreReader.open(path) as reader:
            info = reader.cycle_info()
    except StoreError as e:
        raise StoreInUse(f"{e}; maui-sim replaces only a store it wrote itself: not touching it") from None
    if info is None or info.rm != "sim":
        raise StoreInUse(f"{path} is a mauid store, not one maui-sim wrote: not touching it")


def store_replay(path: Path, nodes, jobs, config: tuple[str, SchedulerConfig], at: int | None,
                 clock: TraceClock | None = None, progress: Progress | None = None) -> str:
    """Replay up to `at` seconds after the first submission (or to the end), then write that
    moment to a store as mauid would: the state, and the last cycle's view (re-run with its
    reports and priorities, at the same instant, on the jobs as they then were). The store
    is written beside `path` and renamed over it, only if check_store_target allows. The
    trace's clock goes in the cycle record ("clock"), so the commands can print its dates."""
    clock = clock or TraceClock()
    check_store_target(path)
    name, cfg = config
    first = min((sj.job.submit_time for sj in jobs), default=0)
    sim = Simulation(nodes, jobs, cfg, SimOptions(stop_time=None if at is None else first + at,
                                                  on_cycle=progress and progress.on_cycle,
                                                  cycle_reserves=False), name)
    result = sim.run()
    if progress:
        progress.finish(result)
    state = result.state
    if state is None or state.last_now is None:
        raise ValueError("no scheduling cycle ran before that time: nothing to store")
    now = sim.now       # the last event's time: the cycle below makes up any left out since
    current = []
    for rec in result.records.values():
        if rec.end is not None and rec.end <= now:
            continue
        if rec.start is not None:
            alloc = state.caches.plan.running[rec.job.id][2] if rec.job.id in state.caches.plan.running else ()
            current.append(replace(rec.job, state=JobState.RUNNING, start_time=rec.start, allocation=alloc))
        else:
            current.append(rec.job)
    snap = ClusterSnapshot(now, tuple(nodes), tuple(current))
    last = run_cycle(snap, cfg, state, explain=True)
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{tmp}{suffix}").unlink(missing_ok=True)
    store = Store.open(tmp)
    try:
        store.save_cycle(last, snap, info={"config_path": str(Path(name).resolve()) if Path(name).is_file() else "",
                                           "rm": "sim", "pid": 0, "host": "",
                                           "clock": clock.as_dict()})
    except BaseException:
        store.close(rollback_mode=True)
        tmp.unlink(missing_ok=True)
        raise
    store.close(rollback_mode=True)
    check_store_target(path)                # still ours to replace after the replay
    for suffix in ("-wal", "-shm"):         # the replaced store's; they would not match the new file
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    os.replace(tmp, path)
    return f"{path} (simulated cycle {last.iteration} at {clock.date(now)}, {len(current)} jobs)"
