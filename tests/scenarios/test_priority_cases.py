"""Spec §7 cases 1-3: Maui's priority arithmetic on hand-built queues."""

from maui_py.core.cycle import run_cycle

from .build import cluster, config, job, snapshot


def prio(result, jid):
    return result.priorities[jid]


def test_case1_defaults_give_fifo_by_queued_minutes():
    jobs = [job("a", 1, 60, 0), job("b", 1, 60, 600), job("c", 1, 60, 1800), job("d", 1, 60, 3600)]
    # one busy node: nothing starts, so every job stays queued and reported
    running = job("r", 1, 10_000, 0, start=0, nodes=("n0",))
    r = run_cycle(snapshot(3600, cluster(1), jobs + [running]), config())
    assert [prio(r, j).clipped for j in "abcd"] == [60, 50, 30, 1]
    assert r.order == ["a", "b", "c", "d"]
    assert prio(r, "d").priority == 0.0     # clipped to 1 for display, 0 for ordering


def test_case2_user_priority_300_equals_300_queued_minutes():
    cfg = config("USERWEIGHT 1\nUSERCFG[john] PRIORITY=300\n")
    now = 100_000
    jobs = [job("bob1", 1, 60, now - 5 * 3600, user="bob"), job("john1", 1, 60, now, user="john"),
            job("bob2", 1, 60, now - 4 * 3600, user="bob")]
    running = job("r", 1, 10**6, 0, start=0, nodes=("n0",))
    r = run_cycle(snapshot(now, cluster(1), jobs + [running]), cfg)
    assert prio(r, "john1").priority == prio(r, "bob1").priority == 300
    assert r.order == ["bob1", "john1", "bob2"]          # a tie goes to the earlier submit
    assert prio(r, "john1").components["CRED"] == 300


def test_case3_xfactor():
    cfg = config("XFACTORWEIGHT 100\nQUEUETIMEWEIGHT 0\n")
    now = 2 * 3600
    jobs = [job("short", 1, 3600, 0), job("long", 1, 4 * 3600, 0)]
    running = job("r", 1, 10**6, 0, start=0, nodes=("n0",))
    r = run_cycle(snapshot(now, cluster(1), jobs + [running]), cfg)
    assert prio(r, "short").subfactors["XFACTOR"] == 3.0
    assert prio(r, "long").subfactors["XFACTOR"] == 1.5
    assert r.order == ["short", "long"]
    assert prio(r, "short").clipped == 300


def test_caps_and_negative_priorities():
    cfg = config("USERWEIGHT 1\nUSERCAP 100\nUSERCFG[vip] PRIORITY=5000\nUSERCFG[low] PRIORITY=-50\n"
                 "QUEUETIMEWEIGHT 0\n")
    jobs = [job("v", 1, 60, 0, user="vip"), job("l", 1, 60, 0, user="low"), job("n", 1, 60, 0)]
    running = job("r", 1, 10**6, 0, start=0, nodes=("n0",))
    r = run_cycle(snapshot(10, cluster(1), jobs + [running]), cfg)
    assert prio(r, "v").priority == 100                   # capped
    assert prio(r, "l").priority == -50 and prio(r, "l").clipped == 1
    assert r.order == ["v", "n", "l"]
    rej = run_cycle(snapshot(10, cluster(1), jobs + [running]),
                    config("USERWEIGHT 1\nUSERCFG[low] PRIORITY=-50\nREJECTNEGPRIOJOBS TRUE\n"))
    assert "l" not in rej.order and "negative priority" in rej.reports["l"].reason


def test_system_priority_puts_a_job_first():
    from dataclasses import replace
    jobs = [job("a", 1, 60, 0), replace(job("b", 1, 60, 500), system_priority=5)]
    running = job("r", 1, 10**6, 0, start=0, nodes=("n0",))
    r = run_cycle(snapshot(1000, cluster(1), jobs + [running]), config())
    assert r.order == ["b", "a"] and prio(r, "b").clipped == 1_000_000_005
