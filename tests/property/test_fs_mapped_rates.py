"""The rate sums charged to the windows in one mapped dict.update (fairshare.MAPPED) leave
the windows, bit for bit and in key order, as the loop over the keys leaves them (the
definition), over random starts, ends, changes, idle jobs (no processors: a zero rate the
loop charges nothing), processor-equivalents (fractional rates) and clocks crossing
FSINTERVAL boundaries; the subfactors read from them agree too."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.priority import fairshare
from maui_py.priority.fairshare import FairShare

from .test_incremental_charge import ACCOUNTS, INTERVAL, TARGETS, USERS, Mover, _running

step = st.tuples(
    st.integers(0, 260),                                           # clock advance
    st.lists(st.tuples(st.integers(0, 11), st.integers(0, 8), st.sampled_from(USERS),
                       st.sampled_from(ACCOUNTS), st.sampled_from((None, 0, 30, 500)),
                       st.sampled_from((0, 100, 4000))), max_size=4),   # starts / changes
    st.lists(st.integers(0, 11), max_size=3),                      # ends
    st.booleans(),                                                 # start some via note_started
    st.sampled_from(((64, 0), (64, 8000), (32, 8000))),            # cluster totals (PES)
    st.booleans(),                                                 # hand the charge moves
)


def _charge(fs: FairShare, mapped: bool, now: int, running, moves) -> None:
    old = fairshare.MAPPED
    fairshare.MAPPED = mapped
    try:
        fs.charge(now, running, moves)
    finally:
        fairshare.MAPPED = old


@settings(max_examples=200, deadline=None)
@given(policy=st.sampled_from(("DEDICATEDPS", "DEDICATEDPES")),
       steps=st.lists(step, min_size=1, max_size=25), wall=st.sampled_from((50, 300, 10**6)))
def test_mapped_rate_charge_equals_the_loop(policy, steps, wall):
    cfg = parse_config(f"FSPOLICY {policy}\nFSINTERVAL {INTERVAL}\nFSDEPTH 3\n" + TARGETS, "t.cfg")
    on, off, m_on, m_off = FairShare(cfg), FairShare(cfg), Mover(), Mover()
    world: dict[str, object] = {}
    now = 1000
    for dt, starts, ends, noted, totals, moved in steps:
        now += dt
        on.set_totals(*totals)
        off.set_totals(*totals)
        for jid in ends:
            world.pop(f"j{jid}", None)
        later = []
        for jid, procs, user, acct, back, mem in starts:
            j = _running(jid, procs, user, acct, back, mem, now, wall)
            if noted and back == 0:
                later.append(j)
            else:
                world[j.id] = j
        running = list(world.values())
        _charge(on, True, now, running, m_on(running) if moved else None)
        _charge(off, False, now, running, m_off(running) if moved else None)
        if later:
            on.note_started(later, now)
            off.note_started(later, now)
            for j in later:
                world[j.id] = j
        assert list(on.windows) == list(off.windows)
        for k, w in off.windows.items():
            assert list(on.windows[k].items()) == list(w.items()), k   # same floats, same order
        assert on._rates == off._rates and on.seen == off.seen
        for u in USERS:
            for a in ACCOUNTS:
                creds = (u, "", a, "", "")
                assert on.subfactors_of(creds) == off.subfactors_of(creds)
                assert on.empty(creds) == off.empty(creds)
