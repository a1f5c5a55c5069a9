"""The forecast's shortcuts (maui_py/forecast/shortcuts.py), each on against off: the menu
of draws made once per key equals the one made job by job; replays with the collector
paused give the same forecasts and leave the collector as they found it; replays in forked
processes give the same forecasts as in turn, and keep the deadline rule."""

from __future__ import annotations

import copy
import gc
from dataclasses import replace

from hypothesis import assume, given, settings, strategies as st

from maui_py.forecast.budgeted import forecast_within
from maui_py.forecast.engine import ForecastOptions, Moment, choices, forecast
from maui_py.forecast.shortcuts import OFF, ON, Shortcuts, quiet_replay
from maui_py.model import Job, JobRequest, JobState

from .moments import CONSERVATIVE, take

USERS = ("u0", "u1", "u2")
NOW = 100_000


@st.composite
def moments(draw):
    """Jobs of few users, few requests and few run-so-far values, so that many share a key
    (and many share a user and a request but not what they have run)."""
    jobs = []
    for k in range(draw(st.integers(1, 40))):
        user = draw(st.sampled_from(USERS + ("nobody",)))
        wc = draw(st.sampled_from((60, 600, 3600, 7200)))
        if draw(st.booleans()):
            ran = draw(st.sampled_from((0, 30, 59, 600, 3599, 3600, 8000)))
            jobs.append(Job(f"j{k}", user, JobRequest(1), wc, NOW - 9000, state=JobState.RUNNING,
                            start_time=NOW - ran, allocation=(("n0", JobRequest(1).per_task),)))
        else:
            jobs.append(Job(f"j{k}", user, JobRequest(1), wc, NOW - k))
    return Moment(NOW, (), tuple(jobs))


histories = st.dictionaries(st.sampled_from(USERS), st.lists(
    st.tuples(st.integers(0, 5000), st.integers(0, 5000)), max_size=12).map(tuple), max_size=3)


@settings(max_examples=200, deadline=None)
@given(moments(), histories, st.integers(0, 40))
def test_the_menu_made_once_per_key_is_the_one_made_job_by_job(moment, history, window):
    fast = choices(moment, history, window, memo=True)
    slow = choices(moment, history, window, memo=False)
    assert fast == slow
    assert [c[0].id for c in fast] == sorted(j.id for j in moment.jobs)


def _history(shares):
    return {u: tuple((s * 10, 1000) for s in shares) for u in USERS}


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10**6), st.integers(6, 16), st.integers(4, 10), st.integers(1, 10),
       st.lists(st.integers(1, 100), min_size=1, max_size=6), st.booleans(),
       st.sampled_from(("recent", "job", "user", "all")))
def test_every_shortcut_on_gives_the_forecasts_of_every_one_off(seed, n, nodes, cycle, shares, conservative, draw):
    tk = take(seed, n, nodes, cycle, CONSERVATIVE if conservative else "")
    assume(tk is not None)
    opt = ForecastOptions(samples=4, seed=seed, draw=draw)
    was = gc.isenabled()
    on = forecast(tk.moment, tk.cfg, tk.result.state, _history(shares), opt, fast=ON)
    assert gc.isenabled() == was                     # the collector as it was found
    off = forecast(tk.moment, tk.cfg, tk.result.state, _history(shares), opt, fast=OFF)
    assert on == off and on


def test_the_collector_is_paused_inside_a_quiet_replay_and_on_again_after():
    gc.enable()
    with quiet_replay(True):
        assert not gc.isenabled()
        with quiet_replay(True):                     # nested: the inner one leaves it off
            pass
        assert not gc.isenabled()
    assert gc.isenabled()
    with quiet_replay(False):
        assert gc.isenabled()
    gc.disable()
    try:
        with quiet_replay(True):
            pass
        assert not gc.isenabled()                    # off before, off after
    finally:
        gc.enable()


def test_a_cycle_left_by_a_quiet_replay_is_collected_on_the_way_out():
    class Loop:
        pass

    gc.collect()
    with quiet_replay(True):
        a = Loop()
        a.me = a
        del a
    assert gc.collect() == 0                         # nothing left for a full collection


class Ticks:
    """A clock that moves one second each time it is read."""

    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 1.0
        return self.t


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 7), st.integers(2, 4),
       st.lists(st.integers(1, 100), min_size=1, max_size=6))
def test_forked_replays_give_the_forecasts_of_replays_in_turn(seed, samples, workers, shares):
    tk = take(seed, 12, 6, 3, "")
    assume(tk is not None)
    opt = ForecastOptions(samples=samples, seed=seed)
    args = (tk.moment, tk.cfg, tk.result.state, _history(shares), opt)
    forked = forecast_within(*args, deadline=float("inf"), fast=Shortcuts(workers=workers))
    in_turn = forecast_within(*args, deadline=float("inf"), fast=OFF)
    assert forked == in_turn and forked.done == samples and not forked.cut
    cut = forecast_within(*args, deadline=4.5, clock=Ticks(), fast=Shortcuts(workers=workers))
    assert 1 <= cut.done <= samples and cut.cut == (cut.done < samples)
    first = forecast_within(tk.moment, tk.cfg, tk.result.state, _history(shares),
                            replace(opt, samples=cut.done), deadline=float("inf"), fast=OFF)
    assert cut.forecasts == first.forecasts          # the replays done are the first ones
    one = forecast_within(*args, deadline=-1.0, fast=Shortcuts(workers=workers))
    assert one.done == 1 and one.cut == (samples > 1)   # at least one, and no more past the deadline


