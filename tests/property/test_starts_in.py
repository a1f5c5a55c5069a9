"""ReservationTable.starts_in (planning/givenback.py), the question a kept HIGHEST
reservation asks before it is re-made (policy/kept.py): placed at its earliest start, then
holds come and go and the origin moves; starts_in over what was given back since must say
exactly whether the request could now start before that start, its own hold as free. The
oracle tries every instant on every node from the holds themselves
(strategies.brute_earliest), with the reservation's own hold taken out."""

from __future__ import annotations

import os
from dataclasses import replace

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from maui_py.model import Resources
from maui_py.planning import givenback
from maui_py.planning.api import NoPlacement
from maui_py.planning.table import ReservationTable

from .both_ways import GPUS, POLICIES, spread
from .strategies import brute_earliest, clusters, populate, requests

SETTINGS = settings(max_examples=150 * int(os.environ.get("MAUI_TABLE_EXAMPLES_X", "1")),
                    deadline=None, suppress_health_check=list(HealthCheck))
OWN = "priority:x"


def _changes(data, table: ReservationTable, start: int) -> None:
    """Holds released and reserved at random, the origin moved (never to `start`)."""
    made = 0
    for _ in range(data.draw(st.integers(0, 10))):
        op = data.draw(st.sampled_from(["release", "release", "reserve", "advance"]))
        others = sorted(o for o in table.holds if o != OWN)
        if op == "release" and others:
            table.release(data.draw(st.sampled_from(others)))
        elif op == "reserve":
            req = data.draw(requests(table.nodes, GPUS))
            after = table.origin + data.draw(st.sampled_from([0, 0, 50, 300]))
            p = table.earliest_start(req, data.draw(st.integers(1, 500)), after,
                                     policy=data.draw(st.sampled_from(POLICIES)))
            if p:
                table.reserve(f"o{made}", p.start, p.end, p.allocation)
                made += 1
        elif op == "advance" and table.origin + 1 < start:
            table.advance(data.draw(st.integers(table.origin + 1, start - 1)))
        table._check()


def _staggered(draw, table: ReservationTable) -> None:
    """Running jobs on most usable nodes, each using some of a node's processors (and
    memory, GPUs) and ending at its own time: the nodes free one after another, so a
    request of several nodes waits for the last of them."""
    for i, nd in enumerate(table.nodes):
        if not nd.state.usable or draw(st.integers(0, 4)) == 0:
            continue
        cap = nd.resources
        use = Resources.of(draw(st.integers(1, max(cap.procs, 1))),
                           draw(st.sampled_from([0, cap.mem // 2, cap.mem])),
                           gpu=draw(st.integers(0, dict(cap.gres).get("gpu", 0))))
        table.reserve(f"r{i}", table.origin - 5, table.origin + draw(st.integers(1, 400)),
                      [(nd.name, use)])


def _kept_table(data):
    """A staggered, populated table and a request on it that has to wait (_kept, or None)."""
    table = ReservationTable(data.draw(clusters(min_nodes=2, max_nodes=8, gpus=(0, 2))),
                             origin=1000)
    _staggered(data.draw, table)
    populate(data.draw, table, max_holds=data.draw(st.sampled_from([0, 8, 20])), gpus=GPUS)
    return table, _kept(data, table)


def _given_back(data):
    """A staggered, populated table, a kept request reserved (OWN) and changes since: (table,
    request, compiled, wallclock, its placement, the regions given back), or None."""
    table, got = _kept_table(data)
    if got is None:
        return None
    req, cr, w, p = got
    table.reserve(OWN, p.start, p.end, p.allocation, kind="priority")
    stamp = table.freed
    _changes(data, table, p.start)
    regions = table.given_back(stamp)
    return None if regions is None else (table, req, cr, w, p, regions)


def _kept(data, table: ReservationTable):
    """A request (of one or several nodes, none it can never use) drawn until one has to
    wait: (request, compiled, wallclock, its earliest start), or None."""
    for _ in range(6):
        req = replace(data.draw(requests(table.nodes, GPUS)), features=frozenset(),
                      hostlist=())
        if data.draw(st.booleans()):
            req = spread(data.draw, req, 2, 1, 3)
        elif req.tasks > 4 and not req.tasks_per_node:
            req = replace(req, tasks=data.draw(st.integers(1, 4)), nodes=0)
        cr = table.compile(req)
        if isinstance(cr, NoPlacement):
            continue
        w = data.draw(st.integers(1, 600))
        p = table.earliest_start(cr, w, policy=data.draw(st.sampled_from(POLICIES)))
        if p and p.start > table.origin:
            return req, cr, w, p
    return None


@SETTINGS
@given(st.data())
def test_starts_in_says_exactly_whether_it_could_start_earlier(data):
    table, got = _kept_table(data)
    if got is None:
        event("nothing waits")
        return
    req, cr, w, p = got
    table.reserve(OWN, p.start, p.end, p.allocation, kind="priority")
    stamp = table.freed
    _changes(data, table, p.start)
    regions = table.given_back(stamp)
    if regions is None:
        event("a step not logged")
        return                  # the reservation is re-made
    now = table.origin
    got = table.starts_in(cr, w, regions, now, p.start, (OWN,))
    span = table._gained(cr, w, regions, now, p.start, (OWN,))
    table.release(OWN)
    first = brute_earliest(table, req, w, now)
    event(f"gained {span is not None}, earlier {first is not None and first < p.start}")
    assert got == (first is not None and first < p.start), (got, first, p.start)


@SETTINGS
@given(st.data())
def test_gained_from_is_an_instant_before_which_it_fits_nowhere(data):
    """gained_from (policy/kept.FROM_GAIN's bound): None exactly when starts_in says no;
    else an instant t in [now, start) with no start before it (the brute-force oracle,
    own hold out), and the re-make's earliest-start question asked from t (own hold
    ignored) gives the start and nodes asked from now, the table intact (_check)."""
    got = _given_back(data)
    if got is None:
        return
    table, req, cr, w, p, regions = got
    now = table.origin
    t = table.gained_from(cr, w, regions, now, p.start, (OWN,))
    assert (t is not None) == table.starts_in(cr, w, regions, now, p.start, (OWN,))
    policy = data.draw(st.sampled_from(POLICIES))
    if t is not None:
        assert now <= t < p.start
        from_now = table.earliest_start(cr, w, now, policy=policy, ignore=(OWN,))
        from_t = table.earliest_start(cr, w, t, policy=policy, ignore=(OWN,))
        event(f"bound after now {t > now}, moves {from_now.start < p.start}")
        assert (from_t.start, from_t.allocation) == (from_now.start, from_now.allocation)
        table.check()
    table.release(OWN)
    first = brute_earliest(table, req, w, now)
    if t is not None:
        assert first is not None and first >= t, (first, t)


@SETTINGS
@given(st.data())
def test_nodes_ruled_out_by_processors_change_no_gained_span(data):
    """givenback.CORE_REACH on against off: _gained's span (lo, hi) the same, asked twice
    with the bound on (the second time from its memo), the table intact (_check)."""
    got = _given_back(data)
    if got is None:
        return
    table, _req, cr, w, p, regions = got
    now = table.origin
    own = data.draw(st.sampled_from([(OWN,), ()]))
    spans = []
    for on in (False, True, True):
        givenback.CORE_REACH = on
        try:
            spans.append(table._gained(cr, w, regions, now, p.start, own))
        finally:
            givenback.CORE_REACH = True
        table._check()
    event(f"gained {spans[0] is not None}")
    assert spans[1] == spans[0] and spans[2] == spans[0], spans
