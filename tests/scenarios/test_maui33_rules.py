"""MAUICOMPAT 3.3, one rule at a time (planning/maui33.py): each case is one where maui-py's
own rule and Maui 3.3's choose differently, so each assertion fails under the other rule."""

from dataclasses import replace

import pytest

from maui_py.cfg.choices import MauiCompat
from maui_py.core.compat import COMPAT_RULES, MAUI33_HIGHEST
from maui_py.core.cycle import run_cycle
from maui_py.model import ClusterSnapshot, Reservation, ReservationKind, Resources
from maui_py.model.reservation import Acl
from maui_py.planning import maui33, maui33_alloc, owners
from maui_py.planning.table import ReservationTable
from maui_py.sim.engine import _Turn

from .build import cluster, config, job

EASY = "RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\nQUEUETIMEWEIGHT 1\n"


def _cycle(nodes, jobs, text, reservations=(), now=10):
    snap = ClusterSnapshot(now, tuple(nodes), tuple(jobs), reservations=tuple(reservations))
    return run_cycle(snap, config(text))


def _starts(result):
    return {d.job_id: tuple(sorted(d.nodes)) for d in result.starts()}


def _pinned_case(compat: str):
    """Six one-processor nodes; r holds n0, n1 until 100 and s holds n5 until 300. A (4
    procs) reserves at 100, when n0-n4 are free; B (1 proc, 200 s) would backfill."""
    jobs = [job("r", 2, 100, 0, start=0, nodes=("n0", "n1")),
            job("s", 1, 300, 0, start=0, nodes=("n5",)),
            job("A", 4, 100, 1), job("B", 1, 200, 2)]
    return _cycle(cluster(6), jobs, EASY + "NODEALLOCATIONPOLICY LASTAVAILABLE\n" + compat)


def test_rule1_a_reservation_takes_the_last_feasible_nodes_by_index():
    # MJobGetRange lists n0-n4 in node order, MJobAllocMNL takes the last four: every idle
    # node is pinned from 100, so B (200 s) has no window; maui-py's best fit in time
    # (or the count planner, which names no nodes) leaves room for B.
    maui = _pinned_case("MAUICOMPAT 3.3\n")
    (res,) = maui.reservations()
    assert res.job_id == "A" and res.start == 100
    assert tuple(sorted(n for n, _r in res.allocation)) == ("n1", "n2", "n3", "n4")
    assert "B" not in _starts(maui)
    assert "B" in _starts(_pinned_case(""))


def test_rule2_a_start_takes_the_longest_available_nodes_highest_index_first():
    # n3 is reserved from 50: its availability is the shortest, and MNodeSelectIdleTasks'
    # sort puts it first; MJobAllocMNL takes from the end, n2 (highest index of the
    # unbounded ones). maui-py's best fit in time takes n3, used again soonest.
    maint = Reservation("maint", ReservationKind.USER, 50, 500, hosts=("n3",))
    text = EASY + "NODEALLOCATIONPOLICY LASTAVAILABLE\n"
    jobs = [job("J", 1, 20, 0)]
    assert _starts(_cycle(cluster(4), jobs, text + "MAUICOMPAT 3.3\n", [maint])) == {"J": ("n2",)}
    assert _starts(_cycle(cluster(4), jobs, text, [maint])) == {"J": ("n3",)}
    two = [job("K", 2, 20, 0)]
    assert _starts(_cycle(cluster(4), two, text + "MAUICOMPAT 3.3\n")) == {"K": ("n2", "n3")}
    assert _starts(_cycle(cluster(4), two, text)) == {"K": ("n0", "n1")}


def test_rule2_minresource_takes_the_highest_index_of_the_smallest_nodes():
    text = EASY + "NODEALLOCATIONPOLICY MINRESOURCE\n"
    jobs = [job("J", 1, 20, 0)]
    assert _starts(_cycle(cluster(4), jobs, text + "MAUICOMPAT 3.3\n")) == {"J": ("n3",)}
    assert _starts(_cycle(cluster(4), jobs, text)) == {"J": ("n0",)}


