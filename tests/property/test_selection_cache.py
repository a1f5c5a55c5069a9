"""The selection cache (core/selection.py) changes no decision: two states go through the same
random sequence of snapshots, one carrying the last cycle's eligible jobs and order, the
other dropping that cache before each cycle: they decide, order and persist the same.

The snapshots keep the Job objects of jobs that did not change (as the simulator and the
benchmarks do), so the cache is used; the steps hold and release jobs, break and restore
dependencies, replace jobs by equal or changed copies, set system priorities, submit jobs
older than those queued and jobs no node can run (deferred, then batch-held), and start
and end jobs. The priority settings cover a fixed order (one static part, queue time
only), static parts that differ, XFACTOR, queue times that restart, a negative queue-time
weight, idle-job limits, and a fixed order whose priorities start negative and rise past
zero while REJECTNEGPRIOJOBS rejects the negative ones (a kept entry's priority must be
recomputed for that check).
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from maui_py.cfg import parse_config
from maui_py.core.cycle import run_cycle
from maui_py.core.state import SchedulerState
from maui_py.model import (ClusterSnapshot, Job, JobRequest, JobState, Node, Resources,
                           Start)

from .queue_steps import edit_queue, queue_of

PRIORITIES = ["", "QOSCFG[hi] PRIORITY=100\nQOSWEIGHT 1\n", "XFACTORWEIGHT 10\n",
              "JOBPRIOACCRUALPOLICY FULLPOLICY\n", "QUEUETIMEWEIGHT -1\n",
              "USERCFG[DEFAULT] MAXIJOB=3\n", "QOSCFG[hi] PRIORITY=100\nQOSWEIGHT 1\nSERVICEWEIGHT 0\n",
              "USERCFG[DEFAULT] PRIORITY=-2\nUSERWEIGHT 1\nREJECTNEGPRIOJOBS TRUE\n"]
FAIRSHARE = ("FSPOLICY DEDICATEDPS\nFSINTERVAL 120\nFSDEPTH 3\nFSDECAY 0.5\nFSWEIGHT 1\n"
             "FSUSERWEIGHT 10\nFSQOSWEIGHT 5\nUSERCFG[DEFAULT] FSTARGET=30\n"
             "USERCFG[u1] FSTARGET=40-\nQOSCFG[hi] PRIORITY=100 FSTARGET=20+\nQOSWEIGHT 1\n"
             "GROUPCFG[nobody] FSTARGET=10^\n")
PRIORITIES += [
    FAIRSHARE,                                   # a cap no queued job has: no cap asked
    FAIRSHARE + "USERCFG[u2] FSTARGET=30%\n",    # u2's kept jobs asked their cap each cycle
    FAIRSHARE + "USERCFG[u2] FSTARGET=2000^\n",
    FAIRSHARE + "XFACTORWEIGHT 10\n",            # not queue time only: fs_priorities
]
"""Fair share (FSINTERVAL rolls every fourth step): the kept jobs' priorities from the
per-credential tails (selection._miss: one fs_tail per subfactor value, FairShare's
subfactor per usage key), under caps that bind on queued jobs or on none."""


@st.composite
def scenarios(draw):
    nodes = tuple(Node(f"n{i}", Resources(procs=draw(st.sampled_from([2, 4])),
                                          mem=draw(st.sampled_from([1000, 4000]))))
                  for i in range(draw(st.integers(2, 5))))
    text = (f"RESERVATIONDEPTH {draw(st.sampled_from([1, 3]))}\n"
            f"BACKFILLPOLICY {draw(st.sampled_from(['FIRSTFIT', 'BESTFIT']))}\n"
            "DEFERTIME 60\nDEFERCOUNT 2\n" + draw(st.sampled_from(PRIORITIES)))
    steps = [(draw(st.sampled_from(["arrive", "arrive", "old", "huge", "end", "hold",
                                    "release", "depend", "copy", "change", "setspri", "tick"])),
              draw(st.integers(0, 10_000))) for _ in range(draw(st.integers(4, 20)))]
    return nodes, text, steps


SETTINGS = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def fs_scenarios(draw):
    """Fair share over a queue that stays deep (one or two small nodes, long jobs), so
    that most cycles keep jobs from the last one and re-rank them."""
    nodes = (Node("n0", Resources(procs=draw(st.sampled_from([2, 4])), mem=4000)),)
    text = (f"RESERVATIONDEPTH {draw(st.sampled_from([1, 3]))}\nBACKFILLPOLICY FIRSTFIT\n"
            "DEFERTIME 60\nDEFERCOUNT 2\n" + draw(st.sampled_from(PRIORITIES[-4:])))
    steps = [(draw(st.sampled_from(["arrive", "arrive", "arrive", "arrive", "old", "end",
                                    "hold", "release", "copy", "tick"])),
              draw(st.integers(0, 10_000))) for _ in range(draw(st.integers(10, 30)))]
    return nodes, text, steps


LIMITED = [FAIRSHARE + "JOBPRIOACCRUALPOLICY FULLPOLICY\n",
           FAIRSHARE + "JOBPRIOACCRUALPOLICY FULLPOLICY\nQOSCFG[hi] MAXJOB=1\n",
           FAIRSHARE + "USERCFG[DEFAULT] MAXJOB=2\nQOSCFG[hi] MAXJOB=1\n",
           FAIRSHARE + "QUEUETIMEWEIGHT 3\nUSERCFG[u3] PRIORITY=7\nUSERWEIGHT 1\n"]
"""Fair share where kept jobs' queue times restart (holds, dependencies, defers: a queue
time of their own, core/fsrank's `qt` branch), throttling limits bind (MAXJOB of a user or
a QOS) and static parts differ: the kept queue re-ranked from its (submit, id) rows."""


@st.composite
def fs_limit_scenarios(draw):
    """fs_scenarios with holds, dependencies, system priorities and limits that bind."""
    nodes = (Node("n0", Resources(procs=draw(st.sampled_from([2, 4])), mem=4000)),)
    text = (f"RESERVATIONDEPTH {draw(st.sampled_from([1, 3]))}\nBACKFILLPOLICY FIRSTFIT\n"
            "DEFERTIME 60\nDEFERCOUNT 2\n" + draw(st.sampled_from(LIMITED)))
    steps = [(draw(st.sampled_from(["arrive", "arrive", "arrive", "old", "end", "end", "hold",
                                    "release", "depend", "copy", "setspri", "tick"])),
              draw(st.integers(0, 10_000))) for _ in range(draw(st.integers(10, 30)))]
    return nodes, text, steps


@SETTINGS
@given(scenarios())
def test_a_cycle_with_the_selection_cache_decides_as_one_without(sc):
    _replay(*sc)


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(fs_scenarios())
def test_fair_share_cycles_with_the_cache_decide_as_ones_without(sc):
    _replay(*sc, wall=(900, 3000), users=4)


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(fs_limit_scenarios())
@example(((Node("n0", Resources(procs=2, mem=4000)),),
          "RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\nDEFERTIME 60\nDEFERCOUNT 2\n" + LIMITED[0],
          [("arrive", 0)] * 8 + [("hold", 0), ("release", 0)]))
def test_fair_share_re_ranked_from_rows_decides_as_from_scratch(sc):
    """(The example: a held job's queue time restarts; re-ranked from its submit time it
    would take the reservation of a job queued after it.)"""
    _replay(*sc, wall=(900, 3000), users=4)


def _replay(nodes, text, steps, wall=(60, 300), users=3):
    """Run `steps` twice, with the selection cache and without it: the same decisions,
    order and persisted maps at every cycle. Jobs ask wall[0] + up to wall[1] seconds."""
    cfg = parse_config(text)
    jobs: dict[str, Job] = {}
    state, bare = SchedulerState(), SchedulerState()
    now = 1000
    for k, (kind, pick) in enumerate(steps):
        now += 30
        _queued, _running, one = queue_of(jobs, pick)
        if kind in ("arrive", "old", "huge"):
            for b in range(1 + pick % 3):
                submit = now - (pick % 500 if kind == "old" else 0)
                tasks = 99 if kind == "huge" else 1 + (pick >> b) % 4
                jobs[f"j{k}{b}"] = Job(f"j{k}{b}", f"u{pick % users}",
                                       JobRequest(tasks=tasks, per_task=Resources(1, 100 * (pick % 5))),
                                       wall[0] + pick % wall[1], submit,
                                       qos="hi" if pick % 4 == 0 else "")
        elif edit_queue(jobs, kind, pick):         # end, hold, release, depend, copy, change
            pass
        elif kind == "setspri" and one:
            state.system_priority[one] = bare.system_priority[one] = 1 + pick % 50
        snap = ClusterSnapshot(now, nodes, tuple(jobs.values()))
        got = run_cycle(snap, cfg, state, explain=False)
        bare.caches.selection = None
        want = run_cycle(snap, cfg, bare, explain=False)
        assert got.decisions == want.decisions, f"step {k} ({kind})"
        assert got.order == want.order, f"step {k} ({kind})"
        for name in ("deferred", "batch_holds", "bypass", "queue_time", "pending"):
            assert getattr(got.state, name) == getattr(want.state, name), f"step {k}: {name}"
        state, bare = got.state, want.state
        for d in got.decisions:
            if isinstance(d, Start):
                jobs[d.job_id] = replace(jobs[d.job_id], state=JobState.RUNNING, start_time=now,
                                         allocation=d.allocation)


def test_two_jobs_of_one_id_go_through_select_as_without_the_cache():
    """A snapshot naming one job id twice (two Job objects) is classified in full: the
    cache matches a held or deferred job by its id, which names one of the two. Here the
    twin the cache knows is batch-held with the other; both wait, as without the cache."""
    nodes = (Node("n0", Resources(procs=2, mem=1000)),)
    cfg = parse_config("RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n")
    busy = Job("busy", "u", JobRequest(tasks=2, per_task=Resources(1, 0)), 100, 900,
               state=JobState.RUNNING, start_time=950,
               allocation=(("n0", Resources(procs=2, mem=0)),))
    first = Job("x", "u", JobRequest(tasks=1, per_task=Resources(1, 0)), 60, 990)
    twin = replace(first, submit_time=995)
    state = run_cycle(ClusterSnapshot(1000, nodes, (busy, first)), cfg, explain=False).state
    assert state.caches.selection is not None and state.caches.selection.order[0][0] is first
    state.batch_holds["x"] = "held by the test"
    bare = SchedulerState(batch_holds={"x": "held by the test"})
    later = ClusterSnapshot(1100, nodes, (first, twin))
    got = run_cycle(later, cfg, state, explain=False)
    want = run_cycle(later, cfg, bare, explain=False)
    assert got.decisions == want.decisions == []
    assert got.order == want.order == []


def test_a_kept_job_whose_fair_share_cap_binds_later_leaves_the_order_as_without_the_cache():
    """u2's queued job passes its absolute cap when it arrives (its charge plus u2's usage
    stays under 1200) and stays queued behind a full node; u2's running job then pushes
    u2's usage up until the kept job's cap binds: it leaves the order at the same cycle as
    in a state without the cache. The cache that saw no capped credential set (cycle 1:
    everything started) must learn of one from the new job (SelectionCache.capped)."""
    cfg = parse_config("FSPOLICY DEDICATEDPS\nFSWEIGHT 1\nFSUSERWEIGHT 10\n"
                       "USERCFG[u2] FSTARGET=1200^\nRESERVATIONDEPTH 1\n")
    nodes = (Node("n0", Resources(procs=2, mem=1000)),)
    one = JobRequest(tasks=1, per_task=Resources(1, 0))
    jobs = {j: Job(j, u, one, 100_000, 1000, state=JobState.RUNNING, start_time=1000,
                   allocation=(("n0", Resources(procs=1, mem=0)),))
            for j, u in (("r0", "u0"), ("r2", "u2"))}
    state, bare = SchedulerState(), SchedulerState()
    seen_in, left = False, False
    for k in range(40):
        now = 1000 + 30 * k
        if k == 1:
            jobs["w2"] = Job("w2", "u2", one, 900, now)
        snap = ClusterSnapshot(now, nodes, tuple(jobs.values()))
        got = run_cycle(snap, cfg, state, explain=False)
        bare.caches.selection = None
        want = run_cycle(snap, cfg, bare, explain=False)
        assert (got.decisions, got.order) == (want.decisions, want.order), f"cycle {k}"
        seen_in |= "w2" in got.order
        left |= seen_in and "w2" not in got.order
        state, bare = got.state, want.state
        for d in got.decisions:
            if isinstance(d, Start):
                jobs[d.job_id] = replace(jobs[d.job_id], state=JobState.RUNNING, start_time=now,
                                         allocation=d.allocation)
    assert seen_in and left
