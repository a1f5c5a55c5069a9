"""The importer's fits() check on the site benchmark's month, before and after node classes
(issue 33: 110 s a month when each job was checked against every node).

Before: the per-node definition (kept here as it was), timed on --sample jobs and scaled to
the month; after: importers.replay.replay_input's check over every job (NodeClasses built
once), and the whole cut (replayable + to_sim_jobs + check). CPU seconds (process_time).
Usage: fit_check.py SITE_DIR [--sample N]   (SITE_DIR from generate.py)
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from maui_py.sim.importers import load_workload                      # noqa: E402
from maui_py.sim.importers.fit import NodeClasses, fits_node_by_node  # noqa: E402
from maui_py.sim.importers.nodes import read_cluster                  # noqa: E402
from maui_py.sim.importers.replay import replay_input                 # noqa: E402
from maui_py.sim.importers.workload import replayable, to_sim_jobs    # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("site", type=Path)
    p.add_argument("--sample", type=int, default=5000)
    a = p.parse_args(argv)
    t = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w = load_workload([a.site / "sacct.txt"], "sacct")
    w.nodes = read_cluster(a.site / "cluster.txt")
    t_read = time.process_time() - t
    jobs, _ = replayable(w)
    sims = to_sim_jobs(jobs)
    step = max(1, len(sims) // a.sample)
    sample = sims[::step][: a.sample]
    t = time.process_time()
    before = [fits_node_by_node(s.job, w.nodes) for s in sample]
    t_before = (time.process_time() - t) / len(sample) * len(sims)
    t = time.process_time()
    classes = NodeClasses(w.nodes)
    after = [classes.fits(s.job) for s in sims]
    t_after = time.process_time() - t
    assert before == after[::step][: a.sample], "node classes disagree with the per-node check"
    t = time.process_time()
    cut = replay_input(w)
    t_cut = time.process_time() - t
    print(f"{len(w.nodes)} nodes in {len(classes.classes)} classes, {len(sims)} replayable jobs "
          f"({len(cut.sims)} fit), read in {t_read:.1f} s CPU")
    print(f"fits, per node (before): {t_before:.1f} s CPU for the month "
          f"({t_before / len(sims) * 1000:.3f} ms a job, {len(sample)} jobs timed)")
    print(f"fits, node classes (after): {t_after:.3f} s CPU "
          f"({t_after / len(sims) * 1e6:.1f} us a job)")
    print(f"replay_input (replayable + to_sim_jobs + fits): {t_cut:.1f} s CPU")


if __name__ == "__main__":
    main()