def _windows_case(compat: str, base: str = EASY):
    """Six nodes. r holds n4, n5 until 1000; T (6 procs) reserves at 1000 (depth 1) and U
    (6 procs) can neither start nor reserve, which ends the priority pass (IdleJobFound in
    MQueueScheduleIJobs); n0, n1 are reserved from 100 (maint), n2, n3 free until T.
    Backfill candidates in priority order: L (2 procs, 500 s), S and S2 (2 procs, 50 s)."""
    maint = Reservation("maint", ReservationKind.USER, 100, 200, hosts=("n0", "n1"))
    jobs = [job("r", 2, 1000, 0, start=0, nodes=("n4", "n5")), job("T", 6, 100, 1),
            job("U", 6, 100, 1), job("L", 2, 500, 2), job("S", 2, 50, 3), job("S2", 2, 50, 4)]
    return _starts(_cycle(cluster(6), jobs, base + compat, [maint]))


def test_rule3_backfill_fills_the_shortest_window_first():
    # MQueueBackFill: the first window is every idle node for 100 s; S and S2 fit it and
    # start there, on the longest-available nodes first; the next window (1000 s) has
    # no node left for L. maui-py backfills in priority order: L on n2, n3, S on n0, n1.
    assert _windows_case("MAUICOMPAT 3.3\n") == {"S": ("n2", "n3"), "S2": ("n0", "n1")}
    assert _windows_case("") == {"L": ("n2", "n3"), "S": ("n0", "n1")}


def test_rule3_greedy_backfills_nothing():
    # MBFGreedy walks LBFQueue, which it clears and never fills: no schedule, no start.
    # maui-py's GREEDY (the documented search) starts S and S2 (or L) in the same windows.
    greedy = EASY.replace("FIRSTFIT", "GREEDY")
    assert _windows_case("MAUICOMPAT 3.3\n", greedy) == {}
    assert _windows_case("", greedy)


def _four_proc_case(extra_jobs, reservations=()):
    """Three nodes of 4 processors; on n2, r (2 procs) runs until 300 and q (1 proc) until
    400: one processor free now, three from 300, four from 400."""
    jobs = [job("r", 2, 300, 0, start=0, nodes=("n2",), per_node=2),
            job("q", 1, 400, 0, start=0, nodes=("n2",)), *extra_jobs]
    return _starts(_cycle(cluster(3, procs=4), jobs,
                          EASY + "NODEALLOCATIONPOLICY LASTAVAILABLE\nMAUICOMPAT 3.3\n",
                          reservations))


def test_rule2_a_partly_used_node_is_available_until_its_free_count_changes():
    # MJobGetNRange's window on n2 ends where its free count grows: 300 merges into the
    # first range (it holds more), 400 does not (the range already lasts the job's 20 s),
    # so n2 is available for 390 s and the idle n0, n1 for ever: J goes to n1. Counting
    # n2 as available for as long as its free processors stay free puts J on n2.
    assert _four_proc_case([job("J", 1, 20, 1)]) == {"J": ("n1",)}


def test_rule3_a_window_counts_a_partly_used_node_until_its_free_count_changes():
    # maint holds every node from 1000, B (12 procs, 2000 s) reserves after it and U cannot
    # start or reserve, which ends the priority pass (as in _windows_case). Backfill
    # (MBFGetWindow's BFWindow pseudo-job, one task for one second): n2 is available for
    # 390 s (as above), n0 and n1 for 990 s. The first window (390 s) is too short for J
    # (500 s); the second holds n0 and n1 only, J takes n1. With n2 counted as available
    # until 1000, the second window holds n2 too and J takes it (highest index).
    maint = Reservation("maint", ReservationKind.USER, 1000, 2000, hosts=("n0", "n1", "n2"))
    got = _four_proc_case([job("B", 12, 2000, 0), job("U", 12, 2000, 0), job("J", 1, 500, 1)],
                          [maint])
    assert got == {"J": ("n1",)}


