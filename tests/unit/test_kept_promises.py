"""benchmarks/kept_promises.py: per-class waits and promises broken (jobs started after the
start their first priority reservation gave them), the figures docs/compatibility.md
("Why MAUICOMPAT 3.3 wins on KTH") reads.

Its BSLD and wait must be the simulator's own (sim/metrics), a promise is broken exactly
when a job starts after its first reserved start, and under the default rules' HIGHEST
FCFS conservative no promise is ever broken (conservative backfilling's guarantee; the
schedule also passes the simulated resource manager's check: no node over-allocated).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.model.decision import Reserve
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.metrics import summarize
from maui_py.sim.swf import SimJob
from tests.scripts import load_script

KP = load_script("benchmarks/kept_promises.py", "kept_promises_unit")
SETTINGS = settings(max_examples=40 * int(os.environ.get("MAUI_TABLE_EXAMPLES_X", "1")),
                    deadline=None, suppress_health_check=list(HealthCheck))


class _Res:
    def __init__(self, *reserves):
        self.decisions = list(reserves)


def test_watch_keeps_the_first_start_and_counts_moves_later():
    promises = {}
    on_cycle = KP.watch(promises)
    on_cycle(0, _Res(Reserve("a", 100, 200, ()), Reserve("b", 50, 60, ())))
    on_cycle(1, _Res(Reserve("a", 80, 180, ())))        # earlier: not a move later
    on_cycle(2, _Res(Reserve("a", 120, 220, ())))       # later than 80
    on_cycle(3, _Res(Reserve("a", 120, 220, ())))       # the same: not a move
    assert promises["a"].first == 100 and promises["a"].later == 1
    assert promises["b"].first == 50 and promises["b"].later == 0


def test_summary_classes_and_broken_promises():
    P = KP.Promise
    jobs = [("a", 0, 100, 50, 900),      # first class (900 s is 0:15:00)
            ("b", 0, 300, 5, 901),       # second class; started 200 s after its promise
            ("c", 10, 10, 20, 14401),    # over 4 hours, never reserved
            ("d", 0, 100, 20, 3601)]     # third class; started before its promise
    out = KP.summary(jobs, {"a": P(100, 100), "b": P(100, 300, 1), "d": P(150, 100)})
    assert [c["jobs"] for c in out["classes"].values()] == [1, 1, 1, 1]
    assert out["classes"]["<=1:00:00"]["wait_mean"] == 300
    assert out["classes"]["<=1:00:00"]["bsld"] == 30.5      # (300 + 5) / 10
    assert out["reserved"] == 3
    assert out["promises_broken"] == 1 and out["broken_delay_s"] == 200
    assert out["worst"] == [("b", 200)]
    assert out["moves_later"] == 1
    assert out["wait_mean"] == (100 + 300 + 0 + 100) / 4


@st.composite
def workloads(draw):
    n = draw(st.integers(2, 6))
    nodes = tuple(Node(f"n{i}", Resources.of(1)) for i in range(n))
    jobs, t = [], 0
    for k in range(draw(st.integers(3, 24))):
        t += draw(st.integers(0, 120))
        wc = draw(st.integers(10, 900))
        jobs.append(SimJob(Job(f"j{k:02d}", f"u{k % 3}",
                               JobRequest(tasks=draw(st.integers(1, n))), wc, t),
                           draw(st.integers(1, wc))))
    return nodes, jobs


@SETTINGS
@given(workloads())
def test_default_fcfs_conservative_breaks_no_promise(w):
    nodes, jobs = w
    cfg = parse_config(KP.ce.POLICIES["fcfs-cons"])
    promises = {}
    result = Simulation(nodes, jobs, cfg, SimOptions(on_cycle=KP.watch(promises))).run()
    assert result.check.ok and not result.unfinished
    ran = [(jid, r.job.submit_time, r.start, r.runtime, r.job.wallclock)
           for jid, r in result.records.items()]
    out = KP.summary(ran, promises)
    assert out["promises_broken"] == 0 and out["moves_later"] == 0
    s = summarize(result.records, len(nodes)).total
    assert out["bsld"] == round(s.bsld_mean, 2)
    assert out["wait_mean"] == round(s.wait_mean, 1)


def test_a_broken_promise_is_seen_when_priorities_reorder_the_queue():
    """CURRENTHIGHEST with an expansion-factor weight re-makes the reservations in the
    current order each cycle, so a short job that arrives later can pass a wide one that
    was promised a start: the count must see it (the workload is built for it)."""
    nodes = tuple(Node(f"n{i}", Resources.of(1)) for i in range(2))
    jobs = [SimJob(Job("run0", "u", JobRequest(tasks=1), 1000, 0), 1000),
            SimJob(Job("run1", "u", JobRequest(tasks=1), 1000, 0), 1000),
            SimJob(Job("wide", "u", JobRequest(tasks=2), 1000, 1), 1000),
            SimJob(Job("late", "v", JobRequest(tasks=1), 60, 2), 60)]
    text = KP.ce.POLICIES["fcfs-cons"].replace("RESERVATIONPOLICY HIGHEST",
                                                "RESERVATIONPOLICY CURRENTHIGHEST")
    promises = {}
    result = Simulation(nodes, jobs, parse_config(text + "XFACTORWEIGHT 100000\n"),
                        SimOptions(on_cycle=KP.watch(promises))).run()
    ran = [(jid, r.job.submit_time, r.start, r.runtime, r.job.wallclock)
           for jid, r in result.records.items()]
    out = KP.summary(ran, promises)
    broken = dict(out["worst"])
    assert result.records["late"].start < result.records["wide"].start
    assert "wide" in broken
    assert broken["wide"] == result.records["wide"].start - promises["wide"].first
