"""Where a MAUICOMPAT 3.3 replay under RESERVATIONPOLICY HIGHEST spends its work, in counts
(not wall clock): one compat_evidence row replayed with sim/engine._Turn, policy/highest._slide
and planning/mrlmerge wrapped. Prints the counters as JSON and, with --out, writes every
job's start and nodes (SimRecord.runs) too, to compare two versions job for job.

Counters: cycles at events and cycles each second (turning), kept reservations summed over
cycles (R), re-makes and those that moved, literal merges and sweeps, rounds found (by
period), rounds given up by the guard (8 + 4R cycles), probes that moved nothing, and the
rounds' seconds left out (jumps). Episodes (an event cycle and the turning cycles after it)
are summed by how they ended: period found, stopped, or cut by the next event.

    python benchmarks/turn_counts.py HPC2N 1000 fcfs-cons --out /tmp/hpc2n.json
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compat_evidence  # noqa: E402


def instrument(counts: collections.Counter, episodes: collections.defaultdict) -> None:
    """Wrap the replay's steps with counters (module attributes: read at call time)."""
    from maui_py.planning import mrlmerge
    from maui_py.policy import highest
    from maui_py.sim import engine

    turn, slide, merge, sweep = engine._Turn.after, highest._slide, mrlmerge.merge, mrlmerge.sweep
    current = {"ep": None}

    def after(self, t, reservations, turning):
        r = len(reservations)
        counts["cycles_turning" if turning else "cycles_event"] += 1
        counts["R_sum"] += r
        counts["R_max"] = max(counts["R_max"], r)
        seen, had = len(self.seen), self.period
        if not turning:
            _close(current, episodes, "cut by the next event")
            current["ep"] = [0, 0]
        else:
            current["ep"][0] += 1
            current["ep"][1] += r
        turn(self, t, reservations, turning)
        if self.period and not had:
            counts["rounds_found"] += 1
            counts[f"period {self.period}"] += 1
            _close(current, episodes, "period found")
        elif turning and not self.moving and not self.period:
            counts["guard" if seen > 8 + 4 * r else "stopped"] += 1
            _close(current, episodes, "guard" if seen > 8 + 4 * r else "stopped")

    def jumped(self, t, kept, _orig=engine._Turn.jumped):
        counts["jumps"] += 1
        _orig(self, t, kept)

    def counted_slide(*a):
        counts["remakes"] += 1
        moved = slide(*a)
        counts["remakes_moved"] += bool(moved)
        return moved

    def counted(name, f):
        def g(*a):
            counts[name] += 1
            return f(*a)
        return g

    engine._Turn.after, engine._Turn.jumped = after, jumped
    highest._slide = counted_slide
    mrlmerge.merge = counted("literal_merges", merge)
    mrlmerge.sweep = counted("sweeps", sweep)


def _close(current: dict, episodes, how: str) -> None:
    """End the open episode (an event cycle and its turning cycles) as `how`."""
    ep = current["ep"]
    if ep is not None and ep[0]:
        row = episodes[how]
        row[0] += 1
        row[1] += ep[0]
        row[2] += ep[1]
    current["ep"] = None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace", choices=sorted(compat_evidence.TRACE_FILES))
    ap.add_argument("jobs", type=int)
    ap.add_argument("policy", choices=sorted(compat_evidence.POLICIES))
    ap.add_argument("--rules", choices=compat_evidence.RULES, default="maui33")
    ap.add_argument("--out", type=Path, help="write the counts and every job's start and nodes here")
    args = ap.parse_args(argv)
    counts: collections.Counter = collections.Counter()
    episodes: collections.defaultdict = collections.defaultdict(lambda: [0, 0, 0])
    instrument(counts, episodes)
    t0 = time.process_time()
    row, records = compat_evidence.replay(args.trace, args.jobs, args.policy, args.rules,
                                          keep_records=True)
    counts["cpu_s_with_counters"] = round(time.process_time() - t0, 1)
    out = {"row": row, "counts": dict(counts),
           "episodes (count, turning cycles, re-makes)": dict(episodes)}
    print(json.dumps(out, indent=1))
    if args.out:
        out["starts"] = {jid: [r.start, list(r.runs)] for jid, r in sorted(records.items())}
        compat_evidence.write_cached(args.out, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
