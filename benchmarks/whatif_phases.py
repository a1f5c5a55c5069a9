"""What a what-if costs outside the scheduler's cycle (issue 33), on a site of
benchmarks/site/generate.py: reading the sacct log and the cluster, the importer's cut and
its fits() check, the plan, converting the plan's jobs for the replays (once per what-if
now, once per run before), shaking; with --run I, run I of the plan (2 configs: easy.cfg,
conservative.cfg) with the collector as the engine leaves it and paused for the replay
(whatif_runner.run_quietly), alternated --rounds times. CPU seconds (process_time).

    python benchmarks/whatif_phases.py SITE_DIR [--run 0 --rounds 2]

Run another checkout's code with PYTHONPATH=CHECKOUT (the phases it lacks are left out).
"""

import argparse
import gc
import json
import resource
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _phases(site: Path) -> tuple[dict, dict]:
    from maui_py.cfg.loader import read_config_text
    from maui_py.sim.importers import load_workload
    from maui_py.sim.importers.fit import NodeClasses
    from maui_py.sim.importers.nodes import read_cluster
    from maui_py.sim.importers.replay import replay_input
    from maui_py.sim.importers.workload import job_from_dict, to_sim_jobs
    from maui_py.sim.shake import ShakeSpec, shake
    from maui_py.sim.whatif import ConfigVariant, make_plan
    out: dict = {}

    def lap(name, t0):
        out[name] = round(time.process_time() - t0, 3)
        return time.process_time()
    t = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w = load_workload([site / "sacct.txt"], "sacct")
    w.nodes = read_cluster(site / "cluster.txt")
    t = lap("read log and cluster", t)
    cut = replay_input(w, True)
    t = lap("cut (replayable, sim jobs, fits)", t)
    classes = NodeClasses(w.nodes)
    sum(classes.fits(s.job) for s in cut.sims)
    t = lap("fits by node class", t)
    variants = [ConfigVariant(str(p), read_config_text(p))
                for p in (ROOT / "config" / "easy.cfg", ROOT / "config" / "conservative.cfg")]
    plan = make_plan(w, variants, shakes=2, seed=1)
    t = lap("make_plan", t)
    wjobs = [job_from_dict(j) for j in plan["jobs"]]
    sims = to_sim_jobs(wjobs)
    t = lap("plan jobs -> sim jobs", t)
    shake(sims, ShakeSpec(), 1, 0)
    lap("shake one run", t)
    out["jobs"] = len(plan["jobs"])
    return out, plan


def _runs(plan: dict, index: int, rounds: int) -> dict:
    """Run `index` plain (the collector as the engine leaves it) and paused, alternated."""
    from maui_py.sim import whatif
    try:
        from maui_py.sim.whatif_runner import run_quietly
    except ImportError:
        run_quietly = None
    out: dict = {"plain": [], "paused": []}
    inputs = whatif.prepare(plan) if hasattr(whatif, "prepare") else None
    for _ in range(rounds):
        for mode in ("plain", "paused"):
            if mode == "paused" and run_quietly is None:
                continue
            gc.collect()
            t = time.process_time()
            if mode == "plain":
                r = whatif.run_one(plan, index)
            else:
                r = run_quietly(plan, inputs, index)
            out[mode].append(round(time.process_time() - t, 2))
            out.setdefault("wait", r["measure"]["total"]["wait"])
    out["peak RSS MB"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("site", type=Path)
    p.add_argument("--run", type=int, help="also time this run of the plan (0-3)")
    p.add_argument("--rounds", type=int, default=1)
    a = p.parse_args(argv)
    out, plan = _phases(a.site)
    if a.run is not None:
        out["run"] = _runs(plan, a.run, a.rounds)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
