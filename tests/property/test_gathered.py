"""givenback.GATHER (planning/givenback.py: a node asked once per joined span of its regions,
passed over when its peak free at an instant of the span cannot hold the request's minimum,
segments tested against a limit vector) against region by region with fit_on per segment
(GATHER off, the definition): the same gained span (lo, hi) on random tables, asked again
after holds were added (the peaks then kept from the first ask are upper bounds), the
table intact; the same decisions cycle for cycle in HIGHEST replays, the table checked
every cycle; join_regions against the instants the regions cover."""

from __future__ import annotations

from hypothesis import event, given
from hypothesis import strategies as st

from maui_py.model import JobRequest, Node, Resources
from maui_py.planning import givenback
from maui_py.planning.bitset import members
from maui_py.planning.table import ReservationTable

from .both_ways import GPUS, POLICIES
from .strategies import requests
from .test_kept_settled import SETTINGS as REPLAYS
from .test_kept_settled import replay, workloads
from .test_starts_in import OWN, SETTINGS, _changes, _kept_table


def _span(table, cr, w, regions, now, start, own, on: bool):
    old = givenback.GATHER
    givenback.GATHER = on
    try:
        return table._gained(cr, w, regions, now, start, own)
    finally:
        givenback.GATHER = old


@SETTINGS
@given(st.data())
def test_gathered_regions_give_the_same_gained_span(data):
    table, got = _kept_table(data)
    if got is None:
        return
    _req, cr, w, p = got
    table.reserve(OWN, p.start, p.end, p.allocation, kind="priority")
    stamp = table.freed
    _changes(data, table, p.start)
    regions = table.given_back(stamp)
    if regions is None:
        return
    now = table.origin
    own = data.draw(st.sampled_from([(OWN,), ()]))
    definition = _span(table, cr, w, regions, now, p.start, own, False)
    assert _span(table, cr, w, regions, now, p.start, own, True) == definition
    assert _span(table, cr, w, regions, now, p.start, own, True) == definition   # memo
    table._check()
    event(f"gained {definition is not None}")
    for k in range(data.draw(st.integers(1, 4))):       # holds added: free only shrinks
        req = data.draw(requests(table.nodes, GPUS))
        q = table.earliest_start(req, data.draw(st.integers(1, 500)),
                                 policy=data.draw(st.sampled_from(POLICIES)))
        if q:
            table.reserve(f"late{k}", q.start, q.end, q.allocation)
    kept = table.freed
    definition = _span(table, cr, w, regions, now, p.start, own, False)
    assert _span(table, cr, w, regions, now, p.start, own, True) == definition
    assert table.freed == kept
    table._check()
    others = sorted(o for o in table.holds if o != OWN)
    if others:                  # freed moves: the nodes given back are asked afresh
        table.release(data.draw(st.sampled_from(others)))
        regions = table.given_back(stamp)
        if regions is not None:
            definition = _span(table, cr, w, regions, now, p.start, own, False)
            assert _span(table, cr, w, regions, now, p.start, own, True) == definition
            table._check()


@st.composite
def _regions(draw):
    n = draw(st.integers(1, 6))
    return [(draw(st.integers(1, (1 << n) - 1)), x, x + draw(st.integers(1, 40)))
            for x in draw(st.lists(st.integers(0, 100), max_size=8))]


@given(_regions())
def test_joined_spans_cover_exactly_the_regions_instants(regions):
    """Per node: the joined spans cover the instants its regions cover, no more, and
    neither overlap nor touch one another (each sorted); the union mask is every node."""
    union, per = givenback.join_regions(regions)
    assert union == sum(1 << i for i in {i for m, _x, _y in regions for i in members(m)})
    for i, spans in per.items():
        want = {t for m, x, y in regions if m >> i & 1 for t in range(x, y)}
        assert {t for x, y in spans for t in range(x, y)} == want
        assert all(py < x for (_px, py), (x, _y) in zip(spans, spans[1:]))


@REPLAYS
@given(workloads())
def test_gathered_regions_decide_as_region_by_region(monkeypatch, w):
    """HIGHEST replays with GATHER on and off: every cycle's starts and reservations and
    every job's start the same, the table checked every cycle."""
    nodes, sims, text, per_event = w
    monkeypatch.setattr(givenback, "GATHER", True)
    fast = replay(nodes, sims, text, per_event, True, monkeypatch)
    monkeypatch.setattr(givenback, "GATHER", False)
    definition = replay(nodes, sims, text, per_event, True, monkeypatch)
    assert fast == definition


