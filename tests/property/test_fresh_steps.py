"""planning/freshload._from_origin, the step function of a node whose holds all run from
the origin (a fresh load's running jobs), is Timeline._steps_from's for the same holds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.model import Node, Resources
from maui_py.planning import freshload
from maui_py.planning.table import ReservationTable

ORIGIN = 1000


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(ORIGIN + 1, ORIGIN + 40), st.integers(0, 3),
                          st.integers(0, 2)), min_size=1, max_size=8))
def test_from_origin_is_steps_from(holds):
    table = ReservationTable([Node("n0", Resources.of(16, 1000))], ORIGIN)
    zero = table.zero
    held = [(ORIGIN, e, table.vector(Resources.of(p, m * 100))) for e, p, m in holds]
    want = table._steps_from([(s, e, v, "") for s, e, v in held])
    got = freshload._from_origin(held, zero)
    assert got == want
    assert [len(u) for u in got[1]] == [len(zero)] * len(got[1])
