"""Cycles from what changed that release the defers running out by now (core/deferouts
.RELEASES) decide as full cycles do: the same start, kind, end and nodes job for job, the
same actions (ReleaseHold, Defer, Hold, Start: in the same order) at every time either
replay acted, the same persisted defer records, batch holds and queue times, and the same
reservations after every cycle both ran once; the table checked every cycle, and after
every cycle the cache's `held` names each job with a running defer record by its live
object (deferouts.check). Configs defer often: DEFERTIME one minute, a per-job processor
limit that arrivals break, DEFERCOUNT small enough that some are batch held."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core import deferouts
from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import SimJob

from .on_off import spying
from .test_idle_arrivals import SETTINGS, configs, site_workloads, workloads
from .test_incremental_cycle import check_incremental
from .test_kept_order import deferring


def _replay(nodes, sims, text, on: bool, switch: str = "RELEASES"):
    """(records, [(t, actions, defer state, reservations)]), deferouts.<switch> = on."""
    old = getattr(deferouts, switch)
    setattr(deferouts, switch, on)
    seen = []
    sim = None
    try:
        def hook(t, r):
            st = r.state
            cache = st.caches.changes
            deferouts.check(cache, st, {j.id: j for j in sim.rm.live()})
            seen.append((t, r.actions(), ({j: (d.count, d.until) for j, d in st.deferred.items()},
                                   dict(st.batch_holds), dict(st.queue_time)),
                         {j: (kr.start, kr.end, kr.allocation)
                          for j, kr in st.reservations.items()}))
        sim = Simulation(nodes, sims, parse_config(text), SimOptions(
            check_table=True, cycle_reserves=False, on_cycle=hook))
        res = sim.run()
    finally:
        setattr(deferouts, switch, old)
    assert res.check.ok
    return {j: (r.start, r.kind, r.end, r.nodes) for j, r in res.records.items()}, seen


def _same(nodes, sims, text, switch: str = "RELEASES") -> None:
    """Both replays the same where both ran a cycle at a time (a cycle from what changed
    may leave another cache, so the idle times each leaves out may differ: those cycles
    decide nothing)."""
    fast = _replay(nodes, sims, text, True, switch)
    definition = _replay(nodes, sims, text, False, switch)
    assert fast[0] == definition[0]
    acted = [(t, a) for t, a, _d, _r in fast[1] if a]
    assert acted == [(t, a) for t, a, _d, _r in definition[1] if a]
    once = {}
    for t, _a, d, r in definition[1]:
        once[t] = None if t in once else (d, r)
    twice = {t for t, *_ in fast[1] if sum(1 for s in fast[1] if s[0] == t) > 1}
    for t, _a, d, r in fast[1]:
        if once.get(t) is not None and t not in twice:
            assert (d, r) == once[t], f"defer state and reservations after the cycle at {t}"


def _wide_and_narrow():
    """Eight one-processor nodes, a limit of four processors: jobs of five are deferred
    at arrival and released every minute (DEFERCOUNT 3: then held), while narrow jobs
    arrive and end around them; two wide ones share their release times."""
    nodes = tuple(Node(f"n{i}", Resources.of(1)) for i in range(8))
    sims = []
    for k in range(30):
        tasks = 5 if k % 7 in (0, 1) else 1 + k % 3
        sims.append(SimJob(Job(f"j{k}", f"u{k % 3}", JobRequest(tasks=tasks), 300,
                               (k // 2) * 20), 100 + 37 * (k % 5)))
    text = ("RESERVATIONDEPTH 100\nRESERVATIONPOLICY HIGHEST\nBACKFILLPOLICY FIRSTFIT\n"
            "QUEUETIMEWEIGHT 1\nDEFERTIME 00:01:00\nDEFERCOUNT 3\nSYSTEMMAXPROCPERJOB 4\n")
    return nodes, sims, text


def test_released_defers_are_taken_from_what_changed_and_decide_as_in_full():
    nodes, sims, text = _wide_and_narrow()
    _same(nodes, sims, text)
    with spying(deferouts, "released") as calls:
        _replay(nodes, sims, text, True)
    assert sum(1 for o in calls if o) >= 5          # the path runs, releasing queued jobs
    assert any(o is not None and len(o) >= 2 for o in calls)    # two at once, placed


@SETTINGS
@given(workloads(), configs(), st.integers(1, 4), st.sampled_from(["", "DEFERCOUNT 2\n"]))
@example(_wide_and_narrow()[:2], _wide_and_narrow()[2], 4, "")
def test_defer_outs_from_what_changed_decide_as_full_cycles(wl, text, limit, count):
    _same(*wl, deferring(text, limit) + count)


@SETTINGS
@given(site_workloads(), configs(), st.integers(1, 8), st.sampled_from(["", "DEFERCOUNT 2\n"]))
def test_defer_outs_on_the_node_table(wl, text, limit, count):
    _same(*wl, deferring(text, limit) + count)


_BACK_UP = (  # j02a deferred while n3 is down, released once it is back: it joins the order
    # first (PROCWEIGHT), so the cycle runs in full (deferouts.left_out is False for it);
    # taken like an arrival (last) it would reserve after j05a and j06a, not before
    tuple(Node(f"n{i}", Resources.of(2)) for i in range(4)),
    "RESERVATIONDEPTH 100\nRESERVATIONPOLICY CURRENTHIGHEST\nBACKFILLPOLICY FIRSTFIT\n"
    "NODEALLOCATIONPOLICY FIRSTAVAILABLE\nQUEUETIMEWEIGHT 1\nPROCWEIGHT 100\n"
    "DEFERTIME 60\nDEFERCOUNT 3\n",
    [("node", 1, 10, 0, False, 3), ("arrive", 2, 300, 5, False, 0),
     ("arrive", 8, 100, 5, False, 0), ("node", 1, 10, 5, False, 3),
     ("arrive", 6, 300, 5, False, 1), ("arrive", 4, 200, 5, False, 2),
     ("arrive", 1, 50, 5, False, 0), ("tick", 1, 10, 40, False, 0),
     ("arrive", 1, 50, 5, False, 1), ("tick", 1, 10, 30, False, 0)])


def test_a_released_job_that_joins_the_order_is_decided_as_from_scratch():
    """The full cycle's order puts the released job first; a cycle from what changed that
    took it like an arrival (last) would reserve in another order (mutant: left_out
    always True fails here at step 7)."""
    check_incremental(_BACK_UP)


@SETTINGS
@given(site_workloads(), configs(), st.integers(1, 8), st.sampled_from(["", "DEFERCOUNT 2\n"]))
@example(_wide_and_narrow()[:2], _wide_and_narrow()[2], 4, "")
def test_released_walks_only_the_held_jobs(wl, text, limit, count):
    """deferouts.HELD_ONLY on against off: the same schedule, actions, defer records and
    reservations (the released jobs found from `held` are those of every record)."""
    _same(*wl, deferring(text, limit) + count, "HELD_ONLY")
