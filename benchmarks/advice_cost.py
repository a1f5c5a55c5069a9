"""What counterfactual advice costs (issue 36, item 4): a generated site's sacct log
(benchmarks/site/generate.py) replayed under a configuration until the first cycle at or
after --at hours with at least --depth queued jobs; there, `checkjob`'s advice for the first
--jobs queued jobs, each in CPU seconds
(time.process_time) beside one cycle from the same moment with cold caches (what one
start-now question costs), with its replays, their cycles and the planner questions.

Usage: python benchmarks/advice_cost.py SITE_DIR [--config config/easy.cfg] [--at H]
[--depth N] [--jobs N]. Prints one line per job, then the median and the largest.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from maui_py.advice import Situation, advise, start_of        # noqa: E402
from maui_py.cfg import load_config                           # noqa: E402
from maui_py.forecast.engine import Moment                    # noqa: E402
from maui_py.model.times import duration                      # noqa: E402
from maui_py.sim.engine import SimOptions, Simulation         # noqa: E402
from maui_py.sim.importers.replay import read_site_log, replay_input   # noqa: E402


class _Stop(Exception):
    pass


def moment(site: Path, cfg_path: str, at_hours: float, depth: int) -> Situation:
    workload, _caught = read_site_log([site / "sacct.txt"], "sacct", site / "cluster.txt")
    cut = replay_input(workload)
    cfg = load_config(cfg_path)
    first = min(s.job.submit_time for s in cut.sims)
    got: list[Situation] = []
    sim: Simulation

    def on_cycle(t: int, result) -> None:
        if t < first + at_hours * 3600:
            return
        live = sim.rm.live()
        if sum(1 for j in live if not j.state.active) >= depth:
            got.append(Situation(Moment(t, sim.nodes, live), cfg, result.state))
            raise _Stop

    sim = Simulation(workload.nodes, cut.sims, cfg, SimOptions(on_cycle=on_cycle, cycle_reserves=False))
    try:
        sim.run()
    except _Stop:
        pass
    if not got:
        raise SystemExit("no such moment")
    return got[0]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("--config", default=str(ROOT / "config" / "easy.cfg"))
    ap.add_argument("--at", type=float, default=12.0)
    ap.add_argument("--depth", type=int, default=50)
    ap.add_argument("--jobs", type=int, default=20, help="advise the first N queued jobs")
    args = ap.parse_args(argv)
    sit = moment(args.site, args.config, args.at, args.depth)
    queued = [j for j in sit.moment.jobs if not j.state.active]
    running = len(sit.moment.jobs) - len(queued)
    print(f"moment {sit.now}: {len(sit.moment.nodes)} nodes, {running} running, {len(queued)} queued")
    held = {j.id for j in queued if j.holds or j.id in sit.state.batch_holds}
    if held:
        print(f"{len(held)} held jobs left out, e.g. {sorted(held)[0]}: "
              f"{sit.state.batch_holds.get(sorted(held)[0], 'hold')}")
    queued = [j for j in queued if j.id not in held]
    t = time.process_time()
    start_of(sit, queued[0], sit.now)
    one = time.process_time() - t
    print(f"one start-now question (one cycle, cold caches): {one:.3f} CPU s")
    costs = []
    for job in queued[:args.jobs]:
        t = time.process_time()
        got = advise(sit, job.id)
        cpu = time.process_time() - t
        costs.append((cpu, got.replays))
        kinds = ", ".join(f"{a.change} {a.value if a.change != 'walltime' else duration(a.value)}"
                          + ("" if a.change == "waits" else f" @+{duration(a.start - sit.now)}")
                          for a in got.advice)
        print(f"job {job.id} ({job.procs} procs, {duration(job.wallclock)}): {cpu:.2f} CPU s = "
              f"{cpu / one:.1f} cycles' worth; {got.replays} replays, {got.cycles} cycles, "
              f"{got.planner_questions} planner questions; {kinds}")
    cpu = sorted(c for c, _r in costs)
    print(f"{len(costs)} jobs: median {cpu[len(cpu) // 2]:.2f} CPU s, max {cpu[-1]:.2f}, "
          f"total {sum(cpu):.2f}; replays median {sorted(r for _c, r in costs)[len(costs) // 2]}, "
          f"max {max(r for _c, r in costs)}")

if __name__ == "__main__":
    main()
