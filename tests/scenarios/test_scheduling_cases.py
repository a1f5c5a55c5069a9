"""Golden workloads: expected start times and start kinds, one per behaviour (spec §7)."""

from dataclasses import replace

from maui_py.core.cycle import run_cycle
from maui_py.model import Defer, Hold, HoldType, JobState, Reserve

from .build import cluster, config, job, replay, snapshot

EASY = "RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n"


def test_case6_easy_backfills_a_short_job_not_a_long_one():
    jobs = [job("A", 3, 100, 0), job("B", 4, 100, 1), job("C", 1, 50, 2), job("E", 1, 200, 60)]
    res, got = replay(cluster(4), jobs, EASY)
    assert got == {"A": (0, "IMMEDIATE"), "B": (100, "IMMEDIATE"), "C": (2, "BACKFILL"),
                   "E": (200, "IMMEDIATE")}


def test_case11_each_backfill_start_bypasses_the_waiting_jobs_ahead():
    running = job("A", 3, 100, 0, start=0, nodes=("n0", "n1", "n2"))
    jobs = [running, job("B", 4, 100, 1), job("C", 1, 50, 2), job("D", 4, 100, 3)]
    r = run_cycle(snapshot(5, cluster(4), jobs), config(EASY))
    assert [(d.job_id, d.kind.value) for d in r.starts()] == [("C", "BACKFILL")]
    assert r.state.bypass == {"B": 1}                # D is behind C: not bypassed
    assert r.reports["B"].status == "reserved" and r.reports["B"].start == 100


def test_case11_two_backfill_starts_bypass_by_how_many_jumped_each_job():
    """Each waiting job counts the backfill starts behind it: B both, D only E's, F none;
    the same with and without explain (finish counts them by segments of the order)."""
    running = job("A", 2, 100, 0, start=0, nodes=("n0", "n1"))
    jobs = [running, job("B", 4, 100, 1), job("C", 1, 50, 2), job("D", 2, 200, 3),
            job("E", 1, 50, 4), job("F", 1, 50, 5)]
    for explain in (True, False):
        r = run_cycle(snapshot(5, cluster(4), jobs), config(EASY), explain=explain)
        assert [(d.job_id, d.kind.value) for d in r.starts()] == [("C", "BACKFILL"),
                                                                   ("E", "BACKFILL")]
        assert r.state.bypass == {"B": 2, "D": 1}


POLICY_JOBS = [job("A", 2, 100, 0), job("B", 4, 100, 1), job("C", 2, 200, 2),
               job("V", 4, 50, 10, user="vip")]
POLICY_CFG = EASY + "USERWEIGHT 1\nUSERCFG[vip] PRIORITY=1000\n"


def test_case7_reservation_policies_side_by_side():
    starts, at10 = {}, {}
    for policy in ("CURRENTHIGHEST", "HIGHEST", "NEVER"):
        seen = {}
        _res, got = replay(cluster(4), POLICY_JOBS, POLICY_CFG + f"RESERVATIONPOLICY {policy}\n",
                           on_cycle=lambda t, r: seen.setdefault(t, r.reservations()))
        starts[policy] = {k: v[0] for k, v in got.items()}
        at10[policy] = {d.job_id: d.start for d in seen[10]}
    # CURRENTHIGHEST: the later, higher-priority V takes the only reservation from B
    assert at10["CURRENTHIGHEST"] == {"V": 100}
    assert starts["CURRENTHIGHEST"] == {"A": 0, "V": 100, "B": 150, "C": 250}
    # HIGHEST: B keeps the reservation it once got and V reserves behind it. When A ends,
    # MQueueScheduleRJobs walks the jobs in priority order and re-makes each reservation
    # with MJobReserve, which destroys only that job's own (src/MJob.c, MJobReserve: "if
    # job already reserved, release reservation and try reservation again"): V, first,
    # still finds B's [100, 200) on all four nodes and stays at 200; B then starts at 100
    assert at10["HIGHEST"] == {"B": 100, "V": 200}
    assert starts["HIGHEST"] == {"A": 0, "B": 100, "V": 200, "C": 250}
    # NEVER: no reservation protects B, so C backfills at once and delays everything
    assert starts["NEVER"] == {"A": 0, "C": 2, "V": 202, "B": 252}


