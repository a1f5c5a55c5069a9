"""Crash safety against a real Slurm: mauid killed with SIGKILL at every point of a cycle
(MAUID_FAULT), and from outside at arbitrary instants, then restarted.

No job may be lost or started twice, every job must run where a confirmed start said,
the fair-share windows and the kept reservations must come back as they were committed.
"""

from __future__ import annotations

import pytest

from . import crash
from .harness import MauidProcess, check_ran_where_told, epoch, final_jobs, write_config

pytestmark = pytest.mark.slurm

WAVE = [["-n", "1"], ["-n", "2", "-C", "slow"], ["--gres=gpu:1", "-n", "1"], ["-N", "2", "-n", "2"]]


def test_kill_9_at_every_point_loses_nothing_and_starts_nothing_twice(slurm, tmp_path):
    cfg = write_config(tmp_path, slurm, crash.CONFIG)
    # Two whole-node jobs for 25 s make the wide job wait (with a reservation) through the crashes.
    longs = [slurm.submit(["-N", "1", "--ntasks-per-node=8", "-t", "2"], script="sleep 25") for _ in range(2)]
    wide = slurm.submit(["-N", "4", "--ntasks-per-node=4", "-t", "1"], script="sleep 3")
    crashes, waves = crash.kill_runs(
        tmp_path,
        lambda k: [slurm.submit([*args, "-t", "1"], script=f"sleep {3 + (k + i) % 3}")
                   for i, args in enumerate(WAVE)],
        lambda fault: MauidProcess(cfg, fault))
    ids = longs + [wide] + waves
    crash.finish(lambda fault: MauidProcess(cfg), lambda: not slurm.squeue(), 120)
    final = final_jobs(slurm)
    got = crash.check_after_crashes(tmp_path, crashes, ids, wide, final, check_ran_where_told,
                                    epoch(final[wide]["StartTime"]))
    print(f"\ncrash test: {len(crash.RUNS)} kills, {len(ids)} jobs, {got['unconfirmed']} unconfirmed "
          f"starts re-decided; fair-share usage (proc-seconds) at each crash {got['totals']}, "
          f"at the end {got['end_usage']}")
