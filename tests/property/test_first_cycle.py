"""The first cycle's shortcuts on the node table against their definitions (issue 33):
the fresh load of the running jobs against holding them one at a time, and node choice
ranking only the partly used nodes it can take against ranking them all."""

from __future__ import annotations

from itertools import islice

from hypothesis import given
from hypothesis import strategies as st

from maui_py.planning.nodechoice import candidates
from maui_py.planning.table import ReservationTable

from .strategies import clusters, requests
from .test_table_properties import SETTINGS, busy_table, reported_holds

POLICIES = ["FIRSTAVAILABLE", "LASTAVAILABLE", "MINRESOURCE", "CPULOAD", "PRIORITY", "FASTEST"]


@SETTINGS
@given(st.data())
def test_a_fresh_load_answers_as_the_holds_reserved_one_at_a_time(data):
    """load() on a fresh table (planning/freshload.py) and reserve(force=True) hold by
    hold give tables that pass _check and place random requests alike."""
    nodes = data.draw(clusters(max_nodes=24))
    origin = 1000
    holds = data.draw(reported_holds(nodes, origin))
    fresh = ReservationTable(nodes, origin)
    fresh.load(holds)
    one_by_one = ReservationTable(nodes, origin)
    for owner, s, e, alloc, kind in holds:
        one_by_one.reserve(owner, s, e, alloc, kind=kind, force=True)
    fresh._check()
    one_by_one._check()
    assert fresh.holds.keys() == one_by_one.holds.keys()
    for _ in range(3):
        req = data.draw(requests(nodes))
        w = data.draw(st.integers(1, 600))
        policy = data.draw(st.sampled_from(POLICIES))
        until = data.draw(st.sampled_from([None, origin]))
        a = fresh.earliest_start(req, w, policy=policy, until=until)
        b = one_by_one.earliest_start(req, w, policy=policy, until=until)
        assert bool(a) == bool(b)
        if a:
            assert (a.start, a.end, a.allocation) == (b.start, b.end, b.allocation)


@SETTINGS
@given(st.data())
def test_ranking_the_first_few_partly_used_nodes_equals_ranking_them_all(data):
    """candidates(limit=k) yields the k best nodes in the order candidates() does."""
    _nodes, table, req, w = busy_table(data, 40)
    cr = table.compile(req)
    if not cr:
        return
    found = table.scan(cr, w, data.draw(st.sampled_from([None, 0, 200])))
    if found is None:
        return
    t, fast, fits = found
    policy = data.draw(st.sampled_from(POLICIES))
    k = data.draw(st.integers(1, len(fits) + 2))
    full = list(candidates(table, cr, t, w, fast, fits, policy))
    assert list(islice(candidates(table, cr, t, w, fast, fits, policy, limit=k), k)) == full[:k]