def test_case8_backfillpolicy_none_blocks_at_the_head_of_the_line():
    jobs = [job("A", 3, 100, 0), job("B", 4, 100, 1), job("C", 1, 10, 2)]
    _r, none = replay(cluster(4), jobs, "BACKFILLPOLICY NONE\n")
    _r, ff = replay(cluster(4), jobs, EASY)
    assert none["C"] == (200, "IMMEDIATE") and ff["C"] == (2, "BACKFILL")
    assert none["B"][0] == ff["B"][0] == 100


def test_case9_a_qos_outside_every_reservation_group_never_reserves():
    cfg = EASY + "RESERVATIONDEPTH[0] 1\nRESERVATIONQOSLIST[0] a\n"
    jobs = [job("A", 3, 100, 0), job("B", 4, 100, 1, qos="b"), job("C", 1, 500, 2, qos="a")]
    _r, got = replay(cluster(4), jobs, cfg)
    assert got["C"] == (2, "BACKFILL") and got["B"][0] == 502
    jobs[1] = job("B", 4, 100, 1, qos="a")
    _r, got = replay(cluster(4), jobs, cfg)
    assert got["B"][0] == 100 and got["C"][0] == 200


def test_qos_groups_have_their_own_depth():
    cfg = ("RESERVATIONDEPTH[0] 1\nRESERVATIONQOSLIST[0] hi\n"
           "RESERVATIONDEPTH[1] 2\nRESERVATIONQOSLIST[1] lo\n")
    busy = job("A", 4, 100, 0, start=0, nodes=("n0", "n1", "n2", "n3"))
    waiting = [job(j, 4, 100, k + 1, qos=q) for k, (j, q) in
               enumerate([("hi1", "hi"), ("hi2", "hi"), ("lo1", "lo"), ("lo2", "lo"), ("lo3", "lo")])]
    r = run_cycle(snapshot(10, cluster(4), [busy] + waiting), config(cfg))
    reserved = {d.job_id: d.start for d in r.reservations()}
    assert reserved == {"hi1": 100, "lo1": 200, "lo2": 300}
    assert "RESERVATIONDEPTH[0] 1 reached at job hi2" in r.reports["hi2"].reason


def test_conservative_backfill_gives_every_job_a_reservation():
    busy = job("A", 4, 100, 0, start=0, nodes=("n0", "n1", "n2", "n3"))
    waiting = [job(f"w{k}", 4 - k % 2, 100, k + 1) for k in range(5)]
    r = run_cycle(snapshot(10, cluster(4), [busy] + waiting), config("RESERVATIONDEPTH 1000\n"))
    assert sorted(d.start for d in r.reservations()) == [100, 200, 300, 400, 500]
    easy = run_cycle(snapshot(10, cluster(4), [busy] + waiting), config(EASY))
    assert [d.job_id for d in easy.reservations()] == ["w0"]


def test_backfill_policies_choose_differently_in_one_window():
    # 5 free nodes until a reservation at 100; a second wide job gets no reservation (depth
    # 1), so what follows is left to the backfill pass: 2, 3 and 4 procs for 50 s each
    busy = job("A", 1, 100, 0, start=0, nodes=("n5",))
    waiting = [job("W", 6, 100, 1), job("W2", 6, 100, 1), job("X", 2, 50, 2), job("Y", 3, 50, 3),
               job("Z", 4, 50, 4)]
    snap = snapshot(10, cluster(6), [busy] + waiting)
    got = {}
    for policy in ("FIRSTFIT", "BESTFIT", "GREEDY"):
        r = run_cycle(snap, config(f"BACKFILLPOLICY {policy}\n"))
        got[policy] = sorted(d.job_id for d in r.starts())
    assert got == {"FIRSTFIT": ["X", "Y"], "BESTFIT": ["Z"], "GREEDY": ["X", "Y"]}
    r = run_cycle(snap, config("BACKFILLPOLICY BESTFIT\nBACKFILLMETRIC SECONDS\n"))
    assert sorted(d.job_id for d in r.starts()) == ["X", "Y"]


