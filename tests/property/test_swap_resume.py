"""core/swapresume.py: a quiet cycle whose kept order swapped neighbours only behind the
job the last priority pass stopped at resumes, and decides exactly what the passes run
in full over that order decide: config/easy.cfg's priority and reservation settings on
several node kinds, replayed with SWAP_RESUME on and off, every cycle's decisions, order
and reservations and every job's start equal, the planner's `_check()` after every cycle
(SimOptions.check_table) and the kinetic list's `check` (its `_check()`) after every
cycle from what changed. The replays must resume a swapped cycle now and then (counted
over the run), or the test would prove nothing.

Mutant caught: leaving ChangeCache.untouched as it was (`cache.untouched = False` left
out of swapresume.kept) fails test_replay_resumes_as_the_passes_in_full (the resumed
cycle keeps the reservations' made_at where the passes in full re-stamp them). Not
caught, and why: comparing the prefix only up to the job before the stop job, or not
at all; a swap at the reservations' head makes core/changes._placed_again answer False
(the passes then run in full), and a swap between the head and the stop job changes only
the job the pass names in its stop reason, never a decision (no kept job can start now).
The prefix check keeps the cache's stop reason the one the passes in full leave."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.core import changes, swapresume
from .test_kinetic_list import list_checked
from .test_xf_priorities import SETTINGS, check_easy_on_off


def _on_off(monkeypatch, draw, resumed: list[int]) -> None:
    """One random replay with SWAP_RESUME on and off compared (check_easy_on_off), the
    kinetic list checked after every cycle, the swapped cycles resumed added to
    `resumed[0]`; the patches are undone after it."""
    with monkeypatch.context() as m:
        resumes = swapresume.resumes

        def counted(*args):
            got = resumes(*args)
            resumed[0] += bool(got)
            return got

        m.setattr(changes, "run", list_checked(changes.run))
        m.setattr(swapresume, "resumes", counted)
        check_easy_on_off(m, draw, swapresume, "SWAP_RESUME")


@SETTINGS
@given(st.data())
def test_replay_resumes_as_the_passes_in_full(monkeypatch, data):
    _on_off(monkeypatch, data.draw, [0])


def test_swaps_were_resumed(monkeypatch):
    """A fixed (derandomized) run of the replays above resumes swapped cycles now and then,
    so the on/off comparison tests the resume, not only the passes in full."""
    resumed = [0]

    @settings(SETTINGS, max_examples=20, derandomize=True)
    @given(st.data())
    def replays(data):
        _on_off(monkeypatch, data.draw, resumed)

    replays()
    assert resumed[0] > 0
