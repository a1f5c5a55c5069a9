"""maui.cfg parsing benchmark (issue 34): a large site's credential lines. Prints figures; not a test.

Generates, in memory, a maui.cfg of N `USERCFG[...]` lines (a 20,000-user site), one of N/4
lines naming unknown parameters (each gets a "did you mean" warning), and one of N/4 quoted
attribute lines (the pyparsing path), and prints the best wall time of `parse_config` on each,
with the time per line. The goal is 20,000 credential lines in under 2 s. `--showq` also
times `maui-py showq -c CFG --store DB` end to end in a fresh interpreter (the command tests'
store, tests/cli/fixture.py, with the N-user file as its configuration).

    python benchmarks/cfg_parse.py [--users N] [--runs R] [--profile] [--showq]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maui_py.cfg.loader import parse_config  # noqa: E402

GOAL = 2.0
"""Seconds for 20,000 credential lines."""


def cases(users: int) -> dict[str, str]:
    """Name -> maui.cfg text."""
    return {
        f"{users} USERCFG lines": "".join(
            f"USERCFG[user{i:05d}] FSTARGET={i % 50}.0- MAXJOB=4,8 MAXPROC=64 PRIORITY={i % 100}\n"
            for i in range(users)),
        f"{users // 4} unknown parameters": "".join(f"SITEPARAM{i:05d}X {i}\n" for i in range(users // 4)),
        f"{users // 4} quoted attribute lines": "".join(
            f"QOSCFG[q{i:05d}] PRIORITY={i} QFLAGS='NOBF' MAXJOB=\"2,4\"\n" for i in range(users // 4)),
    }


def best(text: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        parse_config(text, "bench.cfg")
        times.append(time.perf_counter() - start)
    return min(times)


def showq_seconds(text: str, runs: int) -> float:
    """Best wall time of showq on the fixture store with `text` as its maui.cfg."""
    from tests.cli.fixture import write_store
    with tempfile.TemporaryDirectory() as tmp:
        db = write_store(Path(tmp))
        cfg = Path(tmp) / "big.cfg"
        cfg.write_text((Path(tmp) / "maui.cfg").read_text() + text)
        argv = [sys.executable, "-m", "maui_py", "showq", "-c", str(cfg), "--store", str(db)]
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(argv, check=True, capture_output=True)
            times.append(time.perf_counter() - start)
        return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="profile the first case")
    parser.add_argument("--showq", action="store_true", help="also time showq with the N-user file")
    args = parser.parse_args()
    texts = cases(args.users)
    if args.profile:
        cProfile.runctx("parse_config(text)", globals(), {"text": next(iter(texts.values()))}, "/tmp/cfg.prof")
        pstats.Stats("/tmp/cfg.prof").sort_stats("cumulative").print_stats(25)
        return 0
    print(f"{'case':<32} {'lines':>7} {'best s':>8} {'ms/line':>8}")
    for name, text in texts.items():
        lines = text.count("\n")
        seconds = best(text, args.runs)
        print(f"{name:<32} {lines:>7} {seconds:>8.2f} {seconds / lines * 1000:>8.3f}")
    if args.showq:
        seconds = showq_seconds(next(iter(texts.values())), args.runs)
        print(f"{'showq -c (N-user file)':<32} {args.users:>7} {seconds:>8.2f}")
    print(f"goal: {args.users} credential lines in under {GOAL:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
