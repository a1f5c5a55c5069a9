"""Why Maui 3.3's conservative schedules better on KTH: per-class waits and broken promises.

One replay of a trace prefix (FCFS conservative as benchmarks/compat_evidence.py writes it,
or with lines added), under the default rules, Maui 3.3's node rules with maui-py's HIGHEST
(core/compat.MAUI33, `--rules maui33`) or MAUICOMPAT 3.3 (MAUI33_HIGHEST, `--rules 3.3`).
It prints BSLD and mean wait over all jobs, then per class of requested wallclock
(15 min, 1 h, 4 h) the jobs, their mean wait and BSLD, and the promises broken: jobs that
started after the start their first priority reservation gave them (conservative
backfilling's guarantee, which the default keeps and Maui's own HIGHEST re-make does not:
docs/compatibility.md, "Why MAUICOMPAT 3.3 wins on KTH"), with their total delay.

    python benchmarks/kept_promises.py KTH --jobs 2000 --rules 3.3
    python benchmarks/kept_promises.py KTH --jobs 2000 --skip 2000 --rules maui33
    python benchmarks/kept_promises.py KTH --jobs 2000 \\
        --set "RESERVATIONPOLICY CURRENTHIGHEST" --set "XFACTORWEIGHT 100"

Cost: the replay's (MAUICOMPAT 3.3 on 2,000 KTH jobs: about 180 CPU s), plus reading
every cycle's Reserve decisions (the replay then runs every cycle, leave_idle off).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import compat_evidence as ce  # noqa: E402

CLASSES = (("<=0:15:00", 900), ("<=1:00:00", 3600), ("<=4:00:00", 14400), (">4:00:00", None))
"""Requested-wallclock classes: a name and the largest wallclock it holds (None: any)."""
BSLD_BOUND = 10


class Promise:
    """A job's first priority reservation start, its latest, and how often it moved later.
    (A plain class: the tests load this script without registering it as a module, which
    a dataclass needs.)"""

    __slots__ = ("first", "last", "later")

    def __init__(self, first: int, last: int, later: int = 0):
        self.first, self.last, self.later = first, last, later


def watch(promises: dict[str, Promise]):
    """An on_cycle callback noting every job's first reserved start and each later move. O(R)."""
    from maui_py.model.decision import Reserve

    def on_cycle(_t, res) -> None:
        for d in res.decisions:
            if not isinstance(d, Reserve):
                continue
            p = promises.get(d.job_id)
            if p is None:
                promises[d.job_id] = Promise(d.start, d.start)
                continue
            if d.start > p.last:
                p.later += 1
            p.last = d.start
    return on_cycle


def bsld(submit: int, start: int, runtime: int) -> float:
    """Bounded slowdown (10 s bound), as sim/metrics computes it."""
    return max(1.0, (start - submit + runtime) / max(runtime, BSLD_BOUND))


def class_of(wallclock: int) -> str:
    for name, top in CLASSES:
        if top is None or wallclock <= top:
            return name
    raise AssertionError("the last class holds any wallclock")


def summary(jobs: list[tuple[str, int, int, int, int]], promises: dict[str, Promise]) -> dict:
    """jobs: (id, submit, start, runtime, wallclock) of jobs that ran. The figures printed.
    O(jobs)."""
    out: dict = {"jobs": len(jobs)}
    n = max(len(jobs), 1)
    out["bsld"] = round(sum(bsld(s, b, r) for _, s, b, r, _ in jobs) / n, 2)
    out["wait_mean"] = round(sum(b - s for _, s, b, _, _ in jobs) / n, 1)
    classes = {}
    for name, _top in CLASSES:
        sel = [j for j in jobs if class_of(j[4]) == name]
        k = max(len(sel), 1)
        classes[name] = {"jobs": len(sel),
                         "wait_mean": round(sum(b - s for _, s, b, _, _ in sel) / k, 1),
                         "bsld": round(sum(bsld(s, b, r) for _, s, b, r, _ in sel) / k, 2)}
    out["classes"] = classes
    broken = [(jid, b - promises[jid].first) for jid, _, b, _, _ in jobs
              if jid in promises and b > promises[jid].first]
    out["reserved"] = sum(1 for j in jobs if j[0] in promises)
    out["promises_broken"] = len(broken)
    out["broken_delay_s"] = sum(d for _, d in broken)
    out["moves_later"] = sum(p.later for p in promises.values())
    out["worst"] = sorted(broken, key=lambda x: (-x[1], x[0]))[:5]
    return out


