"""The fair-share re-ranking's tails answered first from the kept empty bounds
(FairShare.known_empty, core/selection._known_first, switch selection.KNOWN_EMPTY) decide
as the batch alone (the definition): the same decisions, order, priorities, queue times,
bypass counts and reservations, cycle after cycle, with limits, QOS long jobs parked,
ceiling targets and windows rolling often or not at all, each side's FsTails, planner and
kept bounds checked. A known_empty that forgets the bound's usage test fails it (the
mutant test below)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.core import selection
from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.priority import fsuntil
from maui_py.priority.fairshare import FairShare

from .on_off import replay_on_off
from .test_fs_empty_bounds import replay_with_checked_bounds
from .test_parked import scenarios as parked_scenarios

MAPS = ("queue_time", "bypass", "reservations")


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(parked_scenarios(), st.booleans())
def test_cycles_with_known_empty_sets_decide_as_the_batch(sc, long_windows):
    replay_with_checked_bounds(selection, "KNOWN_EMPTY", sc, long_windows)


_CEILING = ("RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\nQUEUETIMEWEIGHT 1\n"
            "FSPOLICY DEDICATEDPS\nFSINTERVAL 1000000\nFSDEPTH 2\nFSDECAY 0.5\nFSWEIGHT 1\n"
            "FSUSERWEIGHT 10\nUSERCFG[DEFAULT] FSTARGET=30-\n")
_STEPS = [("arrive", 2), ("arrive", 12), ("arrive", 11), ("arrive", 21)] + [("tick", 0)] * 12


def _two_users(k: int, pick: int, now: int) -> dict[str, Job]:
    """pick = 10 x user + procs: one long job (u1 starts first, u0 catches up past its
    30 % ceiling while its queued jobs wait on the full node)."""
    jid = f"j{k}"
    return {jid: Job(jid, f"u{pick // 10 - 1}",
                     JobRequest(tasks=pick % 10, per_task=Resources(1, 100)), 100_000, now)}


def _replay_ceiling() -> list:
    """Replay the ceiling scenario on against off; what known_empty answered."""
    known: list = []
    real = FairShare.known_empty

    def spy(self, sets):
        out = real(self, sets)
        known.extend(out or ())
        return out
    FairShare.known_empty = spy
    try:
        replay_on_off(selection, "KNOWN_EMPTY",
                      ((Node("n0", Resources(procs=4, mem=4000)),), _CEILING, _STEPS),
                      _two_users, gap=40, maps=MAPS, priorities=True)
    finally:
        FairShare.known_empty = real
    return known


def test_known_empty_answers_sets_of_a_ceiling_queue():
    """known_empty answers some sets (else the comparison above would compare the
    definition with itself), and some it leaves to the batch."""
    known = _replay_ceiling()
    assert any(known) and not all(known)


def test_a_known_empty_that_ignores_the_usage_fails_the_comparison(monkeypatch):
    """Mutant: a kept bound answers 'empty' whatever the system's usage has grown to, so
    u0's set stays without its (negative) fair-share part once past its ceiling."""
    monkeypatch.setattr(fsuntil.Bounds, "known",
                        lambda self, sets, w0: None if self.sets is None
                        else [s in self.sets for s in sets])
    with pytest.raises(AssertionError):
        _replay_ceiling()
