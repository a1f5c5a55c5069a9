"""The cycle's fast priority path gives exactly what the full breakdown gives, bit for bit,
so that a cycle with explain off orders jobs as one with explain on (issue 12, item 5). The
queue-time-only shortcut it replaces (fixed part + rate x queue time) did not: with
QUEUETIMEWEIGHT 7 a job queued 3 s got (7 / 60) x 3 = 0.35 there and 7 x (3 / 60) =
0.35000000000000003 in the breakdown."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.model import Job, JobRequest, Resources
from maui_py.priority.engine import JobContext, PriorityEngine


@st.composite
def engines(draw):
    lines = [f"QUEUETIMEWEIGHT {draw(st.integers(0, 50))}",
             f"XFACTORWEIGHT {draw(st.sampled_from([0, 0, 1, 10, 250]))}",
             f"BYPASSWEIGHT {draw(st.sampled_from([0, 0, 5]))}",
             f"SERVICEWEIGHT {draw(st.sampled_from([1, 1, 2, 7]))}",
             f"CREDWEIGHT {draw(st.sampled_from([0, 1, 3]))}",
             f"USERWEIGHT {draw(st.sampled_from([0, 10]))}",
             f"PROCWEIGHT {draw(st.sampled_from([0, 1, 4]))}",
             f"XFMINWCLIMIT {draw(st.sampled_from(['0', '00:02:00']))}",
             f"MEMWEIGHT {draw(st.sampled_from([0, 2]))}",
             f"CLASSWEIGHT {draw(st.sampled_from([0, 2]))}",
             f"QOSWEIGHT {draw(st.sampled_from([0, 1]))}",
             "USERCFG[alice] PRIORITY=100", "GROUPCFG[g1] CLASSWEIGHT=3",
             "QOSCFG[hi] PRIORITY=50", "CLASSCFG[batch] PRIORITY=7"]
    if draw(st.booleans()):
        lines.append(f"XFACTORCAP {draw(st.sampled_from([2, 50]))}")
    if draw(st.booleans()):
        lines.append(f"SERVICECAP {draw(st.sampled_from([100, 100000]))}")
    return PriorityEngine(parse_config("\n".join(lines) + "\n"), 256, 256_000)


@settings(max_examples=300, deadline=None)
@given(engines(), st.lists(st.tuples(st.sampled_from(["alice", "bob"]),
                                     st.one_of(st.sampled_from([1, 4]), st.integers(1, 256)),
                                     st.one_of(st.sampled_from([60, 3600]),
                                               st.integers(1, 200_000)),
                                     st.integers(0, 10**6),
                                     st.integers(0, 10**6), st.integers(0, 30),
                                     st.sampled_from(["", "g1"]), st.sampled_from(["", "hi"]),
                                     st.sampled_from(["", "batch"]), st.sampled_from([0, 500])),
                           min_size=1, max_size=8))
def test_fast_paths_equal_the_breakdown(engine, jobs):
    """Jobs share credential sets and request shapes, so the static part's caches per
    credential set and per shape are hit as well as filled (the fast path asks first: the
    breakdown would leave the job's own static part cached for it)."""
    for k, (user, procs, wc, submit, wait, bypass, group, qos, cls, mem) in enumerate(jobs):
        job = Job(f"j{k}", user, JobRequest(tasks=procs, per_task=Resources.of(1, mem)), wc,
                  submit, group=group, qos=qos, class_=cls)
        now = submit + wait
        assert engine.serv_only
        fast = engine.serv_priority(job, now, submit, bypass)
        full = engine.priority(job, now, JobContext(submit, bypass))
        assert fast == full


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 50), st.sampled_from([0, 1, 2, 7]), st.sampled_from([0, 3]),
       st.lists(st.tuples(st.integers(0, 10**6), st.integers(-100, 10**6)), min_size=1,
                max_size=20))
def test_fixed_priorities_equal_serv_priority(qt_weight, serv_weight, user_weight, jobs):
    """PriorityEngine.fixed_priorities (the selection cache's priorities of a fixed order)
    keeps each entry's job and request and gives serv_priority's floats bit for bit, waits
    before submission included."""
    engine = PriorityEngine(parse_config(
        f"QUEUETIMEWEIGHT {qt_weight}\nSERVICEWEIGHT {serv_weight}\nUSERWEIGHT {user_weight}\n"
        "CREDWEIGHT 1\nUSERCFG[alice] PRIORITY=100\n"), 256, 256_000)
    assert engine.order_fixed
    now = 10**6
    made = [Job(f"j{k}", "alice", JobRequest(), 60, submit) for k, (submit, _w) in enumerate(jobs)]
    static = engine.static_sum(made[0])
    entries = [(j, k, -1.0) for k, j in enumerate(made)]
    assert engine.fixed_priorities(entries, now, static) == [
        (j, k, engine.serv_priority(j, now, j.submit_time, 0)) for k, j in enumerate(made)]
    later = now + jobs[0][1]
    assert engine.fixed_priorities(entries, later, static) == [
        (j, k, engine.serv_priority(j, later, j.submit_time, 0)) for k, j in enumerate(made)]


@settings(max_examples=200, deadline=None)
@given(engines(), st.lists(st.tuples(st.sampled_from(["alice", "bob"]),
                                     st.sampled_from([1, 4, 64]), st.sampled_from([60, 3600]),
                                     st.sampled_from(["", "g1"]), st.sampled_from(["", "hi"]),
                                     st.sampled_from(["", "batch"]), st.sampled_from([0, 500])),
                           min_size=1, max_size=12))
def test_static_part_per_shape_equals_from_scratch(engine, jobs):
    """The static part cached per (credentials, request shape) (_shape_sum, shared by every
    job of one key) equals each job's own, worked out by a fresh engine through the
    breakdown's _static_part: jobs share keys, so the cache is hit as well as filled."""
    for k, (user, procs, wc, group, qos, cls, mem) in enumerate(jobs):
        job = Job(f"j{k}", user, JobRequest(tasks=procs, per_task=Resources.of(1, mem)), wc,
                  0, group=group, qos=qos, class_=cls)
        fresh = PriorityEngine(engine.cfg, engine.cluster_procs, engine.cluster_mem)
        assert engine.static_sum(job) == sum(fresh._static_part(job)[1].values())
