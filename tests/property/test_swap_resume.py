"""core/swapresume.py: a quiet cycle whose kept order swapped neighbours only behind the
job the last priority pass stopped at resumes, and decides exactly what the passes run
in full over that order decide: config/easy.cfg's priority and reservation settings on
several node kinds, replayed with SWAP_RESUME on and off, every cycle's decisions, order
and reservations and every job's start equal, the planner's `_check()` after every cycle
(SimOptions.check_table) and the kinetic list's `check` (its `_check()`) after every
cycle from what changed. The replays must resume a swapped cycle now and then (counted
over the run), or the test would prove nothing.

Mutants caught: comparing the prefix up to the stop job's place without the stop job
itself (`islice(..., k - 1)`) fails test_replay_resumes_as_the_passes_in_full; so does
answering True without comparing the prefix at all."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maui_py.core import changes, swapresume
from maui_py.priority import kinlist

from .test_xf_priorities import SETTINGS, check_easy_on_off

RESUMED = [0]
"""Swapped quiet cycles resumed over the whole run (test_swaps_were_resumed reads it)."""


@SETTINGS
@given(st.data())
def test_replay_resumes_as_the_passes_in_full(monkeypatch, data):
    run, resumes = changes.run, swapresume.resumes

    def checked(c):
        out = run(c)
        cache = c.state.caches.changes
        if out is not None and cache is not None:
            kinlist.check(c.engine, cache.order, c.now, cache.until)
        return out

    def counted(*args):
        got = resumes(*args)
        RESUMED[0] += bool(got)
        return got

    monkeypatch.setattr(changes, "run", checked)
    monkeypatch.setattr(swapresume, "resumes", counted)
    check_easy_on_off(monkeypatch, data.draw, swapresume, "SWAP_RESUME")


def test_swaps_were_resumed():
    """The replays above resumed swapped cycles (run after them: pytest keeps file order)."""
    assert RESUMED[0] > 0
