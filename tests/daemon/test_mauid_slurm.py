"""mauid driving a real Slurm 22.05 (4 nodes x 8 CPUs, fast/slow, gpu:2 on node4).

Every job enters Slurm held; mauid is the only thing that starts jobs. Run with `-s` to
see the measured cycle times and release-to-RUNNING latencies.
"""

from __future__ import annotations

import statistics
import time

import pytest

from maui_py.store import StoreReader

from .harness import (MauidProcess, SlurmWatch, by_job, check_easy_stream, check_ran_where_told, final_jobs,
                      journal, wait_for, write_config)

pytestmark = pytest.mark.slurm

EASY = """\
RESERVATIONDEPTH   1
RESERVATIONPOLICY  CURRENTHIGHEST
BACKFILLPOLICY     FIRSTFIT
"""

# (count, sbatch arguments, seconds of sleep); every small job asks for 1 minute.
SMALL = [
    (10, ["-n", "1"], 2),
    (5, ["-n", "2", "-C", "fast"], 3),
    (5, ["-n", "2", "-C", "slow"], 2),
    (4, ["--gres=gpu:1", "-n", "1"], 3),
    (4, ["--mem=2000", "-n", "1"], 2),
    (3, ["-N", "2", "-n", "2"], 3),
    (3, ["-N", "3", "-n", "3"], 2),
    (2, ["-p", "debug", "-n", "1"], 2),
]


def submit_all(slurm, shapes, extra=()):
    ids = []
    for count, args, sleep in shapes:
        for _ in range(count):
            ids.append(slurm.submit([*args, "-t", "1", *extra], script=f"sleep {sleep}"))
    return ids


def test_mixed_workload_under_easy_backfill(slurm, tmp_path):
    cfg = write_config(tmp_path, slurm, EASY)
    # Four long jobs (4 CPUs each, 2 minutes asked, 12 s used) make the wide job wait; it
    # asks for 6 CPUs on every node and gets a reservation; the small jobs that follow may
    # only backfill around it.
    longs = [slurm.submit(["-n", "4", "--ntasks-per-node=4", "-t", "2"], script="sleep 12") for _ in range(4)]
    t_start = time.time()
    with SlurmWatch(slurm) as watch:
        mauid = MauidProcess(cfg)
        try:
            wait_for(lambda: len(watch.seen) >= 4, 20, "the long jobs running")
            wide = slurm.submit(["-N", "4", "--ntasks-per-node=6", "-t", "1"], script="sleep 3")
            small: list[str] = []
            for shape in SMALL:                     # a stream until after the long jobs end
                small += submit_all(slurm, [shape])
                time.sleep(2.0)
            ids = longs + [wide] + small
            wait_for(lambda: all(j in watch.seen for j in ids) and not slurm.squeue(), 150,
                     "every job to run and finish", period=0.5)
        finally:
            assert mauid.stop() == 0
    took = time.time() - t_start
    final = final_jobs(slurm)
    entries = journal(tmp_path)
    check_ran_where_told(final, by_job(entries), ids)
    # The wide job was not starved by the stream of small ones: it kept its reservation,
    # which never moved later, and started no later than it said.
    check_easy_stream(entries, ids, wide, watch.seen[wide].first_running, small)
    report(tmp_path, entries, watch, ids, took)


def report(home, entries, watch, ids, took):
    starts = {e.job_id: e.at for e in entries if e.event == "start"}
    lat = sorted(watch.seen[j].first_running - starts[j] for j in ids if j in watch.seen and j in starts)
    with StoreReader.open(home / "maui-py.db") as r:
        cycles = [c for c in r.cycles(1000) if c.save_s is not None]
    busy = [c for c in cycles if c.starts]

    def ms(values):
        values = sorted(v for v in values if v is not None)
        return f"median {statistics.median(values) * 1000:.0f} ms, max {values[-1] * 1000:.0f} ms" if values else "-"

    print(f"\nmauid on live Slurm: {len(ids)} jobs in {took:.0f} s, {len(cycles)} cycles "
          f"({len(busy)} with starts).\n"
          f"  cycle: snapshot {ms(c.snapshot_s for c in cycles)}; schedule {ms(c.schedule_s for c in cycles)}; "
          f"save {ms(c.save_s for c in cycles)}; push (cycles with starts) {ms(c.apply_s for c in busy)}; "
          f"whole cycle {ms((c.snapshot_s or 0) + (c.schedule_s or 0) + (c.save_s or 0) + (c.apply_s or 0) for c in cycles)}\n"
          f"  decision saved -> seen RUNNING (squeue every 0.1 s): median {statistics.median(lat):.2f} s, "
          f"min {lat[0]:.2f} s, max {lat[-1]:.2f} s over {len(lat)} jobs")