def test_a_span_busy_where_it_begins_still_gains_where_it_is_free_later():
    """A region [100, 200) given back, then a hold taking the whole node over [100, 150):
    the peak is read over the whole span, so the window at 150 is found either way."""
    table = ReservationTable((Node("n0", Resources.of(4, mem=4096)),), origin=0)
    table.reserve("gone", 100, 200, [("n0", Resources.of(4, mem=4096))])
    table.reserve("wall", 200, 400, [("n0", Resources.of(4, mem=4096))])
    stamp = table.freed
    table.release("gone")
    table.reserve("late", 100, 150, [("n0", Resources.of(4, mem=4096))])
    regions = table.given_back(stamp)
    assert regions
    cr = table.compile(JobRequest(tasks=1, per_task=Resources.of(4, mem=1024)))
    for on in (False, True):
        assert _span(table, cr, 10, regions, 0, 300, (), on) == (150, 190)


def test_a_node_given_back_again_is_asked_afresh():
    """The span [100, 200) is asked while a hold fills it (its peak and reach then 0),
    then that hold is given back: the same node and span, asked again, find the windows
    (the bounds kept for the node are forgotten when freed moves over it)."""
    table = ReservationTable((Node("n0", Resources.of(4, mem=4096)),), origin=0)
    whole = [("n0", Resources.of(4, mem=4096))]
    table.reserve("wall", 200, 400, whole)
    table.reserve("gone", 100, 200, [("n0", Resources.of(2, mem=1024))])
    stamp = table.freed
    table.release("gone")
    table.reserve("filled", 100, 200, whole)
    cr = table.compile(JobRequest(tasks=1, per_task=Resources.of(4, mem=1024)))
    assert _span(table, cr, 10, table.given_back(stamp), 0, 300, (), True) is None
    table.release("filled")
    regions = table.given_back(stamp)
    assert [(x, y) for _m, x, y in regions] == [(100, 200), (100, 200)]
    for on in (True, False):
        assert _span(table, cr, 10, regions, 0, 300, (), on) == (91, 190)


@SETTINGS
@given(st.data())
def test_repeated_questions_answer_as_asked_afresh(data):
    """givenback.REPEAT: gained_from asked for several starts in a row (the same request,
    span and regions; with and without the own hold as free; a hold added between some of
    them) answers each as with REPEAT off, the table intact."""
    table, got = _kept_table(data)
    if got is None:
        return
    _req, cr, w, p = got
    table.reserve(OWN, p.start, p.end, p.allocation, kind="priority")
    stamp = table.freed
    _changes(data, table, p.start)
    regions = table.given_back(stamp)
    if regions is None:
        return
    now = table.origin
    starts = data.draw(st.lists(st.integers(now + 1, p.start + 200), min_size=1, max_size=6))
    if data.draw(st.booleans()):
        starts.sort()           # none for an early start, then one for a later
    for k, start in enumerate(starts):
        own = data.draw(st.sampled_from([(OWN,), ()]))
        if data.draw(st.integers(0, 3)) == 0:
            req = data.draw(requests(table.nodes, GPUS))
            q = table.earliest_start(req, data.draw(st.integers(1, 300)),
                                     policy=data.draw(st.sampled_from(POLICIES)))
            if q:
                table.reserve(f"more{k}", q.start, q.end, q.allocation)
        answers = []
        for on in (True, False):
            old = givenback.REPEAT
            givenback.REPEAT = on
            try:
                answers.append(table.gained_from(cr, w, regions, now, start, own))
            finally:
                givenback.REPEAT = old
        event(f"answer {answers[1] is not None}")
        assert answers[0] == answers[1], (start, answers)
    table._check()


@REPLAYS
@given(workloads())
def test_repeated_questions_decide_as_asked_afresh(monkeypatch, w):
    """HIGHEST replays with REPEAT on and off (GATHER on): the same cycles and starts."""
    nodes, sims, text, per_event = w
    monkeypatch.setattr(givenback, "REPEAT", True)
    fast = replay(nodes, sims, text, per_event, True, monkeypatch)
    monkeypatch.setattr(givenback, "REPEAT", False)
    definition = replay(nodes, sims, text, per_event, True, monkeypatch)
    assert fast == definition


def test_a_later_start_is_asked_again_after_an_earlier_found_none():
    """REPEAT: none gained before 140, then asked for 300 (the windows from 150 gained)
    and for 150 (none before it): each as asked afresh."""
    table = ReservationTable((Node("n0", Resources.of(4, mem=4096)),), origin=0)
    whole = [("n0", Resources.of(4, mem=4096))]
    table.reserve("wall", 200, 400, whole)
    table.reserve("gone", 100, 200, [("n0", Resources.of(2, mem=1024))])
    stamp = table.freed
    table.release("gone")
    table.reserve("late", 100, 150, whole)
    regions = table.given_back(stamp)
    cr = table.compile(JobRequest(tasks=1, per_task=Resources.of(4, mem=1024)))
    assert [table.gained_from(cr, 10, regions, 0, s, ()) for s in (140, 300, 150, 151)] == [
        None, 150, None, 150]
