"""FairShare.empties kept across charges (priority/fsuntil.py, switch fsuntil.BOUNDED)
answers as the definition, which works out every credential set at every charge: the
same answers and subfactors after random charges (jobs of several users starting and
ending, window rolls, ceiling, plain, floor and cap targets, a % FSPOLICY), and the same
cycles (decisions, order, priorities, bypass counts) with throttling limits and QOS, each
kept bound checked from the current usage (`check_until`) after every ask. A bound that
survives a window roll fails it (the mutant test below)."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.model import Job, JobRequest, JobState, Resources
from maui_py.priority import fsuntil
from maui_py.priority.fairshare import FairShare

from .on_off import limited_arrivals, replay_on_off
from .test_parked import scenarios as parked_scenarios

USERS = ["u0", "u1", "u2", "u3", "u4"]
SETS = [(u, g, "", q, "") for u in USERS for g in ("g0", "g1") for q in ("", "long")]
modes = st.sampled_from(["-", "-", "-", "", "+", "^", "%"])


@st.composite
def histories(draw):
    """A config with mostly ceiling targets near the users' shares, and steps
    (seconds on, jobs started as (user, group, procs), jobs ended, sets asked)."""
    percent = draw(st.booleans())
    d, dm = draw(st.integers(5, 60)), draw(modes)
    u0, m0 = draw(st.integers(5, 60)), draw(modes)
    g, gm = draw(st.integers(10, 80)), draw(modes)
    text = (f"FSPOLICY DEDICATEDPS{'%' if percent else ''}\n"
            f"FSINTERVAL {draw(st.sampled_from([50, 100, 400]))}\n"
            f"FSDEPTH {draw(st.integers(1, 4))}\nFSDECAY {draw(st.sampled_from([0.5, 0.8]))}\n"
            f"USERCFG[DEFAULT] FSTARGET={d}{dm}\nUSERCFG[u0] FSTARGET={u0}{m0}\n"
            f"GROUPCFG[g1] FSTARGET={g}{gm}\n")
    steps = draw(st.lists(st.tuples(
        st.integers(0, 90),
        st.lists(st.tuples(st.sampled_from(USERS), st.sampled_from(["g0", "g1"]),
                           st.integers(1, 8)), max_size=3),
        st.lists(st.integers(0, 20), max_size=2),
        st.lists(st.sampled_from(range(len(SETS))), max_size=12)), min_size=2, max_size=40))
    return text, steps


def _ask(fs: FairShare, bounded: bool, sets: list) -> list:
    old = fsuntil.BOUNDED
    fsuntil.BOUNDED = bounded
    try:
        return fs.empties(sets)
    finally:
        fsuntil.BOUNDED = old


def _replay(text: str, steps: list) -> None:
    cfg = parse_config(text, "t")
    on, off = FairShare(cfg), FairShare(cfg)
    running: dict[str, Job] = {}
    now, k = 1000, 0
    for gap, starts, ends, asked in steps:
        now += gap
        for user, group, procs in starts:
            k += 1
            running[f"j{k}"] = Job(f"j{k}", user, JobRequest(tasks=procs, per_task=Resources(1, 0)),
                                   3600, now - 1, group=group, state=JobState.RUNNING,
                                   start_time=now - gap)
        for e in ends:
            if running:
                del running[sorted(running)[e % len(running)]]
        for fs in (on, off):
            fs.charge(now, list(running.values()))
        sets = [SETS[i] for i in asked]
        got, want = _ask(on, True, sets), _ask(off, False, sets)
        assert got == want, (now, sets)
        assert got == [off.empty(s) for s in sets]
        on.check_until()
        for s in SETS[::3]:
            assert on.subfactors_of(s) == off.subfactors_of(s), (now, s)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histories())
def test_bounded_empties_answer_as_every_set_worked_out(h):
    _replay(*h)


def test_bounds_are_used_and_a_set_is_answered_without_its_keys():
    """The kept bound answers (else the comparison above would compare the definition
    with itself): a second ask after a small charge does not work the set out again."""
    cfg = parse_config("FSPOLICY DEDICATEDPS\nFSINTERVAL 100000\nUSERCFG[DEFAULT] FSTARGET=50-\n")
    fs = FairShare(cfg)
    big = Job("b", "u1", JobRequest(tasks=8, per_task=Resources(1, 0)), 3600, 0,
              state=JobState.RUNNING, start_time=0)
    small = Job("s", "u0", JobRequest(tasks=1, per_task=Resources(1, 0)), 3600, 0,
                state=JobState.RUNNING, start_time=0)
    fs.charge(10, [big, small])
    fs.charge(1000, [big, small])
    assert fs.empties([SETS[0]]) == [True]
    worked: list = []
    real = fsuntil.Bounds._empty
    try:
        fsuntil.Bounds._empty = lambda self, *a: worked.append(1) or real(self, *a)
        fs.charge(1010, [big, small])
        assert fs.empties([SETS[0]]) == [True] and not worked
    finally:
        fsuntil.Bounds._empty = real
    fs.check_until()


def test_a_bound_kept_past_a_window_roll_fails_the_comparison(monkeypatch):
    """Mutant: bounds kept across a roll (the older windows' decayed sum changes, so a
    user's share may jump past its ceiling) answer 'empty' where the definition does not."""
    monkeypatch.setattr(fsuntil.Bounds, "__init__", _sticky_init)
    _STICKY.clear()
    with pytest.raises(AssertionError):
        _replay("FSPOLICY DEDICATEDPS\nFSINTERVAL 100\nFSDEPTH 2\nFSDECAY 0.5\n"
                "USERCFG[DEFAULT] FSTARGET=40-\n",
                [(10, [("u1", "g0", 8), ("u0", "g0", 1)], [], [0]),
                 (95, [], [0], [0]),           # u1 ends: in the next window u0 alone runs
                 (90, [], [], [0]), (90, [], [], [0]), (90, [], [], [0])])


_STICKY: dict = {}
_REAL_INIT = fsuntil.Bounds.__init__


def _sticky_init(self, rolls, subfactor, now_w=None):
    _REAL_INIT(self, rolls, subfactor, now_w)
    if rolls >= 0:                          # the bounded side's maps survive every roll
        kept = _STICKY.setdefault(id(subfactor), (self.sets, self.keys))
        self.sets, self.keys = kept


def _checked_empties(real):
    def empties(self, sets):
        out = real(self, sets)
        self.check_until()
        return out
    return empties


def replay_with_checked_bounds(module, switch: str, sc, long_windows: bool) -> None:
    """replay_on_off of `module.switch` on a parked scenario with a fair-share ceiling or
    floor target, FSINTERVAL made long (bounds last) if `long_windows`, FairShare.empties
    checking the kept bounds (check_until) after every call."""
    nodes, text, steps = sc
    text += "USERCFG[DEFAULT] FSTARGET=70-\n" if "FSTARGET=10\n" not in text else ""
    if long_windows:
        text = re.sub(r"FSINTERVAL \d+", "FSINTERVAL 1000000", text)
    real = FairShare.empties
    FairShare.empties = _checked_empties(real)
    try:
        replay_on_off(module, switch, (nodes, text, steps), limited_arrivals, gap=40,
                      maps=("queue_time", "bypass", "reservations"), priorities=True)
    finally:
        FairShare.empties = real


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(parked_scenarios(), st.booleans())
def test_cycles_with_bounded_empties_decide_as_without(sc, long_windows):
    """Cycles with limits, QOS long jobs parked, several fair-share set-ups (a ceiling
    one among them), windows rolling often or not at all (so bounds last): the same
    decisions, order, priorities and bypass counts."""
    replay_with_checked_bounds(fsuntil, "BOUNDED", sc, long_windows)