def test_nobf_qos_and_backfilldepth():
    busy = job("A", 3, 100, 0, start=0, nodes=("n0", "n1", "n2"))
    waiting = [job("B", 4, 100, 1), job("C", 1, 50, 2, qos="nobf"), job("D", 1, 50, 3)]
    r = run_cycle(snapshot(5, cluster(4), [busy] + waiting),
                  config(EASY + "QOSCFG[nobf] QFLAGS=NOBF\n"))
    assert [d.job_id for d in r.starts()] == ["D"]
    # behind a second wide job (no reservation left) the rest is the backfill pass's:
    # BACKFILLDEPTH 1 looks at C only, which may not backfill
    waiting.insert(1, job("B2", 4, 100, 1))
    r = run_cycle(snapshot(5, cluster(4), [busy] + waiting),
                  config(EASY + "QOSCFG[nobf] QFLAGS=NOBF\nBACKFILLDEPTH 1\n"))
    assert r.starts() == []
    r = run_cycle(snapshot(5, cluster(4), [busy] + waiting),
                  config(EASY + "QOSCFG[nobf] QFLAGS=NOBF\nBACKFILLDEPTH 2\n"))
    assert [d.job_id for d in r.starts()] == ["D"]


def test_case10_defer_then_batch_hold_after_defercount():
    cfg = "SYSTEMMAXPROCPERJOB 2\nDEFERTIME 100\nDEFERCOUNT 2\n"
    decisions = []
    res, got = replay(cluster(4), [job("big", 4, 60, 0), job("ok", 1, 60, 0)], cfg,
                      on_cycle=lambda t, r: decisions.extend((t, d) for d in r.decisions))
    defers = [t for t, d in decisions if isinstance(d, Defer) and d.job_id == "big"]
    holds = [(t, d.hold) for t, d in decisions if isinstance(d, Hold)]
    assert defers == [0, 100, 200] and holds == [(200, HoldType.BATCH)]
    assert got["ok"][0] == 0 and got["big"] == (None, None)
    assert "exceeds system proc/job limit" in res.state.batch_holds["big"]


def test_a_job_wider_than_the_cluster_is_deferred_with_the_reason():
    r = run_cycle(snapshot(0, cluster(2), [job("wide", 3, 60, 0)]), config())
    d = [x for x in r.decisions if isinstance(x, Defer)]
    assert len(d) == 1 and "wider than the cluster" in d[0].reason
    assert r.reports["wide"].status == "deferred"


def test_soft_then_hard_throttling_limits():
    cfg = EASY + "USERCFG[bob] MAXJOB=1,2\n"
    jobs = [job(f"b{k}", 1, 100, k, user="bob") for k in range(3)]
    r = run_cycle(snapshot(10, cluster(4), jobs), config(cfg))
    assert [(d.job_id, d.kind.value) for d in r.starts()] == [("b0", "IMMEDIATE"), ("b1", "BACKFILL")]
    assert r.reports["b2"].reason == "blocked: MAXJOB 2 reached for user bob"
    r = run_cycle(snapshot(10, cluster(4), jobs[:2]), config(EASY + "USERCFG[bob] MAXJOB=1,2\n"
                                                            "BACKFILLPOLICY NONE\n"))
    assert [d.job_id for d in r.starts()] == ["b0"]
    assert r.reports["b1"].reason.startswith("soft limit MAXJOB 1 reached for user bob")


def test_idle_job_limit_blocks_the_rest_and_restarts_their_queue_time():
    cfg = "USERCFG[bob] MAXIJOB=1\n"
    busy = job("A", 1, 1000, 0, start=0, nodes=("n0",))
    jobs = [busy, job("b0", 1, 60, 0, user="bob"), job("b1", 1, 60, 5, user="bob")]
    r = run_cycle(snapshot(100, cluster(1), jobs), config(cfg))
    assert r.order == ["b0"] and r.reports["b1"].reason == "blocked: MAXIJOB 1 reached for user bob"
    assert r.state.queue_time == {"b1": 100}


def test_held_jobs_are_reported_and_skipped():
    jobs = [job("h", 1, 60, 0, holds=(HoldType.USER,)), job("ok", 1, 60, 1)]
    r = run_cycle(snapshot(10, cluster(1), jobs), config())
    assert [d.job_id for d in r.starts()] == ["ok"]
    assert r.reports["h"].status == "held" and "User" in r.reports["h"].reason