def test_shortcuts_are_bounded():
    assert Shortcuts(workers=0).bounded().workers == 1
    assert Shortcuts(workers=10**6).bounded().workers == 64
    assert OFF.bounded() == OFF and not OFF.quiet and not OFF.menu


def test_mauids_worker_with_forecastworkers_gives_the_forecasts_of_one_at_a_time(tmp_path):
    """FORECASTWORKERS 3 (cli/forecast_worker.work) forks its replays and stores the same
    ranges as FORECASTWORKERS 1, which are forecast_within's in turn."""
    import json

    from maui_py.cli.forecast_worker import work
    from maui_py.store.codec import encode
    from maui_py.store.state_rows import state_rows
    tk = take(5, 15, 8, 4)
    assert tk is not None
    hist = _history([5, 20, 40, 80, 100, 3])
    rows = state_rows(tk.result.state)
    state = {"jobs": {k: json.loads(v) for k, v in rows.jobs.items()},
             "reservations": {k: json.loads(v[2]) for k, v in rows.reservations.items()},
             "kv": {k: json.loads(v) for k, v in rows.kv.items()}}
    payload = {"iteration": 1, "now": tk.moment.now, "budget": 1000, "samples": 7, "seed": 0, "state": state,
               "nodes": [encode(n) for n in tk.moment.nodes], "jobs": [encode(j) for j in tk.moment.jobs],
               "history": {u: [list(p) for p in pairs] for u, pairs in hist.items()}}
    out = {}
    for n in (1, 3):
        cfg = tmp_path / f"maui{n}.cfg"
        cfg.write_text(f"RMPOLLINTERVAL 0:00:30\nFORECASTWORKERS {n}\nFORECASTCALIBRATION 0\n")
        got = work(payload, str(cfg), str(tmp_path / "none.db"))
        assert got["done"] == 7 and not got["cut"]
        out[n] = {r[0]: tuple(r[1:6]) for r in got["forecasts"]}
    expected = forecast_within(tk.moment, tk.cfg, tk.result.state, hist, ForecastOptions(samples=7),
                               float("inf"), fast=OFF)
    assert out[3] == out[1] == {jid: (f.p10, f.p50, f.p90, f.samples, f.late)
                                for jid, f in expected.forecasts.items()} and out[1]


def test_a_finished_replays_world_is_freed_without_the_collector():
    """forecast.engine._let_go: once the caller drops the replay's state, its table (and
    the simulation around it) go by reference counting, with the collector off: the quiet
    shortcut's collection after a replay has nothing of it to walk."""
    import random
    import weakref

    from maui_py.forecast.engine import draws, plain_copy, replay_once
    tk = take(11, 14, 6, 3, "")
    assert tk is not None
    queued = sorted(j.id for j in tk.moment.jobs if not j.state.active)
    menu = choices(tk.moment, _history([5, 50, 100]), 32)
    was = gc.isenabled()
    gc.disable()
    try:
        st = plain_copy(tk.result.state)
        starts = replay_once(tk.moment, tk.cfg, st, draws(menu, random.Random(1)), queued,
                             ForecastOptions().bounded())
        assert set(starts) == set(queued)
        table = weakref.ref(st.caches.plan.table)
        assert table() is not None
        del st
        assert table() is None
    finally:
        if was:
            gc.enable()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.integers(6, 16), st.integers(4, 10), st.integers(1, 10), st.booleans())
def test_the_pickled_plain_copy_is_deepcopys_and_shares_nothing_that_changes(seed, n, nodes, cycle, conservative):
    from dataclasses import fields

    from maui_py.forecast.engine import plain_copy
    from maui_py.forecast.shortcuts import deep_copy
    tk = take(seed, n, nodes, cycle, CONSERVATIVE if conservative else "")
    assume(tk is not None)
    state = tk.result.state
    fast, slow = plain_copy(state, True), plain_copy(state, False)
    plain = [f.name for f in fields(state) if f.name not in ("caches", "queue_policy")]
    for name in plain:
        assert getattr(fast, name) == getattr(slow, name) == getattr(state, name), name
    assert (fast.queue_policy is None) == (slow.queue_policy is None)
    if fast.queue_policy is not None:
        assert fast.queue_policy.dump() == slow.queue_policy.dump()
    again, once_more = deep_copy(fast, True), deep_copy(fast, False)
    for name in plain:
        assert getattr(again, name) == getattr(once_more, name), name
    before = copy.deepcopy(state.reservations)
    for name in plain:                               # nothing mutable shared with the original
        a, b = getattr(fast, name), getattr(state, name)
        assert a is not b or isinstance(a, (int, str, type(None), tuple, frozenset))
    fast.reservations.clear()
    for r in again.reservations.values():
        r.start += 1
    assert state.reservations == before


def test_what_does_not_pickle_is_deep_copied():
    from maui_py.forecast.shortcuts import deep_copy
    odd = {"f": lambda: 1, "x": [1, 2]}
    got = deep_copy(odd, True)
    assert got["x"] == [1, 2] and got["x"] is not odd["x"] and got["f"] is odd["f"]
