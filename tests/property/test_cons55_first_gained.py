"""givenback.ONE_FIRST on against off: for a request one node holds, gained_from's instant
(the first gained start, kept HIGHEST re-makes' scan bound, policy/kept.FROM_GAIN) is the
same when asked only for the first window (_first_gained, the fit as a per-dimension limit)
as _gained's span gives it; the table intact (_check). The requests are drawn one node's
worth (one task, or tasks per node), its own hold ignored or not, with CORE_REACH on and
off; the replay test of policy/kept.py decides alike both ways."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import event, given, settings
from hypothesis import strategies as st

from maui_py.planning import givenback
from maui_py.planning.api import NoPlacement
from maui_py.planning.table import ReservationTable

from .both_ways import GPUS, POLICIES
from .on_off import assert_same_cycles
from .strategies import clusters, populate, requests
from .test_kept_settled import SETTINGS as REPLAY, replay_counting, workloads
from .test_starts_in import OWN, SETTINGS, _changes, _staggered


def _one_node(data):
    """A staggered, populated table, a request one node holds reserved at its earliest
    start (OWN, after now), changes since: (table, compiled, wallclock, start, regions)."""
    table = ReservationTable(data.draw(clusters(min_nodes=2, max_nodes=8, gpus=(0, 2))),
                             origin=1000)
    _staggered(data.draw, table)
    populate(data.draw, table, max_holds=data.draw(st.sampled_from([0, 8, 20])), gpus=GPUS)
    for _ in range(6):
        req = replace(data.draw(requests(table.nodes, GPUS)), features=frozenset(),
                      hostlist=(), nodes=0)
        k = data.draw(st.sampled_from([1, 2, 3]))
        if k > 1:               # m tasks on one node: a smaller task, so that m of it fit
            t = req.per_task
            req = replace(req, per_task=replace(t, procs=min(t.procs, 1), mem=t.mem // k))
        req = replace(req, tasks=k, tasks_per_node=data.draw(st.sampled_from([0, k]))
                      if k == 1 else k)
        cr = table.compile(req)
        if isinstance(cr, NoPlacement):
            continue
        w = data.draw(st.integers(1, 600))
        p = table.earliest_start(cr, w, policy=data.draw(st.sampled_from(POLICIES)))
        if p and p.start > table.origin:
            break
    else:
        return None
    table.reserve(OWN, p.start, p.end, p.allocation, kind="priority")
    stamp = table.freed
    _changes(data, table, p.start)
    regions = table.given_back(stamp)
    return None if regions is None else (table, cr, w, p.start, regions)


@settings(SETTINGS, max_examples=4 * SETTINGS.max_examples)
@given(st.data())
def test_first_gained_instant_is_the_spans_first(data):
    got = _one_node(data)
    if got is None:
        event("nothing waits")
        return
    table, cr, w, start, regions = got
    now = table.origin
    own = data.draw(st.sampled_from([(OWN,), ()]))
    reach = data.draw(st.booleans())
    answers = []
    for on in (False, True, True):
        givenback.ONE_FIRST, givenback.CORE_REACH = on, reach
        try:
            answers.append(table.gained_from(cr, w, regions, now, start, own))
        finally:
            givenback.ONE_FIRST = givenback.CORE_REACH = True
        table._check()
    event(f"tasks {cr.tasks}, gained {answers[0] is not None}")
    assert answers[1] == answers[0] and answers[2] == answers[0], answers


@REPLAY
@given(workloads())
def test_kept_walk_decides_alike_with_the_first_gained_instant(monkeypatch, w):
    nodes, sims, text, per_event = w
    fast, _n = replay_counting(monkeypatch, givenback, "ONE_FIRST", True, "left", nodes,
                               sims, text, per_event)
    definition, _m = replay_counting(monkeypatch, givenback, "ONE_FIRST", False, "left",
                                     nodes, sims, text, per_event)
    assert_same_cycles(fast, definition)
