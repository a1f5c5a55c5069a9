"""RESERVATIONPOLICY HIGHEST as Maui 3.3 keeps it (MQueueScheduleRJobs, `case resHighest`):
a reservation once made is kept until its job runs, whatever the depth and whatever later
priorities do, and each cycle it is re-made at its earliest start with every other
reservation held. CURRENTHIGHEST drops them and re-makes the top ones in priority order."""

import pytest

from .build import cluster, job, replay

CONSERVATIVE = "RESERVATIONDEPTH 100\nBACKFILLPOLICY FIRSTFIT\nQUEUETIMEWEIGHT 1\n"


def _early_end(policy):
    """Two processors. r1 (limit 300) ends at 50, r2 ends at its limit 100. A (2 procs)
    reserves [300, 400); B (1 proc, 150 s) reserves [100, 250), ahead of A's start."""
    jobs = [job("r1", 1, 300, 0), job("r2", 1, 100, 0),
            job("A", 2, 100, 1), job("B", 1, 150, 2)]
    _res, got = replay(cluster(2), jobs, CONSERVATIVE + f"RESERVATIONPOLICY {policy}\n",
                       runtimes={"r1": 50})
    return {k: s for k, (s, _kind) in got.items()}


def test_highest_slides_each_reservation_forward_with_the_others_held():
    # At 50 A slides to 250 (B still holds [100, 250)); B, its own place released, fits
    # now; A then slides to 200, when B ends. B's reservation never moved later.
    assert _early_end("HIGHEST") == {"r1": 0, "r2": 0, "A": 200, "B": 50}


def test_currenthighest_re_makes_them_in_priority_order():
    # At 50 A is re-made first, at 100 (both processors from r2's end); B no longer fits
    # before it and is re-made after it: its reservation moved from 100 to 200.
    assert _early_end("CURRENTHIGHEST") == {"r1": 0, "r2": 0, "A": 100, "B": 200}


@pytest.mark.parametrize("policy,first", [("HIGHEST", "A"), ("CURRENTHIGHEST", "V")])
def test_a_higher_priority_arrival_does_not_take_a_highest_reservation(policy, first):
    """Depth 1. A reserves behind the running job; V (user vip, far higher priority) comes
    later. HIGHEST: A keeps its reservation ("even if other jobs later bypass them in
    priority value"), and V, beyond the depth, waits. CURRENTHIGHEST: the reservation goes
    to the current top job, V."""
    text = ("RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\nQUEUETIMEWEIGHT 1\n"
            "CREDWEIGHT 1\nUSERWEIGHT 1\nUSERCFG[vip] PRIORITY=100000\n"
            f"RESERVATIONPOLICY {policy}\n")
    jobs = [job("r", 2, 100, 0), job("A", 2, 100, 1), job("V", 2, 100, 10, user="vip")]
    _res, got = replay(cluster(2), jobs, text)
    second = "V" if first == "A" else "A"
    assert got[first][0] == 100 and got[second][0] == 200