def _open_reservation_case(compat: str):
    """Four nodes; r holds n0, n1 until 1000; "owners" holds n2, n3 for u1 (USERLIST). B
    (2 procs) reserves at 1000, U cannot start or reserve (the priority pass ends there);
    J (u1, 2 procs, 50 s) is the backfill candidate."""
    owners = Reservation("owners", ReservationKind.STANDING, 0, 100000, hosts=("n2", "n3"),
                         acl=Acl(users=frozenset({"u1"})))
    jobs = [job("r", 2, 1000, 0, start=0, nodes=("n0", "n1")), job("B", 2, 100, 0),
            job("U", 2, 100, 0), job("J", 2, 50, 1, user="u1")]
    return _starts(_cycle(cluster(4), jobs, EASY + compat, [owners]))


def test_rule3_a_reservation_open_to_all_is_part_of_the_windows():
    # MBFGetWindow's pseudo-job BFWindow is user, group, account and class "[ALL]", which
    # MACLCheckAccess matches against any ACL entry: the owners' nodes are free to it, the
    # window holds n2, n3 for ever, and J, which may use them, backfills there although no
    # processor outside the reservation is free (Maui 3.3, kth-standing-reservation).
    assert _open_reservation_case("MAUICOMPAT 3.3\n") == {"J": ("n2", "n3")}


HIGHEST = ("RESERVATIONPOLICY HIGHEST\nRESERVATIONDEPTH 10\nBACKFILLPOLICY FIRSTFIT\n"
           "QUEUETIMEWEIGHT 1\nNODEALLOCATIONPOLICY LASTAVAILABLE\n")


@pytest.fixture
def maui_highest(monkeypatch):
    """MAUICOMPAT 3.3 with Maui's own HIGHEST re-make (core/compat.MAUI33_HIGHEST: rules 4,
    5), as MAUICOMPAT 3.3 selects, set here so the rule stays tested whatever it selects."""
    monkeypatch.setitem(COMPAT_RULES, MauiCompat("3.3"), MAUI33_HIGHEST)


def _kept_starts(compat: str, times: tuple[int, ...]) -> dict[str, int]:
    """Three one-processor nodes: r0 holds n0 until 110, r1 holds n1, n2 until 50; A and B
    (three processors, 100 s each) are reserved back to back at 110 and 210 by the cycle
    at 10, then kept under HIGHEST by the cycles at `times`. The kept starts after them."""
    jobs = [job("r0", 1, 110, 0, start=0, nodes=("n0",)),
            job("r1", 2, 50, 0, start=0, nodes=("n1", "n2")),
            job("A", 3, 100, 1), job("B", 3, 100, 2)]
    cfg = config(HIGHEST + compat)
    state, res = None, None
    for now in (10, *times):
        res = run_cycle(ClusterSnapshot(now, tuple(cluster(3)), tuple(jobs)), cfg, state)
        state = res.state
    return {r.job_id: r.start for r in res.reservations()}


def test_rule4_a_kept_reservation_is_remade_where_mjobgetestarttime_finds_a_start(maui_highest):
    # A re-made at 11: n1, n2 offer starts in [50, 110], n0 only at 110 (its place is as
    # long as A). MRLMerge closes the ranges ending at 110 before it opens those starting
    # there, so no merged range holds 3 tasks at 110: A goes behind B (310) and B takes
    # 110. maui-py's own rule keeps A at its earliest start, 110, never later.
    assert _kept_starts("MAUICOMPAT 3.3\n", (11,)) == {"A": 310, "B": 110}
    assert _kept_starts("", (11,)) == {"A": 110, "B": 210}


def test_rule5_kept_reservations_are_remade_once_a_cycle(maui_highest):
    # Maui re-makes them once an iteration (MQueueScheduleRJobs): the cycle at 11 moves A
    # behind B; at 12 the next walk moves A to 210 (free behind B) and then B behind it
    # (the same merge); at 13 back to the start: the order goes round every three cycles.
    # A cycle at 12 after 10 walks once, as an iteration does, whatever the gap; walking
    # until none moves (maui-py's rule) would go round without end (the guard stops it).
    assert _kept_starts("MAUICOMPAT 3.3\n", (12,)) == {"A": 310, "B": 110}
    assert _kept_starts("MAUICOMPAT 3.3\n", (11, 12)) == {"A": 210, "B": 310}
    assert _kept_starts("MAUICOMPAT 3.3\n", (11, 12, 13)) == {"A": 110, "B": 210}


