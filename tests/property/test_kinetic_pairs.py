"""priority/kinetic.PAIR_MEMO: a neighbours' pair date kept in the engine and taken again
by later calls is never late, as the dates worked out afresh (the memo off) are not: a
queue re-ranked over time, with jobs leaving from anywhere and arriving, stays ranked
(the engine's own floats) at instants up to each date, and the memo passes its
`check_pairs` (its `_check()`); a replay on the node table decides exactly as with the
memo off. Mutant caught: taking a kept date without checking that the pair's second job
is still the neighbour (`h[1] is j`) fails test_kept_dates_are_never_late."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.model import Job, JobRequest, Resources
from maui_py.priority import kinetic

from .test_kinetic_order import _engine, _ranked_at
from .test_xf_priorities import SETTINGS, check_easy_on_off

_SPEC = st.tuples(st.sampled_from(["alice", "bob"]),
                  st.one_of(st.sampled_from([60, 120, 3600]), st.integers(1, 100_000)),
                  st.integers(0, 50_000))


def _never_late(engine, jobs, t, now, draw) -> None:
    for at in {now, t, max(now, t - 1), *draw(st.lists(st.integers(now, t), max_size=3))}:
        assert kinetic.ranked(jobs, engine.serv_priorities(jobs, at, {}, {})), (at, t)


def _off_then_on(engine, jobs, ps, now) -> tuple[int, int]:
    """until with the memo off (nothing read or kept), then on."""
    was = kinetic.PAIR_MEMO
    try:
        kinetic.PAIR_MEMO = False
        fresh = kinetic.until(engine, jobs, ps, now, {})
        kinetic.PAIR_MEMO = True
        return fresh, kinetic.until(engine, jobs, ps, now, {})
    finally:
        kinetic.PAIR_MEMO = was


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_kept_dates_are_never_late(data):
    """Steps of (time passes, some jobs leave, some arrive, the queue is ranked at now
    and dated): the date with the memo on is at least now and never late; with an empty
    memo it is the memo-off date; the memo passes check_pairs after every step."""
    engine = _engine(data.draw)
    now = data.draw(st.integers(10**5, 10**6))
    jobs, made = [], 0
    for step in range(data.draw(st.integers(1, 8))):
        if step:
            now += data.draw(st.sampled_from([1, 30, 600, 5000, 40_000]))
            gone = set(data.draw(st.lists(st.integers(0, max(len(jobs) - 1, 0)),
                                          max_size=3)))
            jobs = [j for k, j in enumerate(jobs) if k not in gone]
        for user, wc, wait in data.draw(st.lists(_SPEC, max_size=6)):
            jobs.append(Job(f"j{made}", user, JobRequest(per_task=Resources.of(1, 100)), wc,
                            now - wait))
            made += 1
        if not jobs:
            continue
        jobs = _ranked_at(engine, jobs, now)
        ps = engine.serv_priorities(jobs, now, {}, {})
        empty = not engine.pair_dates
        fresh, t = _off_then_on(engine, jobs, ps, now)
        assert now <= t <= now + kinetic.HORIZON
        if empty:
            assert t == fresh
        _never_late(engine, jobs, t, now, data.draw)
        _never_late(engine, jobs, fresh, now, data.draw)
        kinetic.check_pairs(engine, now)


@SETTINGS
@given(st.data())
def test_replay_decides_as_with_the_memo_off(monkeypatch, data):
    """config/easy.cfg's priority and reservation settings on several node kinds: every
    cycle's decisions, order and reservations, and every job's start, with the pair memo
    on and off (`_check()` after every cycle)."""
    check_easy_on_off(monkeypatch, data.draw, kinetic, "PAIR_MEMO")
