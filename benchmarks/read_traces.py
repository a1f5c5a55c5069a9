"""Print read, clean and to_sim_jobs times and job counts for each trace in ../shared/traces.

Usage: python benchmarks/read_traces.py [TRACES_DIR]   (figures only; not a test)
A trace without a requested time (lublin_256) is cleaned with keep_no_estimate.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from maui_py.sim.swf import clean, read_swf, to_sim_jobs

DEFAULT_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "traces"


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else DEFAULT_DIR
    paths = sorted(folder.glob("*.swf*"))
    if not paths:
        print(f"no traces in {folder}", file=sys.stderr)
        return 1
    print(f"{'trace':34} {'jobs':>8} {'kept':>8} {'procs':>7} {'read s':>7} {'clean s':>8} "
          f"{'to_sim_jobs s':>13}")
    for path in paths:
        t0 = time.perf_counter()
        header, records = read_swf(path)
        t1 = time.perf_counter()
        procs = header.max_procs or header.max_nodes or max(r.procs for r in records)
        no_estimates = all(r.req_time <= 0 for r in records)
        kept, report = clean(records, procs, keep_no_estimate=no_estimates)
        t2 = time.perf_counter()
        to_sim_jobs(kept)
        t3 = time.perf_counter()
        print(f"{path.name:34} {len(records):8d} {len(kept):8d} {procs:7d} "
              f"{t1 - t0:7.2f} {t2 - t1:8.2f} {t3 - t2:13.2f}")
        print(f"    {report.summary()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
