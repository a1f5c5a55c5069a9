"""priority/kinlist.py: the ranked order kept as a kinetic list equals the queue sorted by
order_key at each instant (the engine's own floats), however time passes, jobs leave from
anywhere and arrive; its structure passes `check` (its `_check()`) after every step; and a
replay on the node table with the list on decides exactly as one that re-ranks the whole
queue when a date passes (`check` after every cycle from what changed).

Mutants caught: not comparing the new upper pair after a swap (`if i: work.append(i - 1)`
left out of kinlist._fix) fails test_settled_order_is_the_sorted_queue; leaving out the
pairs that jobs taken out make (kinlist._taken_out answering []) fails it too."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.core import changes
from maui_py.model import Job, JobRequest, Resources
from maui_py.priority import kinetic, kinlist
from maui_py.priority.engine import order_key

from .test_kinetic_order import _engine
from .test_kinetic_pairs import _SPEC
from .test_xf_priorities import SETTINGS, check_easy_on_off


def _sorted_at(engine, jobs: list, now: int) -> list:
    ps = engine.serv_priorities(jobs, now, {}, {})
    return [j for _k, j in sorted((order_key(j, p), j) for j, p in zip(jobs, ps))]


def _entries(engine, jobs: list, now: int) -> list:
    return list(zip(jobs, [None] * len(jobs), engine.serv_priorities(jobs, now, {}, {})))


def _arrive(engine, order: list, t: int, new: list, now: int) -> tuple[list, int]:
    """As core/keptorder and core/changes.run take arrivals: put at the end and dated
    (extend) when each ranks after the last job at now, else the whole queue sorted again
    and dated anew (date_all)."""
    added = _entries(engine, new, now)
    last = None
    if order:
        j = order[-1][0]
        last = (j, engine.serv_priorities([j], now, {}, {})[0])
    keys = [order_key(*last)] if last else []
    keys += [order_key(e[0], e[2]) for e in added]
    if all(x < y for x, y in zip(keys, keys[1:])):
        return order + added, kinlist.extend(engine, t, last, added, now, {})
    jobs = _sorted_at(engine, [e[0] for e in order] + new, now)
    return _entries(engine, jobs, now), kinlist.date_all(
        engine, jobs, engine.serv_priorities(jobs, now, {}, {}), now, {})


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_settled_order_is_the_sorted_queue(data):
    """Steps of (time passes, some jobs leave from anywhere, some arrive): before the
    order's date it is kept as it is, after it settle() ranks it; either way it is the
    queue sorted by order_key at now, settle says it moved exactly when the kept order
    was not sorted, and check() holds after every step."""
    engine = _engine(data.draw)
    now = data.draw(st.integers(10**5, 10**6))
    made = 0
    order: list = []
    t = -1
    for step in range(data.draw(st.integers(1, 10))):
        if step:
            now += data.draw(st.sampled_from([1, 30, 600, 5000, 40_000]))
            gone = set(data.draw(st.lists(st.integers(0, max(len(order) - 1, 0)),
                                          max_size=3)))
            order = [e for k, e in enumerate(order) if k not in gone]
        if order and t < now:
            before = [e[0] for e in order]
            got = kinlist.settle(engine, order, [j.id for j in before], now, t)
            assert got is not None
            order, t, moved = got
            assert bool(moved) == (before != _sorted_at(engine, before, now))
        new = []
        for user, wc, wait in data.draw(st.lists(_SPEC, max_size=5)):
            new.append(Job(f"j{made}", user, JobRequest(per_task=Resources.of(1, 100)), wc,
                           now - wait))
            made += 1
        if not order:
            jobs = _sorted_at(engine, new, now)
            order = _entries(engine, jobs, now)
            t = kinlist.date_all(engine, jobs, [e[2] for e in order], now, {})
        elif new:
            order, t = _arrive(engine, order, t, new, now)
        else:
            t = kinlist.extend(engine, t, None, [], now, {})
        jobs = [e[0] for e in order]
        assert jobs == _sorted_at(engine, jobs, now)
        assert now <= t <= now + kinetic.HORIZON
        kinlist.check(engine, order, now, t)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_date_all_is_until(data):
    """date_all gives kinetic.until's date for a queue ranked at now (with the memo as
    each leaves it), and off it is until itself."""
    engine = _engine(data.draw)
    now = data.draw(st.integers(10**5, 10**6))
    specs = data.draw(st.lists(_SPEC, min_size=1, max_size=10))
    jobs = _sorted_at(engine, [Job(f"j{k}", user, JobRequest(per_task=Resources.of(1, 100)),
                                   wc, now - wait) for k, (user, wc, wait) in enumerate(specs)],
                      now)
    ps = engine.serv_priorities(jobs, now, {}, {})
    want = kinetic.until(engine, jobs, ps, now, {})
    assert kinlist.date_all(engine, jobs, ps, now, {}) == want
    assert kinlist.date_all(engine, jobs, ps, now, {jobs[0].id: now}) == -1
    kinlist.check(engine, _entries(engine, jobs, now), now, want)


def list_checked(run):
    """core/changes.run with the kinetic list's check() after every cycle from what changed."""
    def checked(c):
        out = run(c)
        cache = c.state.caches.changes
        if out is not None and cache is not None:
            kinlist.check(c.engine, cache.order, c.now, cache.until)
        return out
    return checked


@SETTINGS
@given(st.data())
def test_replay_decides_as_re_ranking_in_full(monkeypatch, data):
    """config/easy.cfg's priority and reservation settings on several node kinds: every
    cycle's decisions, order and reservations, and every job's start, with the kinetic
    list on and off; check() after every cycle from what changed."""
    monkeypatch.setattr(changes, "run", list_checked(changes.run))
    check_easy_on_off(monkeypatch, data.draw, kinlist, "KINLIST")


@SETTINGS
@given(st.data())
def test_replay_ids_are_the_orders(monkeypatch, data):
    """kinlist.ids_of (KEPT_IDS): a replay with the list's own ids decides, orders and
    reserves as one that works the ids out of the order; after every cycle from what
    changed the cache's ids are its order's, and check() holds.

    Mutant caught: ids_of taking Kin.ids without asking that its heap is this order's
    (`kin.t == t` left out) fails this test (a date_all off the list, or an extend of
    another order, leaves stale ids)."""
    run = changes.run

    def checked(c):
        out = run(c)
        cache = c.state.caches.changes
        if out is not None and cache is not None:
            assert cache.ids == [e[0].id for e in cache.order]
            kinlist.check(c.engine, cache.order, c.now, cache.until)
        return out

    monkeypatch.setattr(changes, "run", checked)
    check_easy_on_off(monkeypatch, data.draw, kinlist, "KEPT_IDS")
