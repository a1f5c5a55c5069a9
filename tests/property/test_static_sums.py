"""PriorityEngine.static_sums (one static part per credential set or request shape, each
worked out once, cyc6: keyed in one pass from the queue's end) against static_sum asked
job by job on a fresh engine (the definition): random queues of repeated credentials,
QOS, classes and request shapes, under settings whose static part reads credentials only
or the request too (RES weights), give the same floats to the bit, in the same order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.model import Job, JobRequest, Resources
from maui_py.priority.engine import PriorityEngine

CONFIGS = ["", "QOSCFG[hi] PRIORITY=100\nQOSWEIGHT 1\n",
           "USERCFG[u1] PRIORITY=7\nUSERWEIGHT 3\nCLASSCFG[b] PRIORITY=-5\nCLASSWEIGHT 2\n",
           "PROCWEIGHT 2\nMEMWEIGHT 1\nRESWEIGHT 1\nQOSCFG[hi] PRIORITY=9\nQOSWEIGHT 1\n"]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(CONFIGS),
       st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["", "hi"]),
                          st.sampled_from(["", "b"]), st.integers(1, 4),
                          st.sampled_from([0, 500, 1000]), st.sampled_from([60, 600])),
                max_size=40))
def test_static_sums_equal_static_sum_job_by_job(text, spec):
    cfg = parse_config(text)
    jobs = [Job(f"j{k}", f"u{u}", JobRequest(tasks=t, per_task=Resources(1, m)), wc, 0,
                group=f"g{u % 2}", qos=q, class_=c)
            for k, (u, q, c, t, m, wc) in enumerate(spec)]
    got = PriorityEngine(cfg, 64, 64_000).static_sums(jobs)
    fresh = PriorityEngine(cfg, 64, 64_000)
    want = [fresh.static_sum(j) for j in jobs]
    assert [v.hex() for v in got] == [v.hex() for v in want]
