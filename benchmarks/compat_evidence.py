"""Default rules versus MAUICOMPAT 3.3 on real traces (issue 32 item 4): the evidence for
which node and backfill rules maui-py keeps as its default (docs/compatibility.md).

Replays each trace x policy twice, with maui-py's own rules and with `MAUICOMPAT 3.3`
added to the same configuration, each replay in its own process (its CPU time its own), the
workload read as `maui-sim TRACE --jobs N` reads it. Prints one table: BSLD (10 s bound,
sim/metrics.py), mean wait, utilisation, CPU seconds of the replay, and MAUICOMPAT's CPU
over the default's. Each replay's figures go to a JSON file in --cache, so a long matrix
runs in pieces and a rerun only replays what is missing. Prints figures; asserts nothing.

    python benchmarks/compat_evidence.py --jobs 2000                  # every trace, 2000 jobs
    python benchmarks/compat_evidence.py --traces KTH --jobs KTH=all --cache /tmp/ev
    python benchmarks/compat_evidence.py --policies fcfs-easy,easy.cfg --jobs CTC=20000
    python benchmarks/compat_evidence.py --jobs 10000 --jobs fcfs-cons=2000 --jobs KTH/fcfs-easy=all
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TRACES = REPO.parent / "shared" / "traces"
TRACE_FILES = {"KTH": "KTH-SP2-1996-2.1-cln.swf.gz", "SDSC": "SDSC-SP2-1998-4.2-cln.swf.gz",
               "CTC": "CTC-SP2-1996-3.1-cln.swf.gz", "HPC2N": "HPC2N-2002-2.2-cln.swf.gz"}
SYNTHETIC = "synthetic"
"""A trace name that stands for maui-sim's generated workload (--synthetic N jobs), for
tests: no trace needed."""
FCFS = "QUEUETIMEWEIGHT 1\nBACKFILLPOLICY FIRSTFIT\n"
POLICIES = {
    "fcfs-easy": FCFS + "RESERVATIONDEPTH 1\n",
    "fcfs-cons": FCFS + "RESERVATIONDEPTH 100000\nRESERVATIONPOLICY HIGHEST\n",
    "easy.cfg": REPO / "config" / "easy.cfg",
    "conservative.cfg": REPO / "config" / "conservative.cfg",
}
"""FCFS EASY and FCFS conservative as benchmarks/replay.py writes them (conservative with
RESERVATIONPOLICY HIGHEST, as issue 32 defines it), and the two sample configs."""
RULES = ("default", "maui33")
COMPAT_LINE = "\nMAUICOMPAT 3.3\n"
CACHE_VERSION = 1
MAX_CACHE_BYTES = 64 * 1024
"""A cache file is a few hundred bytes; anything far larger is not ours and is not read."""
FIELDS = {"bsld": float, "wait_mean": float, "utilization": float, "cpu_s": float,
          "jobs": int, "check_ok": bool}


def config_text(policy: str, rules: str) -> str:
    """The configuration of one replay: the policy's text, plus MAUICOMPAT 3.3 for maui33."""
    src = POLICIES[policy]
    text = src.read_text() if isinstance(src, Path) else src
    return text + (COMPAT_LINE if rules == "maui33" else "")


def sim_argv(trace: str, jobs: int | None) -> list[str]:
    """maui-sim's arguments that read the workload of one row (cleaning as maui-sim's)."""
    if trace == SYNTHETIC:
        return ["--synthetic", str(jobs or 200), "--machine-procs", "32", "-q"]
    argv = [str(TRACES / TRACE_FILES.get(trace, trace)), "-q"]
    return argv + (["--jobs", str(jobs)] if jobs else [])


