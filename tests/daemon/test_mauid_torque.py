"""mauid driving a real Torque 6.1 (4 nodes x 4 slots, pbs_server with scheduling off).

No job starts unless mauid runs qrun. Run with `-s` to see the measured cycle times and
decision-to-running latencies.
"""

from __future__ import annotations

import statistics
import time

from maui_py.store import StoreReader
from tests.adapters.conftest import torque, torque_cluster  # noqa: F401  (fixtures)

from .harness import (MauidProcess, TorqueWatch, by_job, check_easy_stream, check_ran_where_told_torque,
                      journal, torque_final_jobs, wait_for, write_torque_config)

EASY = """\
RESERVATIONDEPTH   1
RESERVATIONPOLICY  CURRENTHIGHEST
BACKFILLPOLICY     FIRSTFIT
"""

# (count, -l resources, seconds of sleep); every small job asks for 1 minute.
SMALL = [
    (8, "nodes=1:ppn=1", 2),
    (5, "nodes=1:ppn=2", 3),
    (4, "procs=2", 2),
    (4, "nodes=1:ppn=1,mem=2gb", 2),
    (3, "nodes=2:ppn=1", 3),
    (3, "nodes=3:ppn=1", 2),
]


def test_mixed_workload_under_easy_backfill(torque, tmp_path):
    cfg = write_torque_config(tmp_path, EASY)
    # Four long jobs (2 slots of each node, 2 minutes asked, 10 s used) make the wide job
    # wait; it asks for 3 slots on every node and gets a reservation; the small jobs that
    # follow may only backfill around it.
    longs = [torque.qsub(["-l", "nodes=1:ppn=2,walltime=00:02:00"], "sleep 10") for _ in range(4)]
    t_start = time.time()
    with TorqueWatch(torque) as watch:
        mauid = MauidProcess(cfg, env_extra={"PATH": torque.env["PATH"]})
        try:
            wait_for(lambda: len(watch.seen) >= 4, 20, "the long jobs running")
            wide = torque.qsub(["-N", "wide", "-l", "nodes=4:ppn=3,walltime=00:01:00"], "sleep 3")
            small: list[str] = []
            for count, res, sleep in SMALL:          # a stream until after the long jobs end
                small += [torque.qsub(["-l", f"{res},walltime=00:01:00"], f"sleep {sleep}")
                          for _ in range(count)]
                time.sleep(1.5)
            ids = longs + [wide] + small
            try:
                wait_for(lambda: not torque.active(), 90, "every job to run and finish", period=0.5)
            except AssertionError as e:
                log = (tmp_path / "mauid.log").read_text()[-3000:] if (tmp_path / "mauid.log").exists() else ""
                raise AssertionError(f"{e}; still in Torque: {torque.active()}; mauid.log ends:\n{log}") from None
        finally:
            assert mauid.stop() == 0
    took = time.time() - t_start
    final = torque_final_jobs(torque)
    entries = journal(tmp_path)
    check_ran_where_told_torque(final, by_job(entries), ids)
    wide_started = watch.seen[wide].first_running if wide in watch.seen else int(final[wide]["start_time"])
    check_easy_stream(entries, ids, wide, wide_started, small)
    report(tmp_path, entries, watch, ids, took, final)


def report(home, entries, watch, ids, took, final):
    starts = {e.job_id: e.at for e in entries if e.event == "start"}
    lat = sorted(watch.seen[j].first_running - starts[j] for j in ids if j in watch.seen and j in starts)
    with StoreReader.open(home / "maui-py.db") as r:
        cycles = [c for c in r.cycles(1000) if c.save_s is not None]
    busy = [c for c in cycles if c.starts]
    done = sum(1 for j in ids if final[j]["job_state"] == "C" and final[j]["exit_status"] == "0")
    twice = sum(1 for j in ids if final[j]["start_count"] != "1")

    def ms(values):
        values = sorted(v for v in values if v is not None)
        return f"median {statistics.median(values) * 1000:.0f} ms, max {values[-1] * 1000:.0f} ms" if values else "-"

    print(f"\nmauid on live Torque: {len(ids)} jobs submitted, {done} completed, "
          f"{len(ids) - done} lost, {twice} started twice, in {took:.0f} s; {len(cycles)} cycles "
          f"({len(busy)} with starts).\n"
          f"  cycle: snapshot {ms(c.snapshot_s for c in cycles)}; schedule {ms(c.schedule_s for c in cycles)}; "
          f"save {ms(c.save_s for c in cycles)}; push (cycles with starts) {ms(c.apply_s for c in busy)}\n"
          f"  decision saved -> R in qstat (polled every 0.1 s): " + (
              f"median {statistics.median(lat):.2f} s, min {lat[0]:.2f} s, max {lat[-1]:.2f} s "
              f"over {len(lat)} jobs" if lat else "no job seen running"))
