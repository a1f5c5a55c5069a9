"""The backfill pass's shortcuts give the decisions of asking the planner every time."""

import pytest

from maui_py.core import cycle
from maui_py.core.cycle import run_cycle
from maui_py.policy import backfill as backfill_pass

from .build import cluster, config, job, snapshot

EASY = "RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n"


def _asked(monkeypatch) -> list[str]:
    """The jobs the backfill pass asks fits_now about, in turn."""
    asked: list[str] = []
    real, real_pass = cycle.Cycle.fits_now, backfill_pass.backfill
    inside = []

    def fits_now(self, job, cr):
        if inside:
            asked.append(job.id)
        return real(self, job, cr)

    def backfill(*a, **kw):
        inside.append(True)
        try:
            return real_pass(*a, **kw)
        finally:
            inside.clear()

    monkeypatch.setattr(cycle.Cycle, "fits_now", fits_now)
    monkeypatch.setattr(backfill_pass, "backfill", backfill)
    return asked


@pytest.mark.parametrize("mem", [0, 100])
def test_a_request_that_failed_is_asked_again_for_a_shorter_span_only(monkeypatch, mem):
    # W reserves all three nodes at 100; X (200 s) would run into it, Y (50 s) and V (60 s)
    # of the same request fit before it, Z (300 s) cannot: it is not asked
    asked = _asked(monkeypatch)
    busy = job("A", 1, 100, 0, start=0, nodes=("n0",), mem=mem)
    waiting = [job("W", 3, 100, 1), job("X", 1, 200, 2, mem=mem), job("Y", 1, 50, 3, mem=mem),
               job("Z", 1, 300, 4, mem=mem), job("V", 1, 60, 5, mem=mem)]
    r = run_cycle(snapshot(10, cluster(3, mem=1000 if mem else 0), [busy] + waiting),
                  config(EASY))
    assert sorted(d.job_id for d in r.starts()) == ["V", "Y"]
    assert [d.job_id for d in r.reservations()] == ["W"]
    if mem:         # the node table: the count planner's gates skip X and Z before asking
        assert asked == ["X", "Y", "V"]