def _turning_replay(r0_end: int, **options) -> dict[str, int]:
    """_kept_starts' jobs replayed: j1 (two nodes, 50 s) and j2 (one node, ending at
    `r0_end`) from 0, A and B (three nodes, 100 s) arriving at 9 and 10. Their starts."""
    from .build import replay
    jobs = [job("j1", 2, 50, 0), job("j2", 1, 110, 0), job("A", 3, 100, 9),
            job("B", 3, 100, 10)]
    _res, starts = replay(cluster(3), jobs, HIGHEST + "MAUICOMPAT 3.3\n",
                          runtimes={"j2": r0_end}, **options)
    return {j: starts[j][0] for j in ("A", "B")}


@pytest.mark.parametrize("r0_end", [95, 96, 97, 98, 110])
def test_rule5_a_replay_cycles_each_second_while_kept_reservations_go_round(r0_end,
                                                                           monkeypatch,
                                                                           maui_highest):
    # A and B swap places every second (period 3) from 10 on; j2's early end at r0_end
    # starts whichever is in front the second before, as a cycle every second
    # (poll_interval=1, Maui's iterations in maui-sim) starts it. The replay cycles only
    # while they move, and leaves out whole rounds (sim/engine._Turn); cycling at events
    # only (the step taken out) starts the other one first at 95, 97, 98 and 110.
    every_second = _turning_replay(r0_end, poll_interval=1)
    assert _turning_replay(r0_end) == every_second
    monkeypatch.setattr(_Turn, "next_cycle", lambda self, t: t)
    if r0_end != 96:
        assert _turning_replay(r0_end) != every_second


def _definition(table, cr, duration, now, *, policy, ignore=()):
    """MJobGetEStartTime as its source reads, with nothing left out or remembered: every
    feasible node's start ranges worked out afresh, MRLMerge folded over them literally,
    each candidate (all range starts when the first range holds the tasks, else those
    that hold them) tried in order by a scan bounded to it; the earliest start when none
    fits."""
    from maui_py.planning.bitset import members
    from maui_py.planning.mrlmerge import merge
    per_task = max(1, cr.d[0]) if cr.d else 1
    g = []
    for i in members(cr.eligible & table.usable):
        s = maui33._start_ranges(maui33._node_ranges(
            maui33.free_steps(table, i, now, frozenset(ignore)), per_task, duration), duration)
        if s:
            g = merge(g, s)
    tried = [r[0] for r in g if g[0][2] >= cr.tasks or r[2] >= cr.tasks]
    for t in tried:
        at = max(t, now)
        p = table.earliest_start(cr, duration, at, policy=policy, until=at, ignore=ignore)
        if p:
            return p
    return table.earliest_start(cr, duration, now, policy=policy, ignore=ignore)


def test_rule4_reserve_start_is_mjobgetestarttime_as_defined(monkeypatch, maui_highest):
    # reserve_start remembers the merge across seconds (mrlmerge.merge_all_at) and reads
    # node start ranges from a cache; on the turning replays every re-make must be where
    # the definition puts it (start and nodes), both where Maui's merge finds the earliest
    # start and where it misses it, and the memo must have been used.
    from maui_py.planning import mrlmerge
    calls = {"earliest": 0, "later": 0, "remembered": 0}

    def checked(table, cr, duration, now, *, policy, ignore=()):
        folded = len(mrlmerge._FOLDED)
        fast = reserve(table, cr, duration, now, policy=policy, ignore=ignore)
        calls["remembered"] += len(mrlmerge._FOLDED) == folded
        want = _definition(table, cr, duration, now, policy=policy, ignore=ignore)
        assert (fast.start, fast.allocation) == (want.start, want.allocation)
        first = table.earliest_start(cr, duration, now, policy=policy, ignore=ignore)
        calls["later" if want.start > first.start else "earliest"] += 1
        return fast

    reserve = maui33.reserve_start
    rules = COMPAT_RULES[MauiCompat("3.3")]
    monkeypatch.setitem(COMPAT_RULES, MauiCompat("3.3"), replace(rules, reserve_start=checked))
    mrlmerge._FOLDED.clear()
    for r0_end in (95, 96, 110):
        _turning_replay(r0_end)
    assert calls["earliest"] > 0 and calls["later"] > 0 and calls["remembered"] > 0, calls


