"""Command start-up benchmark (issue 18). Prints figures; not a test.

Each command runs as its console script does (`from maui_py.cli.main import showq_main`) in a
fresh interpreter, several times; the table gives the best and the median wall time. A store
for the reading commands is the command tests' fixed cluster (tests/cli/fixture.py), written
to a temporary folder. "imports ms" is what `python -X importtime` reports for all the imports
a command makes (steadier than wall time on a shared machine; the interpreter alone starts in
about 0.02-0.05 s), "modules" how many it imports. Then the same on `showq --store X` lists
the costliest imports (cumulative), the thing to look at when a figure grows.

    python benchmarks/startup.py [--runs N] [--top K] [--check]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL = 0.2
"""Seconds: the issue's target for a command to print its first line."""

CASES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("showq --help", "showq_main", ("--help",)),
    ("showq --version", "showq_main", ("--version",)),
    ("showq --store X", "showq_main", ("--store", "{store}")),
    ("checkjob --store X i1", "checkjob_main", ("--store", "{store}", "i1")),
    ("showres --store X", "showres_main", ("--store", "{store}")),
    ("showbf --store X", "showbf_main", ("--store", "{store}")),
    ("diagnose -p --store X", "diagnose_main", ("-p", "--store", "{store}")),
    ("showconfig -c X", "showconfig_main", ("-c", "{config}")),
    ("maui-py --help", "main", ("--help",)),
    ("maui-sim --help", "maui_sim_main", ("--help",)),
    ("mauid --help", "", ("--help",)),
)


def _code(entry: str, argv: tuple[str, ...]) -> list[str]:
    if not entry:       # mauid lives in the daemon package
        head = "from maui_py.daemon.main import main as entry"
    else:
        head = f"from maui_py.cli.main import {entry} as entry"
    return ["-c", f"import sys\n{head}\nsys.exit(entry({list(argv)!r}))"]


def _run(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()[:300]}")
    return took


def _importtime(cmd: list[str], env: dict[str, str]) -> list[tuple[int, int, str]]:
    """(self us, cumulative us, module) of every import `cmd` makes, from -X importtime."""
    done = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        own, cumulative, name = (part.strip() for part in line[len("import time:"):].split("|", 2))
        rows.append((int(own), int(cumulative), name))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per command (default 7)")
    parser.add_argument("--top", type=int, default=15, help="modules listed by -X importtime")
    parser.add_argument("--check", action="store_true", help="exit 1 when a median is at or over the goal")
    args = parser.parse_args(argv)
    env = {**os.environ, "TZ": "UTC", "PYTHONPATH": str(ROOT)}
    env.pop("MAUI_PY_CONFIG", None)
    sys.path.insert(0, str(ROOT))
    from tests.cli.fixture import write_store

    with tempfile.TemporaryDirectory() as tmp:
        store = write_store(Path(tmp))
        fill = {"store": str(store), "config": str(Path(tmp) / "maui.cfg")}
        print(f"{'command':<26} {'best s':>7} {'median s':>9} {'imports ms':>11} {'modules':>8}"
              f"  (runs: {args.runs}, goal < {GOAL} s)")
        slow = 0
        for label, entry, raw in CASES:
            cmd = [sys.executable, *_code(entry, tuple(a.format(**fill) for a in raw))]
            if "--version" in raw and not _has_version(cmd, env):
                print(f"{label:<26} {'n/a':>7} {'':>9}  (no --version)")
                continue
            times = [_run(cmd, env) for _ in range(args.runs)]
            best, median = min(times), statistics.median(times)
            slow += median >= GOAL
            rows = _importtime(cmd, env)
            own = sum(r[0] for r in rows) / 1000
            print(f"{label:<26} {best:7.3f} {median:9.3f} {own:11.1f} {len(rows):8d}"
                  f"{'  SLOW' if median >= GOAL else ''}")
        print(f"\n-X importtime, showq --store X: the {args.top} costliest imports (cumulative)")
        cmd = [sys.executable, *_code("showq_main", ("--store", str(store)))]
        for _own, micros, name in sorted(_importtime(cmd, env), key=lambda r: (-r[1], r[2]))[:args.top]:
            print(f"  {micros / 1000:8.1f} ms  {name}")
    print(f"\n{slow} command(s) at or over {GOAL} s (median)")
    return 1 if args.check and slow else 0


def _has_version(cmd: list[str], env: dict[str, str]) -> bool:
    """False on a tree from before --version (to measure "before" with the same script)."""
    return subprocess.run(cmd, env=env, capture_output=True).returncode == 0


if __name__ == "__main__":
    sys.exit(main())
