"""What a switch is worth on benchmarks/cycle.py's first cycle (issue 33). Prints figures;
asserts nothing.

A shortcut stays only if it saves CPU (docs/algorithms.md: each has a switch that turns it
off). Two processes timed one after the other on a shared machine differ by more than most
shortcuts save; here the same snapshot's first cycle runs with the switch on and off in
one process, alternated (on, off, then off, on, ...), `--rounds` times each, with the
garbage collector paused as mauid runs cycles. Prints, per configuration, the median CPU
seconds (process_time) on and off, their ratio, and each side's decisions digest
(benchmarks/cycle.py's --hash): a shortcut must leave them equal.

    python benchmarks/switch_ab.py maui_py.planning.scan:Scanning:use_last [--rounds 5]
        [--on True --off False] [any benchmarks/cycle.py argument: --depth 1 1000, --large]

The switch is module:Class:attribute (module::attribute for a module's own); --on and --off
are Python literals (default True and False).
"""

from __future__ import annotations

import argparse
import ast
import gc
import importlib
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cycle  # noqa: E402

from maui_py.core import gcpause  # noqa: E402


def _owner(path: str) -> tuple[object, str]:
    """(the module or class holding the switch, its attribute name) of module:Class:attr."""
    mod, cls, attr = path.split(":")
    owner = importlib.import_module(mod)
    if cls:
        owner = getattr(owner, cls)
    getattr(owner, attr)                    # AttributeError for a switch that is not there
    return owner, attr


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("switch", help="module:Class:attribute, or module::attribute")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--on", type=ast.literal_eval, default=True)
    ap.add_argument("--off", type=ast.literal_eval, default=False)
    args = cycle.parse_args(ap=ap)
    owner, attr = _owner(args.switch)
    kept = getattr(owner, attr)
    snap, _jobs = cycle.snapshot(args)
    print(f"{len(snap.nodes)} nodes, {len(snap.jobs)} jobs; {args.switch} on = {args.on!r}, "
          f"off = {args.off!r}; medians of {args.rounds} first cycles each, CPU s")
    print(f"{'policy':>9} {'depth':>6} {'on':>7} {'off':>7} {'on/off':>7} "
          f"{'decisions on':>16} {'decisions off':>16}")
    try:
        for policy in args.policy:
            for depth in args.depth:
                cfg = cycle.config(policy, depth)
                cpu: dict[bool, list[float]] = {True: [], False: []}
                digests: dict[bool, set[str]] = {True: set(), False: set()}
                for r in range(args.rounds):
                    for on in ((True, False) if r % 2 == 0 else (False, True)):
                        setattr(owner, attr, args.on if on else args.off)
                        gc.collect()
                        with gcpause.paused():
                            c0 = time.process_time()
                            res = cycle.run_cycle(snap, cfg, explain=False)
                            cpu[on].append(time.process_time() - c0)
                        digests[on].add(cycle.digest(res.decisions))
                        del res
                a, b = statistics.median(cpu[True]), statistics.median(cpu[False])
                print(f"{policy:>9} {depth:>6} {a:7.3f} {b:7.3f} {a / b:7.3f} "
                      f"{','.join(sorted(digests[True])):>16} "
                      f"{','.join(sorted(digests[False])):>16}", flush=True)
    finally:
        setattr(owner, attr, kept)
    return 0


if __name__ == "__main__":
    sys.exit(main())