def test_rule4_a_new_reservation_is_made_where_mjobgetestarttime_finds_a_start(maui_highest):
    # Maui makes a new priority reservation with the same MJobReserve (MQueueScheduleIJobs)
    # as it re-makes a kept one. After the walk at 12 (A at 210, B at 310: rule 5's
    # second cycle) C (three nodes, 100 s) arriving then has a place exactly as long as
    # it, [110, 210), where n1, n2 offer starts from 50 and n0 only at 110: MRLMerge
    # misses it, as it missed A's at 11, so C goes behind B (410). maui-py's rule takes
    # the earliest start, 110.
    def starts(compat: str) -> dict[str, int]:
        jobs = [job("r0", 1, 110, 0, start=0, nodes=("n0",)),
                job("r1", 2, 50, 0, start=0, nodes=("n1", "n2")),
                job("A", 3, 100, 1), job("B", 3, 100, 2), job("C", 3, 100, 12)]
        cfg = config(HIGHEST + compat)
        state, res = None, None
        for now in (10, 11, 12):
            snap = ClusterSnapshot(now, tuple(cluster(3)),
                                   tuple(j for j in jobs if j.submit_time <= now))
            res = run_cycle(snap, cfg, state)
            state = res.state
        return {r.job_id: r.start for r in res.reservations()}

    assert starts("MAUICOMPAT 3.3\n") == {"A": 210, "B": 310, "C": 410}
    assert starts("") == {"A": 110, "B": 210, "C": 310}


@pytest.mark.parametrize("b_at", [11, 12, 13])
def test_rule5_the_round_starts_the_second_after_a_cycle_that_made_a_reservation(
        b_at, maui_highest):
    # B's new reservation (behind A) moves nothing in its cycle, yet the next second's walk
    # puts A behind B (rule 4): Maui's round starts at b_at + 1, not at the next event
    # (j1's end at 50). So after any cycle that leaves kept reservations the replay cycles
    # the next second too (sim/engine._Turn), and stops when that cycle moves nothing; a
    # round begun at 50 instead would be b_at - 10 seconds (mod 3) out of phase at j2's end.
    from .build import replay
    jobs = [job("j1", 2, 50, 0), job("j2", 1, 110, 0), job("A", 3, 100, 9),
            job("B", 3, 100, b_at)]

    def starts(**options):
        _res, got = replay(cluster(3), jobs, HIGHEST + "MAUICOMPAT 3.3\n",
                           runtimes={"j2": 96}, **options)
        return {j: got[j][0] for j in ("A", "B")}

    assert starts() == starts(poll_interval=1)


def test_rule4_cached_start_ranges_are_those_of_the_node_as_it_stands(monkeypatch,
                                                                      maui_highest):
    # reserve_start reads each node's start ranges from planning/maui33._STARTS, shared by
    # nodes with one step function and the same ignored holds; on the turning replays each
    # read must equal the ranges worked out afresh from the node's holds as they stand.
    real = maui33._node_starts
    calls = {"hit": 0, "all": 0}

    def checked(table, i, per_task, duration, now, ignore):
        before = len(maui33._STARTS)
        got = real(table, i, per_task, duration, now, ignore)
        fresh = maui33._start_ranges(maui33._node_ranges(
            maui33.free_steps(table, i, now, frozenset(ignore)), per_task, duration), duration)
        assert got == fresh, (i, now, duration, got, fresh)
        calls["all"] += 1
        calls["hit"] += len(maui33._STARTS) == before
        return got

    monkeypatch.setattr(maui33, "_node_starts", checked)
    for r0_end in (95, 96, 110):
        _turning_replay(r0_end)
    assert calls["hit"] > 0 and calls["all"] > calls["hit"], calls



