"""What the kill -9 tests of mauid share across resource managers (test_crash_slurm.py,
test_crash_torque.py): the configuration, the kill points, the runs, and every check made
after the last restart. The resource manager's part is passed in: how to submit a wave,
start mauid, see that every job has ended, and read where each job ran."""

from __future__ import annotations

import json
import signal
import time
from typing import Callable

from maui_py.store import StoreReader
from maui_py.daemon.loop import state_digest

from .harness import (by_job, check_each_started_once, check_reservation_kept, journal,
                      wait_for)

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

RUNS = [("after-save@1", None), ("mid-apply@1", None), ("mid-save@1", None), ("after-apply@1", None),
        ("after-cycle@1", None), ("after-snapshot@1", None), ("", 1.3), ("", 2.6), ("after-save@2", None)]
"""Each run but the last is killed: by a fault point in its first cycle (which always has the
new wave to start), or from outside after a delay."""


def committed(home):
    with StoreReader.open(home / "maui-py.db") as r:
        state = r.load_state()
        return state, state_digest(state)


def _starts(home) -> int:
    return sum(1 for e in journal(home) if e.event == "daemon-start")


def usage(state) -> float:
    data = state.queue_policy.dump() if state.queue_policy is not None else {}
    windows = (data.get("fairshare") or {}).get("windows", [])
    return sum(v for _start, w in windows for v in w.values())


def kill_runs(home, submit_wave: Callable[[int], list[str]], start_mauid) -> tuple[list, list]:
    """For every RUNS entry: submit a wave, start mauid, kill it (fault point or delay).
    Returns ([(what, committed state, digest) after each kill], the waves' job ids)."""
    crashes = []
    ids: list[str] = []
    for k, (fault, delay) in enumerate(RUNS):
        ids += submit_wave(k)
        mauid = start_mauid(fault)
        if delay is None:
            try:
                rc = mauid.wait(15)
            except Exception:
                rc = mauid.kill9()          # the fault point was not reached: kill it anyway
        else:
            # The delay counts from the daemon's start entry: under load, importing alone can
            # take longer than the delay, and a kill before the store is opened tests nothing.
            wait_for(lambda: _starts(home) > k, 60, "mauid to journal its start")
            time.sleep(delay)
            rc = mauid.kill9()
        assert rc == -signal.SIGKILL, (fault, rc, (home / "mauid.stderr").read_text()[-2000:])
        crashes.append((fault or f"kill after {delay} s", *committed(home)))
    return crashes, ids


def finish(start_mauid, all_ended: Callable[[], bool], timeout: float) -> None:
    """The last restart, left to run every job to its end."""
    mauid = start_mauid(None)
    try:
        wait_for(all_ended, timeout, "every job to finish", period=0.5)
    finally:
        assert mauid.stop() == 0


def check_after_crashes(home, crashes, ids, wide, final, check_ran, started_at: int) -> dict:
    """No job lost or started twice, each ran where its confirmed start said; every restart
    loaded what the killed daemon had committed; fair-share usage only grew and was charged;
    the wide job's reservation survived every crash until it started, no later than it
    said. Returns the figures the tests print."""
    entries = journal(home)
    jb = by_job(entries)
    check_ran(final, jb, ids)
    check_each_started_once(jb, ids)
    unconfirmed = [e.job_id for e in entries if e.event == "start-unconfirmed"]
    assert unconfirmed, "the after-save kill should leave starts that were never pushed"

    loaded = [json.loads(json.dumps(e.detail["loaded"])) for e in entries if e.event == "daemon-start"]
    assert loaded[1:] == [digest for _what, _state, digest in crashes], "a restart loaded something else"

    totals = [usage(state) for _what, state, _d in crashes]
    assert all(b >= a for a, b in zip(totals, totals[1:])), totals
    with StoreReader.open(home / "maui-py.db") as r:
        end_usage = usage(r.load_state())
    assert end_usage >= totals[-1] > 0

    for what, state, _d in crashes:
        last = state.iteration
        was_reserved = any(e.event == "reserve" and e.cycle <= last for e in jb[wide])
        started = any(e.event == "start" and e.cycle <= last for e in jb[wide])
        if was_reserved and not started:
            assert wide in state.reservations, what
    assert (min(e.id for e in jb[wide] if e.event == "reserve")
            < min(e.id for e in jb[wide] if e.event == "start"))
    check_reservation_kept(jb[wide], started_at)
    return {"unconfirmed": len(unconfirmed), "totals": [round(t) for t in totals],
            "end_usage": round(end_usage)}