def _running(j, allocation, t):
    return replace(j, state=JobState.RUNNING, start_time=t, allocation=allocation)


def test_failed_start_retry_hold_then_defer():
    cfg = config("DEFERSTARTCOUNT 2\nRESERVATIONRETRYTIME 300\nDEFERTIME 600\n")
    nodes = cluster(2)
    j = job("j", 2, 100, 0)
    r1 = run_cycle(snapshot(10, nodes, [j], seq=1), cfg)
    (start,) = r1.starts()
    # the resource manager refused it: the job is still idle in the next snapshot
    state = r1.state
    state.failed["j"] = "BadConstraints"
    r2 = run_cycle(snapshot(20, nodes, [j], seq=2), cfg, state)
    assert r2.state.start_counts["j"] == 1
    kept = [d for d in r2.decisions if isinstance(d, Reserve)]
    starts = r2.starts()
    # within the retry time the job is held on the same nodes and tried again at once
    assert starts and starts[0].allocation == start.allocation and starts[0].kind.value == "RESERVED"
    assert not kept
    r3 = run_cycle(snapshot(30, nodes, [j], seq=3), cfg, r2.state)
    defers = [d for d in r3.decisions if isinstance(d, Defer)]
    assert defers and "start failed 2 time(s)" in defers[0].reason and defers[0].until == 630
    assert r3.starts() == []


def test_a_confirmed_start_is_not_counted_as_a_failure():
    cfg = config()
    nodes = cluster(2)
    j = job("j", 2, 100, 0)
    r1 = run_cycle(snapshot(10, nodes, [j]), cfg)
    (s,) = r1.starts()
    r2 = run_cycle(snapshot(20, nodes, [_running(j, s.allocation, 10)]), cfg, r1.state)
    assert r2.state.start_counts == {} and r2.state.pending == {}
    assert r2.reports["j"].status == "running"


def test_setspri_and_runjob_from_the_scheduler_state():
    cfg = config(EASY + "USERCFG[bob] MAXJOB=1\n")
    busy = job("A", 1, 1000, 0, start=0, nodes=("n0",), user="bob")
    waiting = [job("old", 1, 100, 0), job("new", 1, 100, 50), job("bob2", 1, 100, 60, user="bob")]
    r = run_cycle(snapshot(100, cluster(2), [busy] + waiting), config(EASY))
    assert [d.job_id for d in r.starts()] == ["old"]
    from maui_py.core.state import SchedulerState
    st = SchedulerState(system_priority={"new": 10})
    r = run_cycle(snapshot(100, cluster(2), [busy] + waiting), config(EASY), st)
    assert [d.job_id for d in r.starts()] == ["new"] and r.priorities["new"].clipped == 1_000_000_010
    st = SchedulerState(run_now={"bob2"})
    r = run_cycle(snapshot(100, cluster(2), [busy] + waiting), cfg, st)
    assert [d.job_id for d in r.starts()] == ["bob2"]          # past bob's MAXJOB 1
    assert r.state.run_now == set()


def test_nodecfg_priority_features_and_partition():
    cfg = config("NODEALLOCATIONPOLICY PRIORITY\nNODECFG[n2] PRIORITY=10 FEATURES=gpu\n"
                 "NODECFG[n0] PARTITION=debug\n")
    jobs = [job("a", 1, 60, 0), job("f", 1, 60, 1, features=frozenset({"gpu"})),
            job("d", 1, 60, 2, class_="debug"), job("b", 1, 60, 3, class_="batch")]
    r = run_cycle(snapshot(10, cluster(4), jobs), cfg)
    got = {d.job_id: d.nodes for d in r.starts()}
    # a takes the node with the highest NODECFG PRIORITY; f needs the feature only n2 has;
    # n0 serves debug only
    assert got == {"a": ("n2",), "d": ("n0",), "b": ("n1",)}
    assert r.reports["f"].start == 70 and r.reports["f"].nodes == ("n2",)


def test_equal_priorities_order_numeric_ids_as_numbers():
    busy = job("r", 1, 1000, 0, start=0, nodes=("n0",))
    jobs = [busy] + [job(str(k), 1, 60, 5) for k in (10, 8, 9)]
    r = run_cycle(snapshot(5, cluster(1), jobs), config())
    assert r.order == ["8", "9", "10"]
