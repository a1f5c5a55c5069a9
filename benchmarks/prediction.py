"""maui-py against the published EASY, EASY-SJBF and EASY++ figures (issue 17).

Replays KTH-SP2, CTC-SP2 and SDSC-SP2 from ../shared/traces as the published runs did
(Gaussier, Glesser, Reis and Trystram SC'15, the pyss-based simulator in jad-darrous/predictsim):
FCFS priority, one processor per node, the standard cleaning with processors taken from the
requested field first and the request as the estimate (runtime cut at the request), under
three configurations:

    EASY      RESERVATIONDEPTH 1, BACKFILLPOLICY FIRSTFIT
    EASY-SJBF + BFPRIORITYPOLICY DURATION           (backfill shortest request first)
    EASY++    + PREDICTIONPOLICY USERAVERAGE         (the user's last two runtimes, corrected
                                                      to the request; backfill shortest first)

in both event semantics: one cycle per submission and per job end, submissions first
(--per-event, as pyss) and one cycle per time (Maui's iteration). Prints per trace and
configuration the average bounded slowdown (10 s), the published figure and the difference,
and for EASY++ the prediction quality. Prints figures; asserts nothing.

    python benchmarks/prediction.py                      # all three traces, both semantics
    python benchmarks/prediction.py --trace KTH --mode per-event
    python benchmarks/prediction.py --against-oracle     # and job for job against the oracle
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
PUBLISHED = {   # avgbsld in predictsim's experiments/data/<trace>/sim_analysis/metrics*
    "KTH-SP2-1996-2.1-cln.swf.gz": (92.5765, 69.4054, 62.8569),
    "CTC-SP2-1996-3.1-cln.swf.gz": (49.5713, 30.0411, 26.5338),
    "SDSC-SP2-1998-4.2-cln.swf.gz": (87.8703, 84.8889, 65.0636),
}
BASE = "QUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\nNODEALLOCATIONPOLICY LASTAVAILABLE\n"
CONFIGS = (("EASY", BASE),
           ("EASY-SJBF", BASE + "BFPRIORITYPOLICY DURATION\n"),
           ("EASY++", BASE + "BFPRIORITYPOLICY DURATION\nPREDICTIONPOLICY USERAVERAGE\n"))


ORACLE_VARIANTS = ("easy", "sjbf", "easypp")
"""benchmarks/predict_reference.py's names of the three configurations, in CONFIGS' order."""


def oracle_starts(trace: Path, k: int, per_event: bool) -> dict[str, int]:
    """The independent oracle's start times of configuration k on the same trace."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import predict_reference as oracle
    jobs, size = oracle.read_jobs(str(trace))
    starts, _quality = oracle.simulate(jobs, size, ORACLE_VARIANTS[k], batched=not per_event)
    return {str(j): t for j, t in starts.items()}


def replay(trace: Path, text: str, per_event: bool):
    from maui_py.cfg import parse_config
    from maui_py.model import Node, Resources
    from maui_py.sim.engine import SimOptions, Simulation
    from maui_py.sim.metrics import figures
    from maui_py.sim.swf import clean, read_swf, to_sim_jobs

    header, records = read_swf(trace)
    procs = header.max_procs or header.max_nodes
    kept, _report = clean(records, procs, processors="requested")
    nodes = tuple(Node(f"n{i}", Resources.of(1)) for i in range(procs))
    c0 = time.process_time()
    res = Simulation(nodes, to_sim_jobs(kept), parse_config(text), SimOptions(per_event=per_event)).run()
    cpu = time.process_time() - c0
    assert res.check.ok, res.check.violations[:3]
    return figures(res.records.values(), procs), cpu, {j: r.start for j, r in res.records.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", action="append", help="a prefix of a trace name (default: all three)")
    ap.add_argument("--mode", choices=("per-event", "per-time", "both"), default="both")
    ap.add_argument("--against-oracle", action="store_true",
                    help="also count the jobs whose start differs from benchmarks/predict_reference.py's "
                         "(run the same way: per event, or batched per time)")
    args = ap.parse_args()
    traces = [t for t in PUBLISHED if not args.trace or any(t.startswith(p) for p in args.trace)]
    modes = {"per-event": (True,), "per-time": (False,), "both": (True, False)}[args.mode]
    if not TRACES.is_dir():
        print(f"no traces at {TRACES}", file=sys.stderr)
        return 2
    print(f"{'trace':14s} {'events':9s} {'config':10s} {'bsld':>7s} {'published':>9s} {'diff %':>7s} "
          f"{'cpu s':>6s}  prediction: mae s, under, over, corrections")
    for trace in traces:
        for per_event in modes:
            for k, (name, text) in enumerate(CONFIGS):
                f, cpu, starts = replay(TRACES / trace, text, per_event)
                pub = PUBLISHED[trace][k]
                tail = (f"  {f.pred_mae:.0f}, {f.pred_under:.3f}, {f.pred_over:.3f}, {f.corrections}"
                        if f.predicted else "")
                if args.against_oracle:
                    other = oracle_starts(TRACES / trace, k, per_event)
                    differ = sum(1 for j, t in starts.items() if other.get(j) != t)
                    tail += f"  starts differing from the oracle: {differ} of {len(starts)}"
                print(f"{trace.split('-1')[0]:14s} {'per-event' if per_event else 'per-time':9s} "
                      f"{name:10s} {f.bsld_mean:7.2f} {pub:9.2f} {100 * (f.bsld_mean - pub) / pub:+7.2f} "
                      f"{cpu:6.1f}{tail}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
