"""core/gcpause.py: the collector is off inside and as it was before afterwards."""

from __future__ import annotations

import gc

import pytest

from maui_py.core import gcpause


@pytest.fixture
def collector():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("enabled", [True, False])
def test_paused_restores_the_collector_as_it_was(collector, enabled):
    (gc.enable if enabled else gc.disable)()
    pause = gcpause.paused()
    for _ in range(2):                          # one instance, used twice
        with pause:
            assert not gc.isenabled()
            with gcpause.paused():              # nested: another instance
                assert not gc.isenabled()
            assert not gc.isenabled()
        assert gc.isenabled() is enabled


def test_paused_restores_the_collector_when_the_body_raises(collector):
    gc.enable()
    with pytest.raises(ValueError):
        with gcpause.paused():
            raise ValueError("cycle failed")
    assert gc.isenabled()
