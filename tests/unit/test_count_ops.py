"""Operation counts of the count planner's hot questions (planning/counts.py, issue 33): a
start-now question whose window spans many change points reads no point one at a time in
Python, and compiling the requests of a deep queue hashes no JobRequest. Counted, never
timed; the answers themselves are checked against sums over the holds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.cfg.choices import NodeAllocation
from maui_py.model import JobRequest, Node, Resources
from maui_py.planning.counts import CountTable

FIRST = NodeAllocation.FIRSTAVAILABLE


class CountingList(list):
    """A list that counts the items read from Python (or through the sequence protocol),
    a slice counting as many as it holds."""

    reads = 0

    def __getitem__(self, k):
        got = super().__getitem__(k)
        CountingList.reads += len(got) if isinstance(k, slice) else 1
        return got


class CountedRequest(JobRequest):
    """A JobRequest that counts its hashes."""

    hashes = 0

    def __hash__(self):
        CountedRequest.hashes += 1
        return super().__hash__()


def _table(points: int) -> CountTable:
    """64 nodes of 64 processors; `points` running jobs of 2 processors ending one second
    apart: `points` change points, the cluster far from full."""
    table = CountTable(tuple(Node(f"n{i}", Resources.of(64)) for i in range(64)), 0)
    for k in range(points):
        table.reserve(f"job:{k}", 0, 100 + k, [(f"n{k % 64}", Resources.of(2))], force=True)
    return table


def test_a_start_now_over_a_thousand_points_reads_few_of_them():
    table = _table(1000)
    table._times = CountingList(table._times)
    CountingList.reads = 0
    p = table.earliest_start(JobRequest(tasks=100), 5_000, policy=FIRST)
    assert p and p.start == 0
    # bisections (log2 1000 = 10 reads each), no window point: not one read per point
    assert CountingList.reads < 60


def test_a_start_now_sums_no_point_past_the_windows_last_rise():
    table = _table(1000)
    table.reserve("res:a", 150, 400, (), kind="priority", procs=8)    # a rise at 150
    table._times = CountingList(table._times)
    table._deltas = CountingList(table._deltas)
    CountingList.reads = 0
    p = table.earliest_start(JobRequest(tasks=100), 5_000, policy=FIRST)
    assert p and p.start == 0
    assert CountingList.reads < 120         # the 51 points up to the rise, and bisections
    table._check()


def test_the_window_check_answers_as_the_holds_summed():
    table = _table(300)
    for need, w in ((100, 5_000), (4096 - 600, 50), (4096 - 599, 50), (4096 - 600 + 2, 250)):
        p = table.earliest_start(JobRequest(tasks=need), w, policy=FIRST)
        t = p.start if p else None
        held = lambda x: sum(h.procs for h in table.holds.values() if h.start <= x < h.end)
        ok_now = all(held(x) + need <= table.total for x in [0] + [h.end for h in
                     table.holds.values() if h.end < w])
        assert (t == 0) == ok_now


def test_compiling_equal_requests_hashes_none():
    table = _table(10)
    CountedRequest.hashes = 0
    got = {id(table.compile(CountedRequest(tasks=1 + k % 7))) for k in range(1000)}
    assert len(got) == 7                  # one Compiled per task count
    assert CountedRequest.hashes == 0
    too_wide = table.compile(JobRequest(tasks=64 * 64 + 1))
    assert not too_wide and "wider than the cluster" in too_wide.reason


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.integers(1, 60), st.integers(1, 8)),
                max_size=25),
       st.integers(0, 60), st.integers(1, 80))
def test_max_used_is_the_highest_sum_of_holds_over_the_window(holds, s, w):
    table = CountTable(tuple(Node(f"n{i}", Resources.of(8)) for i in range(4)), 0)
    for k, (start, length, procs) in enumerate(holds):
        table.reserve(f"r{k}", start, start + length, (), kind="priority", force=True,
                      procs=procs)
    instants = [s] + [x for st_, ln, _p in holds for x in (st_, st_ + ln) if s < x < s + w]
    want = max(sum(p for st_, ln, p in holds if st_ <= x < st_ + ln) for x in instants)
    assert table._max_used(s, s + w) == want


def test_a_second_cycle_asks_no_request_of_a_deep_queue_again(monkeypatch):
    """Cycle._counting remembers its answer per request for twice the queue: with 12,000
    queued requests (more than the 10,000 it once kept) a cycle after the first asks none
    again."""
    from maui_py.cfg import parse_config
    from maui_py.core import cycle as cycle_mod
    from maui_py.model import ClusterSnapshot, Job
    nodes = tuple(Node(f"n{i}", Resources.of(4)) for i in range(4))
    jobs = tuple(Job(f"j{k}", "u", JobRequest(tasks=1 + k % 3), 600, 0) for k in range(12_000))
    cfg = parse_config("RESERVATIONDEPTH 1\n")
    asked = []
    real = cycle_mod.counts_request
    monkeypatch.setattr(cycle_mod, "counts_request", lambda req: asked.append(1) or real(req))
    first = cycle_mod.run_cycle(ClusterSnapshot(1000, nodes, jobs), cfg, explain=False)
    assert len(asked) == 12_000
    started = {d.job_id for d in first.starts()}
    assert started                      # the cycle ran on the count planner and started jobs
    later = tuple(j for j in jobs if j.id not in started)
    asked.clear()
    cycle_mod.run_cycle(ClusterSnapshot(1060, nodes, later), cfg, first.state, explain=False)
    assert asked == []
