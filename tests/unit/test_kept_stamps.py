"""HIGHEST's kept reservations are re-made only when room came free that they could use
(policy/kept.Stamps): counted in operations (re-makes), never in seconds."""

from __future__ import annotations

from maui_py.cfg import parse_config
from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.policy import highest, kept
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import SimJob

CFG = ("RESERVATIONPOLICY HIGHEST\nRESERVATIONDEPTH 100\nQUEUETIMEWEIGHT 1\n"
       "BACKFILLPOLICY FIRSTFIT\n")
NODES = (Node("c0", Resources.of(4, mem=4096)),
         Node("g0", Resources.of(4, mem=4096, gres={"gpu": 1})))
GPU = Resources.of(1, gpu=1)


def _workload(gpu_runs: int) -> list[SimJob]:
    """A GPU job holds the one GPU (limit 10,000 s, it runs `gpu_runs`); five GPU jobs wait
    behind it, each reserved; forty one-core jobs arrive and end early, one by one."""
    sims = [SimJob(Job("gpu-long", "u", JobRequest(per_task=GPU), 10_000, 0), gpu_runs)]
    sims += [SimJob(Job(f"gpu-{k}", "u", JobRequest(per_task=GPU), 1_000, 1 + k), 1_000)
             for k in range(5)]
    sims += [SimJob(Job(f"cpu-{k:02d}", "u", JobRequest(), 5_000, 10 + 50 * k), 20)
             for k in range(40)]
    return sims


def _replay(sims, settled: bool, monkeypatch, text: str = CFG):
    """(every cycle's starts and reservations, each job's start, re-makes made)."""
    monkeypatch.setattr(kept, "SETTLED", settled)
    remakes = [0]
    slide = highest._slide

    def counted(*a):
        remakes[0] += 1
        return slide(*a)
    monkeypatch.setattr(highest, "_slide", counted)
    seen = []
    res = Simulation(NODES, sims, parse_config(text), SimOptions(on_cycle=lambda now, r: seen.append(
        (now, sorted(d.job_id for d in r.starts()),
         sorted((j, k.start, k.allocation) for j, k in r.state.reservations.items()))))).run()
    monkeypatch.setattr(highest, "_slide", slide)
    return seen, {j: r.start for j, r in res.records.items()}, remakes[0]


def test_room_the_reservations_cannot_use_re_makes_none_of_them(monkeypatch):
    fast = _replay(_workload(10_000), True, monkeypatch)
    definition = _replay(_workload(10_000), False, monkeypatch)
    assert fast[:2] == definition[:2]
    # the definition re-makes the five at every one of the ~80 cycles after they are made;
    # left in place, each is re-made once (the cycle after it was made: no stamp yet)
    assert definition[2] >= 5 * 70
    assert fast[2] <= 5 + 5


def test_an_early_end_on_their_node_re_makes_them_and_the_first_starts(monkeypatch):
    fast = _replay(_workload(500), True, monkeypatch)
    definition = _replay(_workload(500), False, monkeypatch)
    assert fast[:2] == definition[:2]
    assert fast[1]["gpu-0"] == 500          # its reservation moved from 10,000 to the end


def test_maui_s_own_re_make_re_makes_every_one(monkeypatch):
    """Under core/compat.MAUI33_HIGHEST a kept reservation is re-made where Maui's
    MJobGetEStartTime finds a start, one walk a cycle, not at its earliest with the others
    held: nothing given back is no proof it stays, so none is left in place."""
    from maui_py.cfg.choices import MauiCompat
    from maui_py.core.compat import COMPAT_RULES, MAUI33_HIGHEST
    monkeypatch.setitem(COMPAT_RULES, MauiCompat("3.3"), MAUI33_HIGHEST)
    text = CFG + "MAUICOMPAT 3.3\n"
    fast = _replay(_workload(10_000), True, monkeypatch, text)
    definition = _replay(_workload(10_000), False, monkeypatch, text)
    assert fast == definition
    assert fast[2] >= 5 * 70


def test_new_reservations_are_not_re_made_once_to_learn_they_stay(monkeypatch):
    """A reservation the priority pass has just made at its earliest start is stamped
    there (kept.placed): with nothing it could use given back, each is re-made only once
    its start has come, to start (the definition re-makes each at every cycle)."""
    fast = _replay(_workload(10_000), True, monkeypatch)
    definition = _replay(_workload(10_000), False, monkeypatch)
    assert fast[:2] == definition[:2]
    assert definition[2] >= 5 * 70
    assert fast[2] == 5


def _one_node_table():
    from maui_py.planning.table import ReservationTable
    return ReservationTable((Node("n0", Resources.of(4)), Node("n1", Resources.of(4))), 0)


