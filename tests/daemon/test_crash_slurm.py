"""Crash safety against a real Slurm: mauid killed with SIGKILL at every point of a cycle
(MAUID_FAULT), and from outside at arbitrary instants, then restarted.

No job may be lost or started twice, every job must run where a confirmed start said,
the fair-share windows and the kept reservations must come back as they were committed.
"""

from __future__ import annotations

import json
import signal
import time

import pytest

from maui_py.daemon.loop import state_digest
from maui_py.store import StoreReader

from .harness import (MauidProcess, by_job, check_each_started_once, check_ran_where_told,
                      check_reservation_kept, epoch, final_jobs, journal, wait_for, write_config)

pytestmark = pytest.mark.slurm

CONFIG = """\
RESERVATIONDEPTH   1
BACKFILLPOLICY     FIRSTFIT
FSPOLICY           DEDICATEDPS
FSINTERVAL         00:10:00
FSDEPTH            4
FSWEIGHT           1
FSUSERWEIGHT       10
USERCFG[DEFAULT]   FSTARGET=25
"""

WAVE = [["-n", "1"], ["-n", "2", "-C", "slow"], ["--gres=gpu:1", "-n", "1"], ["-N", "2", "-n", "2"]]
# Each run but the last is killed: by a fault point in its first cycle (which always has
# the new wave to start), or from outside after a delay.
RUNS = [("after-save@1", None), ("mid-apply@1", None), ("mid-save@1", None), ("after-apply@1", None),
        ("after-cycle@1", None), ("after-snapshot@1", None), ("", 1.3), ("", 2.6), ("after-save@2", None)]


def committed(home):
    with StoreReader.open(home / "maui-py.db") as r:
        state = r.load_state()
        return state, state_digest(state)


def usage(state) -> float:
    data = state.queue_policy.dump() if state.queue_policy is not None else {}
    windows = (data.get("fairshare") or {}).get("windows", [])
    return sum(v for _start, w in windows for v in w.values())


def test_kill_9_at_every_point_loses_nothing_and_starts_nothing_twice(slurm, tmp_path):
    cfg = write_config(tmp_path, slurm, CONFIG)
    # Two whole-node jobs for 25 s make the wide job wait (with a reservation) through the crashes.
    longs = [slurm.submit(["-N", "1", "--ntasks-per-node=8", "-t", "2"], script="sleep 25") for _ in range(2)]
    wide = slurm.submit(["-N", "4", "--ntasks-per-node=4", "-t", "1"], script="sleep 3")
    ids = longs + [wide]
    crashes = []
    for k, (fault, delay) in enumerate(RUNS):
        ids += [slurm.submit([*args, "-t", "1"], script=f"sleep {3 + (k + i) % 3}") for i, args in enumerate(WAVE)]
        mauid = MauidProcess(cfg, fault)
        if delay is None:
            try:
                rc = mauid.wait(15)
            except Exception:
                rc = mauid.kill9()          # the fault point was not reached: kill it anyway
        else:
            time.sleep(delay)
            rc = mauid.kill9()
        assert rc == -signal.SIGKILL, (fault, rc, (tmp_path / "mauid.stderr").read_text()[-2000:])
        crashes.append((fault or f"kill after {delay} s", *committed(tmp_path)))
    mauid = MauidProcess(cfg)
    try:
        wait_for(lambda: not slurm.squeue(), 120, "every job to finish", period=0.5)
    finally:
        assert mauid.stop() == 0
    entries = journal(tmp_path)
    jb = by_job(entries)
    final = final_jobs(slurm)

    # no job lost, none started twice, each ran where the confirmed start said
    check_ran_where_told(final, jb, ids)
    check_each_started_once(jb, ids)
    unconfirmed = [e.job_id for e in entries if e.event == "start-unconfirmed"]
    assert unconfirmed, "the after-save kill should leave starts that were never pushed"

    # every restart loaded exactly what the killed daemon had committed
    loaded = [json.loads(json.dumps(e.detail["loaded"])) for e in entries if e.event == "daemon-start"]
    assert loaded[1:] == [digest for _what, _state, digest in crashes], "a restart loaded something else"

    # fair-share usage only grows across the crashes, and is charged
    totals = [usage(state) for _what, state, _d in crashes]
    assert all(b >= a for a, b in zip(totals, totals[1:])), totals
    with StoreReader.open(tmp_path / "maui-py.db") as r:
        end_usage = usage(r.load_state())
    assert end_usage >= totals[-1] > 0

    # the wide job's reservation survived every crash until it started, no later than it said
    reserved_from = min(e.id for e in jb[wide] if e.event == "reserve")
    started_at = min(e.id for e in jb[wide] if e.event == "start")
    for what, state, _d in crashes:
        last = state.iteration
        was_reserved = any(e.event == "reserve" and e.cycle <= last for e in jb[wide])
        started = any(e.event == "start" and e.cycle <= last for e in jb[wide])
        if was_reserved and not started:
            assert wide in state.reservations, what
    assert reserved_from < started_at
    check_reservation_kept(jb[wide], epoch(final[wide]["StartTime"]))
    print(f"\ncrash test: {len(RUNS)} kills, {len(ids)} jobs, {len(unconfirmed)} unconfirmed starts "
          f"re-decided; fair-share usage (proc-seconds) at each crash {[round(t) for t in totals]}, "
          f"at the end {end_usage:.0f}")
