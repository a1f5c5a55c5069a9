"""The real Maui 3.3 as the oracle: every recorded run (tests/fixtures/maui/, recorded by its
record.py from ../shared/maui/) replayed by maui-py under MAUICOMPAT 3.3 starts every job
when and where Maui started it.

A fixture may name, in meta.json's `known_differences`, jobs whose start comes from Maui's
simulator rather than its scheduler, each with the source line that causes it: those must
differ exactly so (an unexplained agreement is as suspect as a difference).

NOT_YET lists the fixtures MAUICOMPAT 3.3 does not reproduce yet, each with what Maui does
that maui-py does not: they run as strict expected failures, so one that starts to agree
fails the suite until it is taken off the list.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "maui"


def _loader():
    spec = importlib.util.spec_from_file_location("maui_fixture_load", FIXTURES / "load.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, mod)
    spec.loader.exec_module(mod)
    return mod


LOAD = _loader()
NOT_YET: dict[str, str] = {}
"""Fixture -> what Maui does that maui-py does not yet (empty since MAUICOMPAT 3.3 selects
core/compat.MAUI33_HIGHEST, Maui's own HIGHEST re-make with MJobAllocMNL's node rules:
planning/maui33.py, maui33_alloc.py; docs/compatibility.md S11, S16)."""
NAMES = [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=NOT_YET[n]))
         if n in NOT_YET else n for n in LOAD.names()]


def test_fixtures_are_there():
    names = LOAD.names()
    assert len(names) >= 18 and set(NOT_YET) <= set(names), names


@pytest.mark.parametrize("name", NAMES)
def test_maui_py_starts_every_job_when_and_where_maui_did(name):
    fx = LOAD.load(name)
    _assert_as_maui(name, fx, LOAD.replay(fx, ["MAUICOMPAT 3.3"]))


def _assert_as_maui(name, fx, got):
    """Every start in `got` as Maui's but the fixture's known differences, which differ;
    every host set of the others as Maui's."""
    assert set(got) == set(fx.expected)
    known = fx.meta.get("known_differences", {})
    for jid, why in known.items():
        assert why.get("source"), f"{name}: job {jid}'s known difference names no source line"
    differ = sorted((j for j in fx.expected if got[j][0] != fx.expected[j][0]),
                    key=lambda j: fx.expected[j][0])
    assert differ == sorted(known, key=lambda j: fx.expected[j][0]), (
        f"{name}: {len(differ)} starts differ; first: job {differ[0]} Maui "
        f"{fx.expected[differ[0]][0]}, maui-py {got[differ[0]][0]}" if differ else
        f"{name}: known differences that no longer differ: {sorted(known)}")
    hosts = sorted(j for j in fx.expected if j not in known and got[j][1] != fx.expected[j][1])
    assert not hosts, (f"{name}: {len(hosts)} jobs on other nodes; first: job {hosts[0]} Maui "
                       f"{fx.expected[hosts[0]][1]}, maui-py {got[hosts[0]][1]}")