def _reserved_start(compat: str, reservations=(), user: str = "user") -> tuple[dict, dict]:
    """Four one-processor nodes: r0 holds n0-n2 until 100, r1 holds n3 until 300 but ends
    at 100. Under HIGHEST the cycle at 10 reserves A (2 procs, 100 s) at 100 and B (3
    procs, 100 s) at 200; the cycle at 100 (r0, r1 gone) re-makes A's kept reservation at
    now and starts it. A's and B's nodes at 10 (reservations) and A's at 100 (its start)."""
    jobs = [job("r0", 3, 100, 0, start=0, nodes=("n0", "n1", "n2")),
            job("r1", 1, 300, 0, start=0, nodes=("n3",)),
            job("A", 2, 100, 1, user=user), job("B", 3, 100, 2, user=user)]
    cfg = config(HIGHEST + compat)
    first = run_cycle(ClusterSnapshot(10, tuple(cluster(4)), tuple(jobs),
                                      reservations=tuple(reservations)), cfg)
    held = {r.job_id: tuple(sorted(n for n, _r in r.allocation)) for r in first.reservations()}
    later = run_cycle(ClusterSnapshot(100, tuple(cluster(4)), tuple(jobs[2:]),
                                      reservations=tuple(reservations)), cfg, first.state)
    return held, _starts(later)


@pytest.mark.parametrize("highest", [False, True])
def test_rule6_a_reserved_start_takes_the_last_feasible_nodes_by_index(highest, monkeypatch):
    # At 10 A is reserved on n1, n2 (the last two by index free at 100). At 100 r1's early
    # end frees n3: MQueueScheduleRJobs re-makes A with MJobReserve, which destroys A's
    # reservation first and whose MJobAllocMNL takes MJobGetRange's list (node order,
    # not sorted) from the end: n3, n2, and A starts there, as job 130 did at 675700 in
    # kth-cons-highest (n100). maui-py's own rule keeps the nodes A held (nodechoice
    # prefer). So under Maui's re-make (MAUI33_HIGHEST) too.
    if highest:
        monkeypatch.setitem(COMPAT_RULES, MauiCompat("3.3"), MAUI33_HIGHEST)
    held, started = _reserved_start("MAUICOMPAT 3.3\n")
    assert held == {"A": ("n1", "n2"), "B": ("n0", "n1", "n2")}
    assert started == {"A": ("n2", "n3")}
    rules = COMPAT_RULES[MauiCompat("3.3")]
    monkeypatch.setitem(COMPAT_RULES, MauiCompat("3.3"),
                        replace(rules, reserve_start=maui33.reserve_start if highest
                                else lambda t, cr, d, now, *, policy, ignore=():
                                t.earliest_start(cr, d, now, policy=policy, ignore=ignore)))
    assert _reserved_start("MAUICOMPAT 3.3\n")[1] == {"A": ("n1", "n2")}


def test_rule6_a_reserved_start_is_not_sorted_by_availability():
    # Job 128 in kth-cons-highest (675580): at its start Maui took n035-n064, n093-n098,
    # where 129's reservation begins at 128's end, over 34 nodes free for ever: the list
    # MJobReserve takes from is in node order. Here B (n1-n3 from 200) leaves n0 free for
    # ever at A's start; A takes n3, n2, where a start without a reservation (rule 2,
    # MNodeSelectIdleTasks' sort by availability) takes n0 first.
    jobs = [job("r", 4, 100, 0, start=0, nodes=("n0", "n1", "n2", "n3")),
            job("A", 2, 100, 1), job("B", 3, 100, 2)]
    cfg = config(HIGHEST + "MAUICOMPAT 3.3\n")
    first = run_cycle(ClusterSnapshot(10, tuple(cluster(4)), tuple(jobs)), cfg)
    later = run_cycle(ClusterSnapshot(100, tuple(cluster(4)), tuple(jobs[1:])), cfg, first.state)
    assert _starts(later) == {"A": ("n2", "n3")}
    fresh = run_cycle(ClusterSnapshot(100, tuple(cluster(4)), (jobs[1],),
                                      reservations=(Reservation("b", ReservationKind.USER, 200,
                                                                300, hosts=("n1", "n2", "n3")),)),
                      cfg)
    assert _starts(fresh) == {"A": ("n0", "n3")}


