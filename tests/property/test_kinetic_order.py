"""priority/kinetic.py: the date up to which a queue ranked under QUEUETIME + XFACTOR
priorities stays ranked is never late (ranked again from the engine's own floats at
instants up to it, its end included), and a replay on the node table with the dates
(kinetic.KINETIC) decides exactly as one that re-ranks the whole queue every cycle."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.model import Job, JobRequest, Resources
from maui_py.priority import kinetic
from maui_py.priority.engine import PriorityEngine, order_key

from .test_xf_priorities import SETTINGS, check_easy_on_off


def _engine(draw) -> PriorityEngine:
    text = (f"QUEUETIMEWEIGHT {draw(st.sampled_from([1, 3, 50]))}\n"
            f"XFACTORWEIGHT {draw(st.sampled_from([1, 10, 250]))}\n"
            f"SERVICEWEIGHT {draw(st.sampled_from([1, 2, -1]))}\n"
            f"XFMINWCLIMIT {draw(st.sampled_from(['0', '00:02:00']))}\n"
            f"CREDWEIGHT 1\nUSERCFG[alice] PRIORITY={draw(st.sampled_from([0, 100, 5000]))}\n"
            "ENABLENEGJOBPRIORITY TRUE\n")
    return PriorityEngine(parse_config(text), 256, 256_000)


def _ranked_at(engine, jobs, t):
    return sorted(jobs, key=lambda j: order_key(j, engine.serv_priorities([j], t, {}, {})[0]))


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_until_is_never_late(data):
    """Jobs with short and long limits (steep and flat slopes), some alike in everything
    but the id (ties that never break), ranked at `now`: at the date, a step before and a
    step after now, and instants drawn between, the engine's floats keep the order."""
    engine = _engine(data.draw)
    now = data.draw(st.integers(10**5, 10**6))
    specs = data.draw(st.lists(st.tuples(st.sampled_from(["alice", "bob"]),
                                         st.one_of(st.sampled_from([60, 120, 3600]),
                                                   st.integers(1, 100_000)),
                                         st.integers(0, 50_000), st.integers(1, 3)),
                               min_size=1, max_size=10))
    jobs = []
    for k, (user, wc, wait, copies) in enumerate(specs):
        jobs += [Job(f"j{k}_{c}", user, JobRequest(per_task=Resources.of(1, 100)), wc,
                     now - wait) for c in range(copies)]
    jobs = _ranked_at(engine, jobs, now)
    ps = engine.serv_priorities(jobs, now, {}, {})
    assert kinetic.ranked(jobs, ps)
    t = kinetic.until(engine, jobs, ps, now, {})
    assert now <= t <= now + kinetic.HORIZON
    for at in {now + 1, t, max(now, t - 1), *data.draw(st.lists(st.integers(now, t),
                                                               max_size=4))}:
        if at <= t:
            assert kinetic.ranked(jobs, engine.serv_priorities(jobs, at, {}, {})), at
    assert kinetic.until(engine, jobs, ps, now, {"j0_0": now}) == -1


def test_until_dates_a_crossing_and_a_standing_order():
    """A long job queued for an hour before a short one queued 10 minutes (XFACTOR lifts
    the short one faster): dated before they cross, and the crossing comes after the date;
    two jobs that differ only in their id are dated at the horizon."""
    engine = PriorityEngine(parse_config("QUEUETIMEWEIGHT 1\nXFACTORWEIGHT 10\n"
                                         "XFMINWCLIMIT 00:02:00\n"), 256, 256_000)
    now = 10**6
    a = Job("a", "u", JobRequest(), 86_400, now - 3600)
    b = Job("b", "u", JobRequest(), 120, now - 600)
    ps = engine.serv_priorities([a, b], now, {}, {})
    assert ps[0] > ps[1]
    t = kinetic.until(engine, [a, b], ps, now, {})
    assert now < t < now + kinetic.HORIZON
    cross = next(s for s in range(t, now + kinetic.HORIZON, 10)
                 if not kinetic.ranked([a, b], engine.serv_priorities([a, b], s, {}, {})))
    assert cross - t < 60
    c, d = Job("c", "u", JobRequest(), 60, now - 5), Job("d", "u", JobRequest(), 60, now - 5)
    assert kinetic.until(engine, [c, d], engine.serv_priorities([c, d], now, {}, {}), now,
                         {}) == now + kinetic.HORIZON


@SETTINGS
@given(st.data())
def test_dated_replay_decides_as_re_ranking_every_cycle(monkeypatch, data):
    """config/easy.cfg's priority and reservation settings on several node kinds: every
    cycle's decisions, order and reservations, and every job's start, with the dates on
    and off (`_check()` after every cycle)."""
    check_easy_on_off(monkeypatch, data.draw, kinetic, "KINETIC")
