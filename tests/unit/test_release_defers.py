"""policy/deferral.release_defers picking the records that run out in C
(deferral.QUICK_PICK) releases exactly what a Python pass over every record picks
(QUICK_PICK off, the definition): the same records back to 0, the same queue times
restarted, the same ReleaseHold decisions in the same order."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.core.records import DeferRecord
from maui_py.model import HoldType, ReleaseHold
from maui_py.policy import deferral


def _run(monkeypatch, untils: list[int], now: int, quick: bool):
    monkeypatch.setattr(deferral, "QUICK_PICK", quick)
    state = SimpleNamespace(deferred={f"j{k}": DeferRecord(count=1, until=u)
                                      for k, u in enumerate(untils)}, queue_time={})
    c = SimpleNamespace(state=state, now=now, decisions=[])
    deferral.release_defers(c)
    return ([r.until for r in state.deferred.values()], state.queue_time, c.decisions)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from([0, 0, 0, -5, 99, 100, 101, 500]), max_size=12),
       st.sampled_from([0, 100, 1000]))
def test_the_pass_in_c_releases_as_the_loop(monkeypatch, untils, now):
    assert _run(monkeypatch, untils, now, True) == _run(monkeypatch, untils, now, False)


def test_a_record_running_out_now_is_released_and_the_others_left(monkeypatch):
    untils, queue_time, decisions = _run(monkeypatch, [0, 100, 101, 0], 100, True)
    assert untils == [0, 0, 101, 0]
    assert queue_time == {"j1": 100}
    assert decisions == [ReleaseHold("j1", HoldType.DEFER, "defer time elapsed")]
    assert _run(monkeypatch, [0, 101, 0], 100, True) == ([0, 101, 0], {}, [])
