"""backfill._all_placed: backfill is skipped only when every job it would look at started
this cycle or holds a reservation."""

from __future__ import annotations

from types import SimpleNamespace

from maui_py.model import Job, JobRequest
from maui_py.policy.backfill import _all_placed


def ctx(reserved, started):
    return SimpleNamespace(state=SimpleNamespace(reservations=dict.fromkeys(reserved)),
                           started=set(started))


def order(*ids):
    return [(Job(j, "u", JobRequest(tasks=1), 60, 0), None, 0.0) for j in ids]


def test_every_job_reserved_or_started_leaves_nothing_to_backfill():
    assert _all_placed(ctx(["a", "c"], ["b"]), order("a", "b", "c"), 0)
    assert _all_placed(ctx(["c"], []), order("a", "b", "c"), 2)


def test_one_job_neither_reserved_nor_started_is_backfill_s():
    assert not _all_placed(ctx(["a", "x"], ["b"]), order("a", "b", "c"), 0)
    assert not _all_placed(ctx(["a"], []), order("a", "b"), 0)
    # as many reservations and starts as jobs, one of them outside the order
    assert not _all_placed(ctx(["a", "b", "z"], []), order("a", "b", "c"), 0)
