"""Where the first cycle of benchmarks/cycle.py spends its CPU, by named step (issue 33).
Prints figures; not a test.

cProfile charges a fixed cost to every Python call, so it inflates the steps made of many
small calls (on the depth-1 first cycle it gave Compiling._keyed_now 22 % of the time;
measured here, 13 %). Here each named step is wrapped in a timer of process CPU time
(time.process_time: what a busy machine does not inflate), counted only inside the first
cycle of each configuration, and reported as CPU seconds, share of the cycle and calls.
Steps nest (fits_now holds last_now, which holds _keyed_now): shares do not add up. The
timers cost about 1 us a call (some 0.04 s on the depth-1 first cycle's 40,000 timed
calls), charged to the cycle and to the steps that hold the timed ones.

    python benchmarks/phases.py [any benchmarks/cycle.py arguments]

runs benchmarks/cycle.py with those arguments (its own table first), then prints one
breakdown per first cycle. Against another checkout: PYTHONPATH=/that/checkout (a step
that checkout lacks is left out and named).
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

STEPS = (
    ("maui_py.core.cycle", None, "run_cycle"),
    ("maui_py.planning.sync", None, "sync_table"),
    ("maui_py.core.firstselect", None, "first_select"),
    ("maui_py.policy.priority_pass", None, "priority_pass"),
    ("maui_py.core.cycle", "Cycle", "fits_now"),
    ("maui_py.core.cycle", "Cycle", "start"),
    ("maui_py.planning.table", "ReservationTable", "earliest_start"),
    ("maui_py.planning.table", "ReservationTable", "reserve_placement"),
    ("maui_py.planning.lastnow", None, "last_now"),
    ("maui_py.planning.compiling", "Compiling", "_keyed_now"),
    ("maui_py.planning.nodechoice", None, "take_last_now"),
    ("maui_py.planning.firstnow", None, "now_sets"),
    ("maui_py.planning.freeshape", "FreeShapes", "cannot_start"),
    ("maui_py.planning.scan", "Scanning", "scan"),
)
"""(module, class or None, function) of each step timed."""

_totals: dict[str, list] = {}
_first = [False]        # inside a first cycle


def _timed(f, name: str):
    """`f` adding its CPU time and a call to `name`'s total while a first cycle runs."""
    def timed(*args, **kwargs):
        if not _first[0]:
            return f(*args, **kwargs)
        t0 = time.process_time()
        try:
            return f(*args, **kwargs)
        finally:
            got = _totals.setdefault(name, [0.0, 0])
            got[0] += time.process_time() - t0
            got[1] += 1
    return timed


def install() -> list[str]:
    """Wrap every step of STEPS in its module or class, and rebind the module-level ones
    in every maui_py module that imported them by name; returns the steps not found."""
    missing, swapped = [], {}
    for mod, cls, name in STEPS:
        try:
            owner = importlib.import_module(mod)
            if cls is not None:
                owner = getattr(owner, cls)
            f = getattr(owner, name)
        except (ImportError, AttributeError):
            missing.append(f"{mod}.{cls + '.' if cls else ''}{name}")
            continue
        setattr(owner, name, _timed(f, name))
        if cls is None:
            swapped[id(f)] = (f, getattr(owner, name))
    for m in list(sys.modules.values()):
        if m is not None and getattr(m, "__name__", "").startswith("maui_py"):
            for k, v in list(vars(m).items()):
                if id(v) in swapped and swapped[id(v)][0] is v:
                    setattr(m, k, swapped[id(v)][1])
    return missing


def main() -> int:
    import cycle                                    # benchmarks/cycle.py
    missing = install()
    inner = cycle.run_cycle
    calls = [0]
    reports = []

    def run_cycle(*args, **kwargs):
        """cycle.py runs three cycles per configuration; the first is the one timed."""
        first = calls[0] % 3 == 0
        calls[0] += 1
        if not first:
            return inner(*args, **kwargs)
        _totals.clear()
        _first[0] = True
        t0 = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            _first[0] = False
            total = time.process_time() - t0
            reports.append((args[1], total, dict(_totals)))

    cycle.run_cycle = run_cycle
    sys.argv = ["cycle.py"] + sys.argv[1:]
    code = cycle.main()
    for cfg, total, steps in reports:
        print(f"\nfirst cycle ({cfg.get('BACKFILLPOLICY')}, RESERVATIONDEPTH "
              f"{cfg.get('RESERVATIONDEPTH')}): {total:.3f} CPU s")
        print(f"{'step':>20} {'cpu s':>7} {'share':>6} {'calls':>7}")
        for name, (cpu, n) in sorted(steps.items(), key=lambda kv: -kv[1][0]):
            if name != "run_cycle":
                print(f"{name:>20} {cpu:7.3f} {100 * cpu / total:5.1f}% {n:>7}")
    if missing:
        print("not in this checkout:", ", ".join(missing))
    return code


if __name__ == "__main__":
    sys.exit(main())
