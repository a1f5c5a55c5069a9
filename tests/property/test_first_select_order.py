"""core/firstselect._order's stable sorts on one plain key each (SORT_IN_PASSES) give the
order of Cycle.select's tuple key (-priority, submit time, id length, id): entries with
tied priorities (-0.0 beside 0.0, infinities), tied submit times, ids of tied and
different lengths, and NaN priorities (where the tuple sort is kept), each sorted with the
switch on and off, must come out in the same order, which must be sorted by the key when
no NaN is in it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.core import firstselect
from maui_py.model import Job, JobRequest

PRIORITIES = st.sampled_from([0.0, -0.0, 1.5, 2.0, -3.25, float("inf"), float("-inf"),
                              1e300, 7.0])


def _entries(draw_rows, nan: bool):
    out = []
    for k, (p, submit, name) in enumerate(draw_rows):
        job = Job(f"{name}{k}", "u", JobRequest(), 60, submit)
        out.append((job, None, float("nan") if nan and k % 3 == 0 else p))
    return out


ROWS = st.lists(st.tuples(PRIORITIES, st.integers(0, 4), st.sampled_from(["a", "b", "ab", "j"])),
                min_size=2, max_size=40)


def _sorted(entries, on: bool) -> list[str]:
    old = firstselect.SORT_IN_PASSES
    firstselect.SORT_IN_PASSES = on
    try:
        return [entries[k][0].id for k in firstselect._order(entries)]
    finally:
        firstselect.SORT_IN_PASSES = old


@settings(max_examples=300, deadline=None)
@given(ROWS, st.booleans())
def test_sorting_in_passes_gives_the_tuple_keys_order(rows, nan):
    entries = _entries(rows, nan)
    got, want = _sorted(entries, True), _sorted(entries, False)
    assert got == want
    if not nan:
        by_id = {j.id: (-p, j.submit_time, len(j.id), j.id) for j, _cr, p in entries}
        keys = [by_id[i] for i in got]
        assert keys == sorted(keys)
