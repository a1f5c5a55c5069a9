"""Crash safety against a real Torque 6.1: mauid killed with SIGKILL at every point of a
cycle (MAUID_FAULT), and from outside at arbitrary instants, then restarted.

No job may be lost or started twice (Torque's start_count stays 1), every job must run where
a confirmed start said, and the kept reservation and the fair-share windows must come back
as they were committed.
"""

from __future__ import annotations

import json
import signal
import time

from maui_py.daemon.loop import state_digest
from maui_py.store import StoreReader
from tests.adapters.conftest import torque, torque_cluster  # noqa: F401  (fixtures)

from .harness import (MauidProcess, by_job, check_each_started_once, check_ran_where_told_torque,
                      check_reservation_kept, journal, torque_final_jobs, wait_for, write_torque_config)

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

WAVE = ["nodes=1:ppn=1", "nodes=1:ppn=2", "procs=2", "nodes=2:ppn=1"]
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


def test_kill_9_at_every_point_loses_nothing_and_starts_nothing_twice(torque, tmp_path):
    cfg = write_torque_config(tmp_path, CONFIG)
    path = {"PATH": torque.env["PATH"]}
    # Two whole-node jobs for 20 s make the wide job wait (with a reservation) through the crashes.
    longs = [torque.qsub(["-l", "nodes=1:ppn=4,walltime=00:02:00"], "sleep 20") for _ in range(2)]
    wide = torque.qsub(["-l", "nodes=4:ppn=2,walltime=00:01:00"], "sleep 3")
    ids = longs + [wide]
    crashes = []
    for k, (fault, delay) in enumerate(RUNS):
        ids += [torque.qsub(["-l", f"{res},walltime=00:01:00"], f"sleep {2 + (k + i) % 3}")
                for i, res in enumerate(WAVE)]
        mauid = MauidProcess(cfg, fault, env_extra=path)
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
    mauid = MauidProcess(cfg, env_extra=path)
    try:
        wait_for(lambda: not torque.active(), 90, "every job to finish", period=0.5)
    finally:
        assert mauid.stop() == 0
    entries = journal(tmp_path)
    jb = by_job(entries)
    final = torque_final_jobs(torque)

    # no job lost, none started twice, each ran where the confirmed start said
    check_ran_where_told_torque(final, jb, ids)
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
    for what, state, _d in crashes:
        last = state.iteration
        was_reserved = any(e.event == "reserve" and e.cycle <= last for e in jb[wide])
        started = any(e.event == "start" and e.cycle <= last for e in jb[wide])
        if was_reserved and not started:
            assert wide in state.reservations, what
    assert min(e.id for e in jb[wide] if e.event == "reserve") < min(e.id for e in jb[wide] if e.event == "start")
    check_reservation_kept(jb[wide], int(final[wide]["start_time"]))
    print(f"\ncrash test (Torque): {len(RUNS)} kills, {len(ids)} jobs submitted, "
          f"{sum(final[j]['job_state'] == 'C' for j in ids)} completed, "
          f"{sum(final[j]['start_count'] != '1' for j in ids)} started twice, {len(unconfirmed)} unconfirmed "
          f"starts re-decided; fair-share usage at each crash {[round(t) for t in totals]}, at the end {end_usage:.0f}")
