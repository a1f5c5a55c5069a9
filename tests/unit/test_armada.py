"""QUEUEPOLICY ARMADA: usage, priority half-life, slicing, leasing, limits (spec §6.1)."""

import json
import random

import pytest

from maui_py.cfg import parse_config
from maui_py.core.cycle import run_cycle
from maui_py.priority.armada import (ArmadaPolicy, QueueInfo, _Pending, as_usage, lease, pick_queue,
                                     resource_scarcity, slice_resource)
from maui_py.priority.policy import PolicyView
from maui_py.priority.queues import make_queue_policy
from tests.scenarios.build import cluster, job, snapshot


def policy(text: str = "") -> ArmadaPolicy:
    p = make_queue_policy(parse_config("QUEUEPOLICY ARMADA\n" + text, "t.cfg"))
    assert isinstance(p, ArmadaPolicy)
    return p


def view(now, free, total=None, running=()):
    return PolicyView(now, list(running), dict(free), dict(total or free), None)


def test_the_seed_usage_example_is_exactly_8():
    """10 cpus, 20 GB, 5 gpus: 5 cpu + 2 GB + 1 gpu = 5 + 2/2 + 1/0.5."""
    scarcity = resource_scarcity({"procs": 10, "mem": 20, "gpu": 5})
    assert scarcity == {"procs": 1.0, "mem": 0.5, "gpu": 2.0}
    assert as_usage(scarcity, {"procs": 5, "mem": 2, "gpu": 1}) == 8.0


def test_scarcity_matches_the_code_comment():
    assert resource_scarcity({"procs": 4, "mem": 20, "gpu": 2}) == {"procs": 1.0, "mem": 0.2, "gpu": 2.0}


def test_priority_moves_halfway_to_usage_in_one_half_life():
    p = policy("ARMADAPRIORITYHALFLIFE 100\n")
    p.update_priorities(1000, {"a": 8.0})
    assert p.priority["a"] == pytest.approx(8.0 * (1 - 0.5 ** 0.6))   # first report: 60 s
    p.priority = {"a": 2.0}
    p.update_priorities(1100, {"a": 10.0, "b": 4.0})
    assert p.priority == pytest.approx({"a": 6.0, "b": 2.0})          # b is new: (1-f) * usage
    p.update_priorities(1200, {})
    assert p.priority == pytest.approx({"a": 3.0, "b": 1.0})          # no usage: decays to 0


def test_effective_priority():
    p = policy("QUEUECFG[a] PRIORITYFACTOR=3\nQUEUECFG[DEFAULT] PRIORITYFACTOR=2\n")
    assert p.effective("a") == 0.5                    # never recorded: 0.5, not multiplied
    p.priority = {"a": 0.1, "b": 4.0}
    assert p.effective("a") == 1.5                    # max(0.1, 0.5) * 3
    assert p.effective("b") == 8.0                    # DEFAULT factor


def test_priorities_1_and_2_slice_two_thirds_and_one_third():
    slices = slice_resource((1.0,), {"A": (1.0, 0.0), "B": (2.0, 0.0)}, (12.0,))
    assert slices["A"] == pytest.approx((8.0,)) and slices["B"] == pytest.approx((4.0,))


def test_slices_correct_for_what_a_queue_already_uses():
    # all = 4 free + 8 used; A's share 12/2 - 8 < 0: B gets everything free
    slices = slice_resource((1.0,), {"A": (1.0, 8.0), "B": (1.0, 0.0)}, (4.0,))
    assert slices["A"] == (0.0,) and slices["B"] == pytest.approx((4.0,))


def test_limit_update_scales_the_uncut_share():
    info = QueueInfo(limit=(4.0,), share=(8.0,), adjusted=(4.0,))
    info.update((2.0,))
    assert (info.limit, info.share, info.adjusted) == ((2.0,), (4.0,), (2.0,))


def _pending(*sizes):
    p = _Pending()
    p.jobs = [(job(f"j{i}", s, 10), (float(s),)) for i, s in enumerate(sizes)]
    return p


def test_lease_looks_at_a_batch_at_a_time():
    got, left = lease(_pending(8, 1, 1), (2.0,), 100, 2)     # first look [8, 1]: takes 1 of 2, stops
    assert [j.id for j in got] == ["j1"] and left == (1.0,)
    got, left = lease(_pending(8, 1, 1), (2.0,), 100, 3)
    assert [j.id for j in got] == ["j1", "j2"] and left == (0.0,)
    got, _ = lease(_pending(1, 1, 1, 1), (9.0,), 100, 2)     # full looks go on
    assert len(got) == 4