def test_rule6_the_nodes_of_a_reservation_the_job_may_use_come_first():
    # "owners" holds n0, n1 for u1 (an ACL entry is Positive affinity unless written with
    # '-' or '=', MACLSet): MJobAllocMNL's pass 1 (PositiveAffinity) takes them before
    # pass 3 (None) looks at n3, n2, both when A's reservation is made (at 10) and when
    # it is re-made at its start (at 100).
    owners_res = Reservation("owners", ReservationKind.STANDING, 0, 100000, hosts=("n0", "n1"),
                             acl=Acl(users=frozenset({"u1"})))
    held, started = _reserved_start("MAUICOMPAT 3.3\n", [owners_res], user="u1")
    assert held["A"] == ("n0", "n1") and started == {"A": ("n0", "n1")}


def test_rule6_a_job_s_own_reservation_gives_its_nodes_no_level():
    # MJobReserve destroys the job's own reservation before MJobAllocMNL: the nodes it
    # held get no level; a reservation the job may use gives its nodes the Positive one.
    table = ReservationTable(cluster(4), 0)
    table.reserve(owners.priority("A"), 10, 20, [("n2", Resources.of(1)),
                                                 ("n3", Resources.of(1))], kind="priority")
    table.reserve("standing:owners", 0, 100, [("n0", Resources.of(1))])
    order = maui33_alloc.reserve_order(table, "LASTAVAILABLE",
                                       (owners.priority("A"), "standing:owners"))
    assert order.positive == 0b0001


def _kept_nodes(cancel_at: int) -> dict[str, tuple[str, ...]]:
    """Four one-processor nodes, all held by r until 100; B (2 procs, submitted first)
    and A (2 procs) reserved at 100 by the cycle at 10; B cancelled before the cycle at
    `cancel_at`, which re-makes A at the start it had. The kept reservations' nodes."""
    jobs = [job("r", 4, 100, 0, start=0, nodes=("n0", "n1", "n2", "n3")),
            job("B", 2, 100, 1), job("A", 2, 100, 2)]
    cfg = config(HIGHEST + "MAUICOMPAT 3.3\n")
    res = run_cycle(ClusterSnapshot(10, tuple(cluster(4)), tuple(jobs)), cfg)
    if cancel_at:
        res = run_cycle(ClusterSnapshot(cancel_at, tuple(cluster(4)), (jobs[0], jobs[2])), cfg,
                        res.state)
    return {r.job_id: tuple(sorted(n for n, _r in r.allocation)) for r in res.reservations()}


def test_rule6_a_kept_reservation_is_remade_on_the_nodes_its_remake_finds(maui_highest,
                                                                         monkeypatch):
    # MQueueScheduleRJobs re-makes A every iteration with MJobReserve, which destroys it
    # first: at 11, with B gone, the last two feasible nodes at 100 are n2, n3 and A moves
    # there, its start unchanged (sdsc-cons-highest-minresource reproduces only so).
    # maui-py's own rule leaves a reservation that keeps its start on its nodes.
    assert _kept_nodes(0) == {"B": ("n2", "n3"), "A": ("n0", "n1")}
    assert _kept_nodes(11) == {"A": ("n2", "n3")}
    monkeypatch.setitem(COMPAT_RULES, MauiCompat("3.3"), replace(MAUI33_HIGHEST, repin=False))
    assert _kept_nodes(11) == {"A": ("n0", "n1")}