RULES = {"default": None, "maui33": "MAUI33", "3.3": "MAUI33_HIGHEST"}


def replay(trace: str, jobs: int | None, skip: int, rules: str, extra: list[str]) -> dict:
    """One replay of jobs skip .. skip+jobs of `trace` (cleaned as maui-sim reads it): its
    summary. `rules`: a key of RULES; `extra`: configuration lines added."""
    from maui_py.cfg import load_config
    from maui_py.cfg.choices import MauiCompat
    from maui_py.cli.simulate import add_arguments, load_workload
    from maui_py.core import compat
    from maui_py.sim.engine import SimOptions, Simulation

    p = argparse.ArgumentParser()
    add_arguments(p)
    args = p.parse_args(ce.sim_argv(trace, (jobs + skip) if jobs else None))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w = load_workload(args, args.words[0] if args.words else None)
    text = ce.config_text("fcfs-cons", "maui33" if RULES[rules] else "default")
    text += "".join(line + "\n" for line in extra)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kept.cfg"
        path.write_text(text)
        cfg = load_config(path)
    saved = dict(compat.COMPAT_RULES)
    if RULES[rules]:
        compat.COMPAT_RULES[MauiCompat("3.3")] = getattr(compat, RULES[rules])
    promises: dict[str, Promise] = {}
    try:
        sims = sorted(w.jobs, key=lambda s: (s.job.submit_time, s.job.id))[skip:]
        result = Simulation(w.nodes, sims, cfg, SimOptions(on_cycle=watch(promises))).run()
    finally:
        compat.COMPAT_RULES.clear()
        compat.COMPAT_RULES.update(saved)
    ran = [(jid, r.job.submit_time, r.start, r.runtime, r.job.wallclock)
           for jid, r in result.records.items() if r.start is not None]
    return summary(ran, promises)


def render(out: dict) -> str:
    """The summary as a person reads it: waits and delays as durations."""
    d = ce.duration
    lines = [f"jobs {out['jobs']}  BSLD {out['bsld']:.2f}  mean wait {d(out['wait_mean'])}",
             "requested wallclock   jobs  mean wait      BSLD"]
    for name, c in out["classes"].items():
        lines.append(f"{name:<20}{c['jobs']:>6}  {d(c['wait_mean']):>10}  {c['bsld']:>8.2f}")
    lines.append(f"reserved {out['reserved']}; started after their first reserved start "
                 f"{out['promises_broken']}, delayed {d(out['broken_delay_s'])} in all; "
                 f"reservation moves later {out['moves_later']}")
    lines += [f"  job {jid}: {d(delay)} after its first reserved start"
              for jid, delay in out["worst"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace", help="KTH, SDSC, CTC, HPC2N (../shared/traces) or a path")
    ap.add_argument("--jobs", type=int, default=2000, help="jobs replayed (0: all)")
    ap.add_argument("--skip", type=int, default=0, help="jobs left out before them")
    ap.add_argument("--rules", choices=sorted(RULES), default="default")
    ap.add_argument("--set", action="append", default=[], metavar="LINE",
                    help="a configuration line added to FCFS conservative")
    ap.add_argument("--json", action="store_true", help="the figures as JSON (seconds)")
    a = ap.parse_args(argv)
    out = replay(a.trace, a.jobs or None, a.skip, a.rules, a.set)
    print(json.dumps(out) if a.json else render(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
