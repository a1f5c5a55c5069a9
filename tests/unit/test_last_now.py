"""LASTAVAILABLE start-now questions answered in one walk (planning/lastnow.py): what each
start no longer does, as operation counts (no timing): no scan, and one fit per partly used
node worked out with its key instead of a fits dict keyed again; the same placement as the
scan followed by node choice."""

from __future__ import annotations

from maui_py.model import JobRequest, Node, Resources
from tests.opcount import FitCountingTable, py_calls


class _Counted(FitCountingTable):
    scans = 0

    def scan(self, *args, **kwargs):
        self.scans += 1
        return super().scan(*args, **kwargs)


def _partly_used(n: int = 40) -> _Counted:
    """n nodes, each partly used by a job ending at its own time, then 10 idle ones."""
    nodes = [Node(f"n{i}", Resources.of(16, 2000)) for i in range(n + 10)]
    table = _Counted(nodes, origin=0)
    for i in range(n):
        table.reserve(f"j{i}", 0, 100 + 7 * i, [(nodes[i].name, Resources.of(3, 100))])
    return table


ONE = JobRequest(tasks=2, per_task=Resources.of(1, 10))


def test_a_lastavailable_start_now_asks_no_scan_and_fits_each_partly_used_node_once():
    table = _partly_used()
    p = table.earliest_start(ONE, 150, until=0, policy="LASTAVAILABLE")
    assert table.scans == 0
    assert table.asked == 40                # each partly used node's fit, once (then kept)
    scanned = _partly_used()
    scanned.use_last = False
    q = scanned.earliest_start(ONE, 150, until=0, policy="LASTAVAILABLE")
    assert scanned.scans == 1 and scanned.asked == 40
    # best fit in time: the node whose job ends first after the end (j8 ends at 156)
    assert (p.start, p.end, p.items, p.allocation) == (q.start, q.end, q.items, q.allocation) == (
        0, 150, ((8, (2, 20)),), (("n8", Resources.of(2, 20)),))
    table._check()


def test_the_walk_makes_fewer_python_calls_than_the_scan_and_select_per_start():
    walked, scanned = _partly_used(), _partly_used()
    scanned.use_last = False
    for t in (walked, scanned):             # the fits are kept: the next questions read them
        t.earliest_start(ONE, 150, until=0, policy="LASTAVAILABLE")
    a = py_calls(walked.earliest_start, ONE, 150, until=0, policy="LASTAVAILABLE")
    b = py_calls(scanned.earliest_start, ONE, 150, until=0, policy="LASTAVAILABLE")
    # scan, _ruled_out, _scan_start, _split, _refit, _fits_now, select, candidates and the
    # comprehension keying the fits dict: the layers a start no longer goes through, for
    # _keyed_now, take_last_now and the two calls deciding to take them (40 calls vs 49)
    assert a <= b - 8, (a, b)


def test_a_request_that_does_not_fit_now_is_no_either_way():
    table = _partly_used()
    wide = JobRequest(tasks=13 * 40 + 16 * 10 + 1, per_task=Resources.of(1, 10))
    assert not table.earliest_start(wide, 150, until=0, policy="LASTAVAILABLE")
    table.use_last = False
    assert not table.earliest_start(wide, 150, until=0, policy="LASTAVAILABLE")