def replay(trace: str, jobs: int | None, policy: str, rules: str, keep_records: bool = False):
    """One replay in this process: the figures of the row, CPU seconds of the replay alone
    (reading and cleaning the trace left out); with keep_records, (row, the replay's
    SimRecords by job id), for benchmarks/turn_counts.py."""
    from maui_py.cfg import load_config
    from maui_py.cli.simulate import add_arguments, load_workload
    from maui_py.sim.engine import SimOptions, Simulation
    from maui_py.sim.metrics import summarize
    from maui_py.sim.report import machine_procs

    p = argparse.ArgumentParser()
    add_arguments(p)
    args = p.parse_args(sim_argv(trace, jobs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w = load_workload(args, args.words[0] if args.words else None)
    with tempfile.TemporaryDirectory() as tmp:
        cfg_path = Path(tmp) / f"{policy}-{rules}.cfg"
        cfg_path.write_text(config_text(policy, rules))
        cfg = load_config(cfg_path)
    t0 = time.process_time()
    result = Simulation(w.nodes, w.jobs, cfg, SimOptions(cycle_reserves=False)).run()
    cpu = time.process_time() - t0
    s = summarize(result.records, machine_procs(result)).total
    row = {"trace": trace, "policy": policy, "rules": rules, "jobs": len(w.jobs),
           "bsld": round(s.bsld_mean, 2), "wait_mean": round(s.wait_mean, 1),
           "utilization": round(s.utilization, 4), "cpu_s": round(cpu, 2),
           "check_ok": bool(result.check.ok and not result.unfinished),
           "version": CACHE_VERSION}
    return (row, result.records) if keep_records else row


TIMEOUT: float | None = None
"""--timeout: wall seconds a replay may take; one that takes longer is left out, not cached."""


class ReplayFailed(Exception):
    """A replay that failed or ran out of time: reported, left out of the table, not cached."""


def child(trace: str, jobs: int | None, policy: str, rules: str) -> dict:
    """replay() in a fresh process, so that its CPU time and memory are its own."""
    argv = [sys.executable, __file__, "--child", trace, str(jobs or 0), policy, rules]
    try:
        out = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise ReplayFailed(f"took longer than {TIMEOUT:g} s") from None
    except subprocess.CalledProcessError as e:
        raise ReplayFailed(f"exit {e.returncode}: {e.stderr.strip()[-300:]}") from None
    return json.loads(out.stdout.strip().splitlines()[-1])


def cache_path(cache: Path, trace: str, jobs: int | None, policy: str, rules: str) -> Path:
    return cache / f"{trace}-{jobs or 'all'}-{policy}-{rules}.json"


def read_cached(path: Path) -> dict | None:
    """A cached row, or None when there is none or it is unusable (warned, then replayed):
    bounded in size, a JSON object with every field of the right type."""
    try:
        if path.is_symlink() or not path.is_file():
            return None
        if path.stat().st_size > MAX_CACHE_BYTES:
            raise ValueError(f"larger than {MAX_CACHE_BYTES} bytes")
        row = json.loads(path.read_text())
        if not isinstance(row, dict) or row.get("version") != CACHE_VERSION:
            raise ValueError("not a row of this script's version")
        for name, kind in FIELDS.items():
            if not _is(row.get(name), kind):
                raise ValueError(f"field {name!r} missing or not {kind.__name__}")
        return row
    except (OSError, ValueError) as e:
        print(f"warning: {path}: {e}; replaying it", file=sys.stderr)
        return None


def _is(value, kind: type) -> bool:
    """JSON's types: a float field takes an int too; a bool is no number."""
    if kind is bool or isinstance(value, bool):
        return kind is bool and isinstance(value, bool)
    return isinstance(value, (int, float) if kind is float else kind)


def write_cached(path: Path, row: dict) -> None:
    """Write a row next to its final name and rename it into place: a planted symlink at
    the name is replaced, never followed; a crash leaves no half-written row."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w") as fh:
        json.dump(row, fh)
    os.replace(tmp, path)


def run_matrix(traces: list[str], jobs: dict[tuple[str, str], int | None], policies: list[str],
               cache: Path | None, runner: Callable[..., dict] = child,
               log=sys.stderr) -> list[dict]:
    """Every trace x policy x rules, from the cache where it holds the row, else by runner
    (its row then cached). Run policy by policy (the cheap EASY rows of every trace first,
    so a matrix cut short still compares them); rows returned trace by trace."""
    done = {}
    for policy in policies:
        for trace in traces:
            for rules in RULES:
                n = jobs.get((trace, policy))
                path = cache and cache_path(cache, trace, n, policy, rules)
                row = read_cached(path) if path else None
                if row is None:
                    t0 = time.monotonic()
                    try:
                        row = runner(trace, n, policy, rules)
                    except ReplayFailed as e:
                        print(f"{trace} {policy} {rules}: left out: {e}", file=log, flush=True)
                        continue
                    print(f"{trace} {policy} {rules}: {row['jobs']} jobs, cpu {row['cpu_s']} s, "
                          f"wall {time.monotonic() - t0:.0f} s", file=log, flush=True)
                    if path:
                        write_cached(path, row)
                done[trace, policy, rules] = row
    return [done[k] for k in ((t, p, r) for t in traces for p in policies for r in RULES) if k in done]


def duration(seconds: float) -> str:
    """A wait as a person reads it: h:mm:ss (days as Nd when any)."""
    s = int(round(seconds))
    d, s = divmod(s, 86400)
    text = f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"
    return f"{d}d {text}" if d else text


def pairs(rows: list[dict]) -> list[tuple[dict, dict]]:
    """(default row, maui33 row) of each trace x policy that has both, in row order."""
    by = {(r["trace"], r["policy"], r["rules"]): r for r in rows}
    out = []
    for r in rows:
        if r["rules"] == "default" and (r["trace"], r["policy"], "maui33") in by:
            out.append((r, by[(r["trace"], r["policy"], "maui33")]))
    return out


def table(rows: list[dict]) -> str:
    """The Markdown table: one line per trace x policy, default and MAUICOMPAT side by side,
    and which is better on the row's figures (verdict)."""
    head = ("| trace | jobs | policy | BSLD default | BSLD 3.3 | wait default | wait 3.3 "
            "| util default | util 3.3 | CPU s default | CPU s 3.3 | CPU ratio | better |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for d, c in pairs(rows):
        ratio = c["cpu_s"] / d["cpu_s"] if d["cpu_s"] > 0 else float("inf")
        lines.append(f"| {d['trace']} | {d['jobs']} | {d['policy']} | {d['bsld']:.2f} | {c['bsld']:.2f} "
                     f"| {duration(d['wait_mean'])} | {duration(c['wait_mean'])} "
                     f"| {d['utilization']:.4f} | {c['utilization']:.4f} "
                     f"| {d['cpu_s']:.1f} | {c['cpu_s']:.1f} | {ratio:.1f} | {verdict(d, c)}{flag(d, c)} |")
    return "\n".join(lines)


def flag(d: dict, c: dict) -> str:
    """A mark on a row whose replay broke the schedule's invariants or left jobs unrun: its
    figures are not evidence."""
    bad = [r["rules"] for r in (d, c) if not r["check_ok"]]
    return f" (check failed: {', '.join(bad)})" if bad else ""


TIE = 0.01
"""A figure differing by less than this share of the larger value is a tie: utilisation over
a replay hardly moves (the same work over nearly the same span), and a difference in the
fourth digit says nothing of the rules."""


def _cmp(a: float, b: float) -> int:
    """+1 when a is larger beyond the tie share, -1 when b is, else 0."""
    if abs(a - b) <= TIE * max(abs(a), abs(b)):
        return 0
    return 1 if a > b else -1


def verdict(d: dict, c: dict) -> str:
    """Which rules win on the row's figures: 'default', '3.3', or 'tie' (as many wins each;
    BSLD and wait lower is better, utilisation higher; differences under TIE not counted)."""
    score = (_cmp(c["bsld"], d["bsld"]) + _cmp(c["wait_mean"], d["wait_mean"])
             + _cmp(d["utilization"], c["utilization"]))
    return "default" if score > 0 else "3.3" if score < 0 else "tie"


def parse_jobs(values: list[str], traces: list[str], policies: list[str]) -> dict[tuple[str, str], int | None]:
    """--jobs N (every row), --jobs NAME=N|all (NAME a trace, a policy, or TRACE/POLICY):
    {(trace, policy): first N jobs, None for all}; later ones win."""
    out: dict[tuple[str, str], int | None] = {(t, p): None for t in traces for p in policies}
    for v in values:
        name, _, n = v.rpartition("=")
        count = None if n == "all" else int(n)
        if count is not None and count < 1:
            raise ValueError(f"--jobs {v}: N must be at least 1")
        trace, _, policy = name.partition("/") if "/" in name else \
            ((name, "", "") if name in traces or name in TRACE_FILES else ("", "", name))
        keys = [(t, p) for t, p in out if (not trace or t == trace) and (not policy or p == policy)]
        known = (not trace or trace in TRACE_FILES or trace == SYNTHETIC) and (not policy or policy in POLICIES)
        if name and not known:
            raise ValueError(f"--jobs {v}: {name} names no trace or policy")
        for k in keys:
            out[k] = count
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    ap.add_argument("--traces", default=",".join(TRACE_FILES), help="comma-separated (default: all four)")
    ap.add_argument("--policies", default=",".join(POLICIES), help=f"comma-separated of {', '.join(POLICIES)}")
    ap.add_argument("--jobs", action="append", default=[], metavar="[NAME=]N|all",
                    help="first N jobs of every row, or of the rows of NAME (a trace, a policy, or "
                         "TRACE/POLICY); 'all' for the whole trace")
    ap.add_argument("--cache", type=Path, metavar="DIR", help="one JSON per replay; a rerun resumes")
    ap.add_argument("--timeout", type=float, metavar="SECONDS",
                    help="wall seconds a replay may take; a longer one is left out (not cached)")
    args = ap.parse_args(argv)
    global TIMEOUT
    TIMEOUT = args.timeout
    if args.child:
        trace, n, policy, rules = args.child
        print(json.dumps(replay(trace, int(n) or None, policy, rules)))
        return 0
    traces = [t for t in args.traces.split(",") if t]
    policies = [p for p in args.policies.split(",") if p]
    bad = [p for p in policies if p not in POLICIES] + \
        [t for t in traces if t not in TRACE_FILES and t != SYNTHETIC]
    if bad:
        ap.error(f"unknown trace or policy: {', '.join(bad)}")
    try:
        jobs = parse_jobs(args.jobs, traces, policies)
    except ValueError as e:
        ap.error(str(e))
    rows = run_matrix(traces, jobs, policies, args.cache)
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
