"""`maui-sim [TRACE] -c maui.cfg` (also `maui-py simulate`): replay a workload through the
scheduling cycle and print what it did. `maui-sim compare TRACE -c a.cfg -c b.cfg` runs each
configuration on the same workload and prints one table.

Without a trace, a workload is generated from the Lublin-Feitelson model (seeded), with its
arrivals compressed to an offered load of --load (the model alone loads a machine to ~0.35).
The cluster comes from --nodes, else from the trace header (one processor per node).
Exit status: 0, or 1 when the simulated resource manager found a schedule violation.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import stat
import sys
import time
from dataclasses import replace
from pathlib import Path

from ..cfg import ConfigError, SchedulerConfig, load_config
from ..core.cycle import run_cycle
from ..model import ClusterSnapshot, JobState
from ..sim import lublin
from ..sim.cluster import ClusterSpecError, cluster_from_option, from_trace_header
from ..sim.engine import SimOptions, Simulation
from ..sim.report import compare_text, summary_text, write_report
from ..sim.swf import ESTIMATE_RULES, SwfRecord, clean, read_swf, to_sim_jobs
from ..daemon.lock import lock_path
from ..daemon.paths import socket_path
from ..store import Store, StoreError, StoreReader

HELP = "replay a workload (an SWF trace or a generated one) through the scheduling cycle"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("words", nargs="*", metavar="[compare] TRACE",
                   help="an SWF trace (.swf or .swf.gz); 'compare TRACE' to compare configs")
    p.add_argument("-c", "--config", action="append", default=[], metavar="FILE",
                   help="maui.cfg (repeat with compare); default: Maui's defaults")
    p.add_argument("--nodes", metavar="SPEC",
                   help="cluster: '128x8', '16x64:mem=256000:gpu=4:features=fast' (groups "
                        "joined by '+') or a file of such lines; default: the trace header")
    p.add_argument("--jobs", type=_at_least(1), metavar="N", help="replay only the first N jobs")
    p.add_argument("--synthetic", type=_at_least(1), default=2000, metavar="N",
                   help="jobs to generate when no trace is given (default 2000)")
    p.add_argument("--machine-procs", type=_at_least(1), default=128, metavar="P",
                   help="processors of the generated workload's machine (default 128)")
    p.add_argument("--load", type=_load_value, metavar="X",
                   help="compress arrivals to this offered load (default 0.8 for a generated "
                        "workload, the trace's own otherwise)")
    p.add_argument("--seed", type=_at_least(0), default=1, help="seed of the generated workload")
    p.add_argument("--no-clean", action="store_true",
                   help="keep the trace as it is (the standard cleaning is on by default)")
    p.add_argument("--estimates", choices=ESTIMATE_RULES, default="requested",
                   help="estimate of a job that ran past its request: the requested time "
                        "(default) or the recorded runtime, as the simulator behind the "
                        "published EASY figures did ('max')")
    p.add_argument("--poll", type=_at_least(0), default=0, metavar="SECONDS",
                   help="schedule every SECONDS, RMPOLLINTERVAL style (default: at every event)")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="write jobs.csv, summary.txt/json and a report (plots need the "
                        "'report' extra) to DIR")
    p.add_argument("--check", action="store_true",
                   help="also check the reservation table's invariants every cycle (slow)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--store", type=Path, metavar="PATH",
                   help="also write the replay's state and last cycle to a store file, for the "
                        "commands (showq --store PATH, checkjob, showres ...); first config only")
    p.add_argument("--store-at", type=int, metavar="SECONDS",
                   help="with --store: the last cycle at most SECONDS after the first submission "
                        "instead of the end of the replay")


MAX_OPTION = 10**12
"""Largest count, seed or interval an option takes: far beyond any replay, and no 5000-digit int()."""


def _at_least(lo: int):
    """An argparse type: an ASCII integer in [lo, MAX_OPTION], else a usage error (exit 2), so
    `--jobs -5` is refused instead of silently meaning something else."""
    def parse(text: str) -> int:
        digits = text.strip().removeprefix("-").removeprefix("+")
        if not (digits.isascii() and digits.isdigit() and len(digits) <= 13):
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer")
        value = int(text)
        if not lo <= value <= MAX_OPTION:
            raise argparse.ArgumentTypeError(f"{value} is out of range ({lo}..{MAX_OPTION})")
        return value
    parse.__name__ = "integer"
    return parse


def _load_value(text: str) -> float:
    """--load: an offered load, a finite number in (0, 100] (not -1, nan or inf)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (0 < value <= 100):          # also false for nan
        raise argparse.ArgumentTypeError(f"{text!r} is out of range (a load above 0, at most 100)")
    return value


