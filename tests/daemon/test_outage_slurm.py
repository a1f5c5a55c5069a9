"""Issue 13 against the live test Slurm: a slurmctld restart under mauid, and jobs Slurm
accepts but would never run.

Restart: three jobs fill node1-3 and a 4-node job waits behind them; slurmctld is stopped
for about 30 s (every squeue/sinfo then exits 0 with an error list) and started again from
its saved state. mauid must run no cycle meanwhile (one ERROR line, the store marked stale),
take no running job for gone, start nothing twice, defer nothing because of the nodes Slurm
shows `unknown` right after the restart (a GPU job submitted then needs node4, one of them),
and be busy again soon after slurmctld answers.

Refused: a job over the debug partition's MaxTime is never released and ends held (Slurm:
JobHeldAdmin) with the reason in checkjob; a job over CLASSCFG MAX.WCLIMIT gets a batch hold;
a job without a time limit runs with CLASSCFG DEFAULT.WCLIMIT as its TimeLimit.
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import time

import pytest

from maui_py.cli import checkjob, showq

from .harness import (MauidProcess, SlurmWatch, by_job, final_jobs, journal, wait_for,
                      write_config)

pytestmark = pytest.mark.slurm

OUTAGE_S = 30


def run_command(module, store, *argv: str) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog=module.__name__)
    module.add_arguments(parser)
    out, err = io.StringIO(), io.StringIO()
    rc = module.run(parser.parse_args([*argv, "--store", str(store)]), out, err)
    return rc, out.getvalue(), err.getvalue()


def stop_controller(cluster) -> None:
    """SIGTERM slurmctld (it saves its state) and wait until it is gone."""
    procs = [p for p in cluster._procs if p.args[0] == "slurmctld"]
    assert len(procs) == 1, [p.args for p in cluster._procs]
    p = procs[0]
    os.kill(p.pid, signal.SIGTERM)
    p.wait(20)
    cluster._procs.remove(p)


def start_controller(cluster) -> None:
    """slurmctld again, from its saved state (no -c): the jobs come back."""
    cluster._daemon(["slurmctld", "-D", "-i"], "slurmctld-restart.out")


def answers(cluster) -> bool:
    p = cluster.run(["squeue", "-h", "-o", "%i"], check=False, timeout=30)
    return p.returncode == 0


class ReasonWatch(SlurmWatch):
    """Every (state, reason) squeue showed per job, polled every 0.2 s."""

    def __init__(self, cluster):
        super().__init__(cluster, period=0.2)

    def _run(self):
        while not self._stop.is_set():
            for jid, (state, reason) in self.cluster.squeue("%T", "%r").items():
                self.seen.setdefault(jid, set()).add((state, reason))
            self._stop.wait(self.period)


def test_a_slurmctld_restart_runs_no_cycle_loses_no_job_and_defers_nothing(slurm, tmp_path):
    cfg = write_config(tmp_path, slurm, "DEFERTIME 00:05:00\nDEFERSTARTCOUNT 1\nDEFERCOUNT 5\n"
                                        "NODEALLOCATIONPOLICY FIRSTAVAILABLE\n")
    fillers = [slurm.submit(["-N", "1", "-n", "8", "-t", "5"], script="sleep 45") for _ in range(3)]
    mauid = MauidProcess(cfg)
    try:
        with SlurmWatch(slurm) as watch:
            wait_for(lambda: all(j in watch.seen for j in fillers), 20, "the three fillers to run")
            assert set().union(*(watch.seen[j].nodes for j in fillers)) == {"node1", "node2", "node3"}
            wide = slurm.submit(["-N", "4", "-n", "32", "-t", "2"], script="sleep 2")
            wait_for(lambda: journal(tmp_path, job_id=wide, events=("reserve",)), 20, "the wide job's reservation")

            stop_controller(slurm)
            t_down = time.monotonic()
            wait_for(lambda: journal(tmp_path, events=("rm-error",)), 40, "mauid to notice the outage")
            rc, out, err = run_command(showq, tmp_path / "maui-py.db")
            assert rc == 0 and "data is stale: resource manager unreachable since" in err, err
            assert "Active Jobs: 3" in out, out                # the last good view, not an empty one
            time.sleep(max(0.0, OUTAGE_S - (time.monotonic() - t_down)))

            start_controller(slurm)
            wait_for(lambda: answers(slurm), 30, "slurmctld to answer", period=0.1)
            t_back = time.monotonic()
            # submitted while node4 (idle before the outage) still shows `unknown`
            gpu = slurm.submit(["-n", "1", "--gres=gpu:1", "-t", "2"], script="sleep 1")
            wait_for(lambda: journal(tmp_path, events=("rm-ok",)), 30, "mauid to read Slurm again")
            t_ok = time.monotonic()
            wait_for(lambda: gpu in watch.seen, 30, "the GPU job to run on node4", period=0.1)
            t_gpu = time.monotonic()
            wait_for(lambda: wide in watch.seen, 60, "the wide job to run after the fillers")
            wait_for(lambda: not slurm.squeue(), 60, "every job to finish")
    finally:
        status = mauid.stop()
    assert status == 0
    # mauid retried with backoff (at most 4 s here) and each failing read took Slurm's own
    # client retries (about 9 s): it read Slurm again within one such read and one backoff
    assert t_ok - t_back < 9 + 4 + 3, t_ok - t_back
    # busy again at once: the GPU job ran within a few cycles of node4 being known again
    assert t_gpu - t_back < 15, t_gpu - t_back
    assert watch.seen[gpu].nodes == {"node4"}
    entries = journal(tmp_path)
    events = [e.event for e in entries]
    assert events.count("rm-error") == 1 and events.count("rm-ok") == 1
    assert "defer" not in events and "start-gone" not in events, events
    jb = by_job(entries)
    final = final_jobs(slurm)
    for jid in [*fillers, wide, gpu]:
        ev = [e.event for e in jb[jid] if e.event.startswith("start")]
        assert ev == ["start", "start-confirmed"], (jid, ev)          # started once, never lost
        assert final[jid]["JobState"] == "COMPLETED" and final[jid]["Restarts"] == "0", final[jid]
    log = (tmp_path / "mauid.stderr").read_text()
    errors = [ln for ln in log.splitlines() if " ERROR " in ln]
    assert len(errors) == 1 and "resource manager unreachable" in errors[0], errors


REFUSE_CFG = """\
DEFERTIME        00:00:02
DEFERSTARTCOUNT  1
DEFERCOUNT       3
CLASSCFG[batch]  MAX.WCLIMIT=00:10:00 DEFAULT.WCLIMIT=00:07:00
"""


def test_jobs_slurm_would_never_run_are_held_with_their_reason_and_never_released(slurm, tmp_path):
    cfg = write_config(tmp_path, slurm, REFUSE_CFG)
    over_part = slurm.submit(["-p", "debug", "-n", "1", "-t", "120"], script="sleep 1")
    over_class = slurm.submit(["-p", "batch", "-n", "1", "-t", "20"], script="sleep 1")
    no_limit = slurm.submit(["-p", "batch", "-n", "1"], script="sleep 20")
    fine = slurm.submit(["-p", "debug", "-n", "1", "-t", "5"], script="sleep 1")
    mauid = MauidProcess(cfg)
    try:
        with ReasonWatch(slurm) as reasons:
            def held():
                q = slurm.squeue("%T", "%r")
                return all(q.get(j) == ["PENDING", "JobHeldAdmin"] for j in (over_part, over_class))
            wait_for(held, 30, "both never-runnable jobs to be held in Slurm")
            wait_for(lambda: slurm.squeue("%T").get(no_limit) == ["RUNNING"], 30, "the job without a limit to run")
            limit = slurm.squeue("%l")[no_limit][0]
            wait_for(lambda: fine not in slurm.squeue(), 30, "the fine job to run and finish")
            time.sleep(5)                                       # a few more cycles: still held
            assert held()
    finally:
        status = mauid.stop()
    assert status == 0
    assert limit == "7:00", limit                               # DEFAULT.WCLIMIT pushed as TimeLimit
    for jid in (over_part, over_class):                         # never released: always gated or held
        assert reasons.seen[jid] <= {("PENDING", "JobHeldUser"), ("PENDING", "JobHeldAdmin")}, reasons.seen[jid]
    store = tmp_path / "maui-py.db"
    rc, out, _err = run_command(checkjob, store, over_part)
    assert rc == 0 and "partition debug MaxTime" in out and "Slurm would never run it" in out, out
    rc, out, _err = run_command(checkjob, store, over_class)
    assert rc == 0 and "MAX.WCLIMIT" in out, out
    jb = by_job(journal(tmp_path))
    assert [e.event for e in jb[over_class]] == ["hold"], jb[over_class]    # held, never started
    assert "start-confirmed" not in [e.event for e in jb[over_part]]
    assert final_jobs(slurm)[fine]["JobState"] == "COMPLETED"
