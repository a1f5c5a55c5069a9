"""Crash safety against a real Torque 6.1: mauid killed with SIGKILL at every point of a
cycle (MAUID_FAULT), and from outside at arbitrary instants, then restarted.

No job may be lost or started twice (Torque's start_count stays 1), every job must run where
a confirmed start said, and the kept reservation and the fair-share windows must come back
as they were committed.
"""

from __future__ import annotations

from tests.adapters.conftest import torque, torque_cluster  # noqa: F401  (fixtures)

from . import crash
from .harness import MauidProcess, check_ran_where_told_torque, torque_final_jobs, write_torque_config

WAVE = ["nodes=1:ppn=1", "nodes=1:ppn=2", "procs=2", "nodes=2:ppn=1"]


def test_kill_9_at_every_point_loses_nothing_and_starts_nothing_twice(torque, tmp_path):  # noqa: F811
    cfg = write_torque_config(tmp_path, crash.CONFIG)
    path = {"PATH": torque.env["PATH"]}
    # Two whole-node jobs for 20 s make the wide job wait (with a reservation) through the crashes.
    longs = [torque.qsub(["-l", "nodes=1:ppn=4,walltime=00:02:00"], "sleep 20") for _ in range(2)]
    wide = torque.qsub(["-l", "nodes=4:ppn=2,walltime=00:01:00"], "sleep 3")
    crashes, waves = crash.kill_runs(
        tmp_path,
        lambda k: [torque.qsub(["-l", f"{res},walltime=00:01:00"], f"sleep {2 + (k + i) % 3}")
                   for i, res in enumerate(WAVE)],
        lambda fault: MauidProcess(cfg, fault, env_extra=path))
    ids = longs + [wide] + waves
    crash.finish(lambda fault: MauidProcess(cfg, env_extra=path), lambda: not torque.active(), 90)
    final = torque_final_jobs(torque)
    got = crash.check_after_crashes(tmp_path, crashes, ids, wide, final, check_ran_where_told_torque,
                                    int(final[wide]["start_time"]))
    print(f"\ncrash test (Torque): {len(crash.RUNS)} kills, {len(ids)} jobs submitted, "
          f"{sum(final[j]['job_state'] == 'C' for j in ids)} completed, "
          f"{sum(final[j]['start_count'] != '1' for j in ids)} started twice, {got['unconfirmed']} "
          f"unconfirmed starts re-decided; fair-share usage at each crash {got['totals']}, "
          f"at the end {got['end_usage']}")