def _kept_at_earliest(table, cr, w):
    """The request's reservation placed at its earliest start; (its start, the stamp)."""
    p = table.earliest_start(cr, w, policy="FIRSTAVAILABLE")
    table.reserve("priority:x", p.start, p.end, p.allocation, kind="priority")
    return p.start, table.freed


def test_room_given_back_too_short_for_the_window_moves_nothing_and_scans_nothing():
    table = _one_node_table()
    for n in ("n0", "n1"):
        table.reserve(f"a{n}", 0, 50, [(n, Resources.of(4))])
        table.reserve(f"b{n}", 100, 1000, [(n, Resources.of(4))])
    cr = table.compile(JobRequest(per_task=Resources.of(4)))
    start, stamp = _kept_at_earliest(table, cr, 200)
    assert start == 1000
    table.release("an0")                # [0, 50) on n0: a window of 200 does not fit in it
    scans = table.gain_scans
    assert not table.starts_in(cr, 200, table.given_back(stamp), 0, start, ("priority:x",))
    assert table.gain_scans == scans    # ruled out per node, no scan
    assert table.earliest_start(cr, 200, policy="FIRSTAVAILABLE",
                                ignore=("priority:x",)).start == start


def test_one_node_freed_for_a_job_of_two_is_ruled_out_by_one_bounded_scan():
    table = _one_node_table()
    table.reserve("an0", 0, 300, [("n0", Resources.of(4))])
    table.reserve("an1", 0, 600, [("n1", Resources.of(4))])
    cr = table.compile(JobRequest(tasks=2, tasks_per_node=1, per_task=Resources.of(4)))
    start, stamp = _kept_at_earliest(table, cr, 100)
    assert start == 600
    table.release("an0")                # n0 free from now, n1 still busy until 600
    scans = table.gain_scans
    assert not table.starts_in(cr, 100, table.given_back(stamp), 0, start, ("priority:x",))
    assert table.gain_scans == scans + 1
    table.release("an1")
    assert table.starts_in(cr, 100, table.given_back(stamp), 0, start, ("priority:x",))


def test_a_window_that_begins_before_the_room_given_back_counts():
    """Released [50, 120) between free [0, 50) and a hold from 140: the only windows of
    100 that fit begin before the released room does."""
    table = _one_node_table()
    table.reserve("n1", 0, 5000, [("n1", Resources.of(4))])
    table.reserve("a", 50, 120, [("n0", Resources.of(4))])
    table.reserve("b", 140, 1000, [("n0", Resources.of(4))])
    cr = table.compile(JobRequest(per_task=Resources.of(4)))
    start, stamp = _kept_at_earliest(table, cr, 100)
    assert start == 1000
    table.release("a")
    assert table.starts_in(cr, 100, table.given_back(stamp), 0, start, ("priority:x",))
    assert table.earliest_start(cr, 100, policy="FIRSTAVAILABLE",
                                ignore=("priority:x",)).start == 0


def test_hold_checks_answer_as_the_table_asked_per_hold():
    """kept._hold_checks, the per-reservation hold tests settled() and quiet() use: a hold
    on a node down is seen through `down`, one on an overcommitted node through `over`
    (Planner.over_in), the others through neither, and the owner is owners.priority's."""
    from maui_py.model import NodeState
    from maui_py.planning import owners
    from maui_py.planning.table import ReservationTable
    nodes = [Node(f"n{i}", Resources.of(8, mem=8000)) for i in range(3)]
    nodes[2] = Node("n2", Resources.of(8, mem=8000), state=NodeState.DOWN)
    t = ReservationTable(nodes, 0)
    holds, down, over, pre = kept._hold_checks(t)
    assert pre + "j" == owners.priority("j") and over is None and holds is t.holds
    t.reserve(owners.priority("a"), 100, 200, [("n0", Resources.of(4))])
    t.reserve(owners.priority("b"), 100, 200, [("n2", Resources.of(4))], force=True)
    t.reserve(owners.priority("c"), 150, 250, [("n0", Resources.of(8))], force=True)
    holds, down, over, pre = kept._hold_checks(t)
    assert t.overcommitted == {0} and over is not None
    got = {o[len(pre):]: (bool(h.mask & down), over(o)) for o, h in holds.items()}
    assert got == {j: (bool(holds[pre + j].mask & ~t.usable), t.over_in(pre + j))
                   for j in "abc"}
    assert got == {"a": (False, True), "b": (True, False), "c": (False, True)}
    up = ReservationTable(nodes[:2], 0)
    assert kept._hold_checks(up)[1] == 0      # every node usable: no hold meets one down