def _progress(enabled: bool):
    if not enabled:
        return None
    start = time.perf_counter()

    def show(done: int, total: int, now: int) -> None:
        width = 30
        filled = int(width * done / max(total, 1))
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} jobs "
                         f"{time.perf_counter() - start:6.1f} s")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()
    return show


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


def workload(args: argparse.Namespace, trace: str | None):
    """(title, nodes, sim jobs) from a trace or the generator; cleaning reported on stderr."""
    if trace:
        header, records = read_swf(trace)
        machine = header.max_procs or header.max_nodes or max((r.procs for r in records), default=1)
        title = Path(trace).name
    else:
        machine = args.machine_procs
        records = lublin.generate(args.synthetic, machine, args.seed)
        header = lublin.header(args.synthetic, machine, args.seed)
        title = f"synthetic Lublin-Feitelson workload ({args.synthetic} jobs, seed {args.seed})"
    if not args.no_clean:
        records, rep = clean(records, machine, estimates=args.estimates)
        if rep.dropped or rep.clipped:
            print(f"{title}: {rep.summary()}", file=sys.stderr)
    load = args.load if args.load is not None else (None if trace else 0.8)
    if load:
        records = compress(records, machine, load)
    if args.jobs:
        records = records[: args.jobs]
    nodes = (cluster_from_option(args.nodes) if args.nodes
             else from_trace_header(header, 1, max((r.procs for r in records), default=1)))
    return title, nodes, to_sim_jobs(records)


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
        title, nodes, jobs = workload(args, words[0] if words else None)
    except ConfigError as e:
        print(e, file=sys.stderr)
        return 2
    except (OSError, ClusterSpecError, ValueError) as e:
        print(f"maui-sim: {e}", file=sys.stderr)
        return 2
    show = not args.quiet and sys.stderr.isatty()
    results = []
    for name, cfg in configs:
        sim = Simulation(nodes, jobs, cfg, SimOptions(poll_interval=args.poll,
                                                      check_table=args.check,
                                                      progress=_progress(show)), name)
        results.append((name, sim.run()))
    print(f"{title} on {len(nodes)} nodes, {sum(n.resources.procs for n in nodes)} procs\n")
    if comparing:
        print(compare_text(results))
    else:
        print(summary_text(results[0][1], title=f"config: {results[0][0]}"))
    if args.out:
        written = write_report(results, args.out)
        print(f"\nwrote {', '.join(str(p) for p in written)}")
    if args.store:
        try:
            print(f"\nwrote {store_replay(args.store, nodes, jobs, configs[0], args.store_at)}")
        except StoreInUse as e:
            print(f"maui-sim: {e}", file=sys.stderr)
            return 2
        except ValueError as e:
            print(f"maui-sim: {e}", file=sys.stderr)
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


def store_replay(path: Path, nodes, jobs, config: tuple[str, SchedulerConfig], at: int | None) -> str:
    """Replay up to `at` seconds after the first submission (or to the end), then write that
    moment to a store as mauid would: the state, and the last cycle's view (re-run with its
    reports and priorities, at the same instant, on the jobs as they then were). The store
    is written beside `path` and renamed over it, only if check_store_target allows."""
    check_store_target(path)
    name, cfg = config
    first = min((sj.job.submit_time for sj in jobs), default=0)
    sim = Simulation(nodes, jobs, cfg, SimOptions(stop_time=None if at is None else first + at), name)
    result = sim.run()
    state, now = result.state, result.state.last_now if result.state else None
    if now is None:
        raise ValueError("no scheduling cycle ran before that time: nothing to store")
    current = []
    for rec in result.records.values():
        if rec.end is not None and rec.end <= now:
            continue
        if rec.start is not None:
            alloc = state.running[rec.job.id][2] if rec.job.id in state.running else ()
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
                                           "rm": "sim", "pid": 0, "host": ""})
    except BaseException:
        store.close(rollback_mode=True)
        tmp.unlink(missing_ok=True)
        raise
    store.close(rollback_mode=True)
    check_store_target(path)                # still ours to replace after the replay
    for suffix in ("-wal", "-shm"):         # the replaced store's; they would not match the new file
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    os.replace(tmp, path)
    return f"{path} (simulated cycle {last.iteration} at {time.ctime(now)}, {len(current)} jobs)"