def test_random_pick_follows_the_shares_and_is_seeded():
    rng = random.Random(3)
    picks = [pick_queue({"a": 3.0, "b": 1.0}, rng) for _ in range(4000)]
    assert abs(picks.count("a") / 4000 - 0.75) < 0.03
    assert [pick_queue({"a": 1, "b": 1}, random.Random(7)) for _ in range(5)] == \
           [pick_queue({"a": 1, "b": 1}, random.Random(7)) for _ in range(5)]
    assert pick_queue({"a": 0.0, "b": 0.0}, rng) in ("a", "b")


def _queue_jobs(n, queue, procs=1):
    return [job(f"{queue}{i}", procs, 100, i, class_=queue) for i in range(n)]


def test_one_round_leases_by_slices_and_holds_the_rest():
    p = policy("ARMADASEED 1\n")
    p.priority = {"a": 1.0, "b": 2.0}
    order = _queue_jobs(10, "a") + _queue_jobs(10, "b")
    arr = p.arrange(order, view(0, {"procs": 6}))
    leased = [j.id for j in arr.order]
    assert sum(j.startswith("a") for j in leased) == 4 and sum(j.startswith("b") for j in leased) == 2
    assert len(arr.held) == 14 and "leased no more this round" in arr.held["a9"]


def test_probabilistic_stage_alone_is_reproducible():
    def run(seed):
        p = policy(f"ARMADAPROBABILISTICALL TRUE\nARMADASEED {seed}\n")
        p.priority = {"a": 1.0, "b": 1.0}
        return [j.id for j in p.arrange(_queue_jobs(20, "a") + _queue_jobs(20, "b"), view(5, {"procs": 10})).order]
    assert run(1) == run(1)
    assert len(run(1)) == 10
    assert any(run(1) != run(s) for s in range(2, 8))


def test_the_remainder_goes_to_queues_whose_jobs_fit():
    p = policy()
    p.priority = {"a": 1.0, "b": 1.0}
    order = _queue_jobs(3, "a", procs=4) + _queue_jobs(3, "b", procs=1)
    arr = p.arrange(order, view(0, {"procs": 7}))        # slices 3.5 / 3.5: a's 4 does not fit
    assert [j.id for j in arr.order] == ["b0", "b1", "b2", "a0"]   # the remainder 4 does


def test_max_fraction_caps_a_queue_and_holds_it_at_its_limit():
    p = policy("QUEUECFG[a] MAXFRACTION=0.25\n")
    run = [job(f"r{i}", 1, 100, 0, class_="a", start=0, nodes=(f"n{i}",)) for i in range(2)]
    arr = p.arrange(_queue_jobs(10, "a"), view(0, {"procs": 6}, {"procs": 8}, run))
    assert [j.id for j in arr.order] == []
    assert "at its resource limit" in arr.held["a0"]
    arr = p.arrange(_queue_jobs(10, "a"), view(0, {"procs": 7}, {"procs": 8}, run[:1]))
    assert [j.id for j in arr.order] == ["a0"]


def test_in_the_cycle_held_jobs_are_reported():
    cfg = parse_config("QUEUEPOLICY ARMADA\nQUEUECFG[b] PRIORITYFACTOR=100\n", "t.cfg")
    nodes = cluster(2)
    busy = job("busy", 1, 1000, 0, class_="b", start=0, nodes=("n0",))
    r = run_cycle(snapshot(0, nodes, [busy]), cfg)
    r = run_cycle(snapshot(600, nodes, [busy, job("x", 1, 10, 1, class_="a"), job("y", 1, 10, 2, class_="b")]),
                  cfg, r.state)
    assert [s.job_id for s in r.starts()] == ["x"]
    assert r.reports["y"].status == "blocked" and "QUEUEPOLICY ARMADA" in r.reports["y"].reason


def test_dump_restore_json():
    p = policy()
    p.update_priorities(100, {"a": 3.0})
    q = policy()
    q.restore(json.loads(json.dumps(p.dump())))
    assert q.priority == p.priority and q.updated == 100
