"""The Reserve decisions a cycle lists (core/finish.reserve_decisions): the last cycle's are used
again for reservations that have not changed, whatever their order now."""

from __future__ import annotations

from maui_py.core.finish import reserve_decisions
from maui_py.core.state import KeptReservation
from maui_py.model import Reserve


def kept(jid: str, start: int, end: int) -> KeptReservation:
    return KeptReservation(jid, start, end, (), 0, 0)


def test_unchanged_reservations_reuse_the_last_decisions_in_any_order():
    known = [Reserve("a", 10, 20, ()), Reserve("b", 20, 30, ()), Reserve("c", 30, 40, ()),
             Reserve("e", 50, 60, ())]
    now = {"b": kept("b", 20, 30), "c": kept("c", 25, 35), "d": kept("d", 40, 50),
           "a": kept("a", 10, 20), "e": kept("e", 50, 60)}
    out = reserve_decisions(now.items(), known)
    assert out == [Reserve(j, kr.start, kr.end, ()) for j, kr in now.items()]
    assert out[0] is known[1]           # the head ("a") is gone from its place: one skipped
    assert out[1] is not known[2]       # moved: a new decision
    assert out[3] is known[0] and out[4] is known[3]    # found again out of order


def test_without_last_decisions_each_is_new():
    now = {"a": kept("a", 10, 20), "b": kept("b", 20, 30)}
    assert reserve_decisions(now.items(), []) == [Reserve("a", 10, 20, ()), Reserve("b", 20, 30, ())]
