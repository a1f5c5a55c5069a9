"""Eligibility and priority kept between cycles under fair share and throttling limits
(issue 33) decide as cycles built from scratch.

Three layers: the fair-share priority's fast path (PriorityEngine.fs_priority with the
(TARG, FS) components of core/selection.FsTails) equals the full breakdown bit for bit; a
job's kept limit plan (Limits.active_plan) answers as the from-scratch walk over every
counter and credential (_first_violation); and two states go through one random sequence
of snapshots, one keeping every cache (the selection cache, the limit plans, the running
jobs' usage sums, the static priority parts, fair-share memos), the other dropping them all
before each cycle (a fresh engine, fresh limits, no selection cache): they decide, order
and persist the same. The steps submit, end, hold, release and replace jobs and jump the
clock over FSINTERVAL boundaries, with fair-share targets, an absolute and a relative cap,
and MAXJOB/MAXPROC limits (soft and hard, and a QOS override) that the jobs reach.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maui_py.cfg import Limit, parse_config
from maui_py.core.caches import CycleCaches, EngineCache
from maui_py.core.cycle import run_cycle
from maui_py.core.selection import FsTails
from maui_py.core.state import SchedulerState
from maui_py.model import (ClusterSnapshot, Job, JobRequest, JobState, Node, Resources,
                           Start)
from maui_py.model.snapshot import SnapshotDelta
from maui_py.policy import backfill
from maui_py.policy.limits import ACTIVE, HARD, SOFT, Limits, Usage, job_amounts
from maui_py.priority.engine import JobContext, PriorityEngine

from .queue_steps import edit_queue

FS_SF = ("FSUSER", "FSGROUP", "FSACCOUNT", "FSQOS", "FSCLASS")


@st.composite
def fs_engines(draw):
    lines = [f"QUEUETIMEWEIGHT {draw(st.integers(0, 20))}",
             f"XFACTORWEIGHT {draw(st.sampled_from([0, 1, 10]))}",
             f"FSWEIGHT {draw(st.sampled_from([1, 2, -1]))}",
             f"FSUSERWEIGHT {draw(st.sampled_from([0, 1, 10]))}",
             f"FSACCOUNTWEIGHT {draw(st.sampled_from([0, 100]))}",
             f"FSGROUPWEIGHT {draw(st.sampled_from([0, 7]))}",
             f"TARGETWEIGHT {draw(st.sampled_from([1, -3]))}",
             f"CREDWEIGHT {draw(st.sampled_from([0, 1]))}", "USERWEIGHT 1",
             "USERCFG[alice] PRIORITY=50"]
    if draw(st.booleans()):
        lines.append(f"FSCAP {draw(st.sampled_from([5, 20000]))}")
    if draw(st.booleans()):
        lines.append(f"FSUSERCAP {draw(st.sampled_from([3, 100]))}")
    return PriorityEngine(parse_config("\n".join(lines) + "\n"), 64, 64_000)


fs_values = st.one_of(st.just(0.0), st.floats(-100, 100, allow_nan=False))


@settings(max_examples=200, deadline=None)
@given(fs_engines(), st.lists(st.tuples(st.sampled_from(["alice", "bob"]), st.integers(1, 64),
                                        st.integers(1, 100_000), st.integers(0, 10**6),
                                        st.integers(0, 10**5),
                                        st.dictionaries(st.sampled_from(FS_SF), fs_values,
                                                        min_size=1)),
                              min_size=1, max_size=8))
def test_fs_priority_equals_the_breakdown(engine, jobs):
    tails = FsTails(engine, 0, {})
    for k, (user, procs, wc, submit, wait, fs) in enumerate(jobs):
        job = Job(f"j{k}", user, JobRequest(tasks=procs, per_task=Resources.of(1, 0)), wc, submit)
        assert engine.serv_only
        tails.tails[id(fs)] = (fs, engine.fs_tail(fs))
        fast = engine.fs_priority(job, submit + wait, submit, 0, tails.tails[id(fs)][1])
        full = engine.priority(job, submit + wait, JobContext(submit, 0, False, fs))
        assert repr(fast) == repr(full)
    tails.check()


LIMIT_CFG = ("USERCFG[u0] MAXJOB=1,2 MAXPROC=3\nUSERCFG[DEFAULT] MAXPROC=-1,5\n"
             "GROUPCFG[g1] MAXJOB=2\nQOSCFG[long] OMAXJOB=1\nQOSCFG[wide] OMAXPROC=0,-1\n"
             "ACCOUNTCFG[a1] MAXNODE=2 MAXPS=5000\n")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["u0", "u1"]), st.sampled_from(["", "g1"]),
                          st.sampled_from(["", "a1"]), st.sampled_from(["", "long", "wide"]),
                          st.integers(1, 4), st.integers(60, 3000)), min_size=1, max_size=12),
       st.sampled_from([SOFT, HARD]))
def test_a_kept_limit_plan_answers_as_the_walk_over_every_limit(jobs, level):
    limits = Limits(parse_config(LIMIT_CFG))
    usage = Usage()
    for k, (user, group, acct, qos, procs, wc) in enumerate(jobs):
        job = Job(f"j{k}", user, JobRequest(tasks=procs, per_task=Resources.of(1, 0)), wc, 0,
                  group=group, account=acct, qos=qos)
        for _ in range(2):          # the second ask reads the kept plan
            got = limits.active_violation(job, usage, level)
            want = limits._first_violation(job, usage, job_amounts(job), "MAX", ACTIVE, level)
            assert got == want
        if got is None:
            usage.add(job, job_amounts(job))
    assert all(isinstance(c[2], Limit) for _j, plan in limits.plans.values()
               for _a, _c, _n, checks, _o in plan for c in checks)
    limits.check_plans()


CYCLE_CFG = ("FSPOLICY DEDICATEDPS\nFSDEPTH 3\nFSDECAY 0.5\nFSWEIGHT 1\nFSUSERWEIGHT 10\n"
             "FSACCOUNTWEIGHT 100\nFSGROUPWEIGHT 3\nQUEUETIMEWEIGHT 1\nDEFERTIME 60\n"
             "USERCFG[u0] FSTARGET=40 MAXJOB=1,2\nUSERCFG[u1] FSTARGET=20- MAXPROC=3,5\n"
             "USERCFG[DEFAULT] FSTARGET=10+\nACCOUNTCFG[a0] FSTARGET=30\n"
             "ACCOUNTCFG[a1] FSTARGET=25%\nGROUPCFG[g1] FSTARGET=20000^ MAXJOB=3\n"
             "QOSCFG[long] MAXJOB=1\n")


@st.composite
def scenarios(draw):
    nodes = tuple(Node(f"n{i}", Resources(procs=draw(st.sampled_from([2, 4])), mem=4000))
                  for i in range(draw(st.integers(1, 4))))
    text = (CYCLE_CFG + f"FSINTERVAL {draw(st.sampled_from([60, 300, 3600]))}\n"
            f"RESERVATIONDEPTH {draw(st.sampled_from([1, 3]))}\n"
            f"BACKFILLPOLICY {draw(st.sampled_from(['FIRSTFIT', 'BESTFIT']))}\n")
    kinds = ["arrive", "arrive", "arrive", "end", "end", "hold", "release", "copy", "change",
             "roll", "tick"]
    steps = [(draw(st.sampled_from(kinds)), draw(st.integers(0, 10_000)))
             for _ in range(draw(st.integers(4, 24)))]
    return nodes, text, steps


def _scratch(state: SchedulerState, cfg) -> None:
    """Drop every cache a cycle keeps (the queue policy's usage is persisted state, kept)."""
    old = state.caches.engine
    state.caches = CycleCaches()
    if old is not None:         # the same configuration: no new queue policy
        state.caches.engine = EngineCache(cfg, old.nodes, old.totals,
                                          PriorityEngine(cfg, *old.totals), Limits(cfg),
                                          old.groups, old.settings)


def _step(jobs: dict, kind: str, pick: int, k: int, now: int) -> int:
    if kind == "arrive":
        for b in range(1 + pick % 3):
            jid = f"j{k}_{b}"
            jobs[jid] = Job(jid, f"u{(pick >> b) % 3}",
                            JobRequest(tasks=1 + (pick >> b) % 4, per_task=Resources(1, 100)),
                            60 + pick % 900, now, group="g1" if pick % 3 == 0 else "g0",
                            account=f"a{(pick >> 2) % 2}", qos="long" if pick % 5 == 0 else "")
    elif edit_queue(jobs, kind, pick):          # end, hold, release, copy, change
        pass
    elif kind == "roll":
        return now + 300 + pick % 4000          # over one or more FSINTERVAL boundaries
    return now + 30


SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(scenarios())
def test_cycles_keeping_eligibility_decide_as_cycles_from_scratch(sc):
    nodes, text, steps = sc
    cfg = parse_config(text)
    jobs: dict[str, Job] = {}
    state, bare = SchedulerState(), SchedulerState()
    now = 1000
    for k, (kind, pick) in enumerate(steps):
        now = _step(jobs, kind, pick, k, now)
        snap = ClusterSnapshot(now, nodes, tuple(jobs.values()))
        got = run_cycle(snap, cfg, state, explain=False)
        _scratch(bare, cfg)
        want = run_cycle(snap, cfg, bare, explain=False)
        assert got.decisions == want.decisions, f"step {k} ({kind})"
        assert got.order == want.order, f"step {k} ({kind})"
        for name in ("deferred", "batch_holds", "bypass", "queue_time", "pending"):
            assert getattr(got.state, name) == getattr(want.state, name), f"step {k}: {name}"
        assert got.state.queue_policy.dump() == want.state.queue_policy.dump()
        if got.state.caches.fs_tails is not None:
            got.state.caches.fs_tails.check()
        got.state.caches.engine.limits.check_plans()
        state, bare = got.state, want.state
        for d in got.decisions:
            if isinstance(d, Start):
                jobs[d.job_id] = replace(jobs[d.job_id], state=JobState.RUNNING, start_time=now,
                                         allocation=d.allocation)


@SETTINGS
@given(scenarios())
def test_firstfit_hard_pass_over_soft_blocked_jobs_decides_as_over_all(sc):
    """FIRSTFIT's hard pass asks only the candidates a soft limit stopped in its soft pass
    (policy/backfill.hard_candidates): cycles decide as cycles whose hard pass asks every
    candidate again; and the kept fair-share rows (core/fsrank.Rows) stay as made from
    scratch."""
    nodes, text, steps = sc
    cfg = parse_config(text)
    jobs: dict[str, Job] = {}
    state, bare = SchedulerState(), SchedulerState()
    now = 1000
    for k, (kind, pick) in enumerate(steps):
        now = _step(jobs, kind, pick, k, now)
        snap = ClusterSnapshot(now, nodes, tuple(jobs.values()))
        got = run_cycle(snap, cfg, state, explain=False)
        real = backfill.hard_candidates
        backfill.hard_candidates = lambda cands, _blocked: cands
        try:
            want = run_cycle(snap, cfg, bare, explain=False)
        finally:
            backfill.hard_candidates = real
        assert (got.decisions, got.order) == (want.decisions, want.order), f"step {k} ({kind})"
        assert got.state.queue_time == want.state.queue_time, f"step {k}"
        sel = got.state.caches.selection
        if sel is not None and sel.rows is not None:
            sel.rows.check(got.state.caches.engine.engine)
        state, bare = got.state, want.state
        for d in got.decisions:
            if isinstance(d, Start):
                jobs[d.job_id] = replace(jobs[d.job_id], state=JobState.RUNNING, start_time=now,
                                         allocation=d.allocation)


def _delta_snapshot(seq: int, now: int, nodes, jobs: dict, last: dict) -> ClusterSnapshot:
    """The snapshot of `jobs` with the SnapshotDelta from the one of `last` (id -> job) an
    adapter that knows its changes sends: started, ended, changed and arrived jobs, the
    others the very objects of the last snapshot, in their places (new ones at the end)."""
    ended = frozenset(k for k in last if k not in jobs)
    arrived = tuple(k for k in jobs if k not in last)
    touched = {k: j for k, j in jobs.items() if last.get(k) is not j}
    started = frozenset(k for k, j in touched.items()
                        if k in last and j.state.active and not last[k].state.active)
    changed = frozenset(k for k in touched if k in last and k not in started)
    delta = SnapshotDelta(seq - 1, started, ended, changed, False, arrived, touched)
    return ClusterSnapshot(now, nodes, tuple(jobs.values()), seq=seq, delta=delta)


@SETTINGS
@given(scenarios())
def test_cycles_from_snapshot_deltas_decide_as_cycles_from_scratch(sc):
    """The same, the snapshots carrying deltas: the kept state brings its job sets, the
    fair-share charge and the limits' usage forward from the moves alone (core/jobsets.py)
    and each equals what the full split gives; the bare state splits every snapshot in
    full and walks every running job."""
    nodes, text, steps = sc
    cfg = parse_config(text)
    jobs: dict[str, Job] = {}
    last: dict[str, Job] = {}
    state, bare = SchedulerState(), SchedulerState()
    now = 1000
    for k, (kind, pick) in enumerate(steps):
        now = _step(jobs, kind, pick, k, now)
        snap = _delta_snapshot(k + 1, now, nodes, jobs, last)
        last = dict(jobs)
        got = run_cycle(snap, cfg, state, explain=False)
        _scratch(bare, cfg)
        want = run_cycle(replace(snap, delta=None), cfg, bare, explain=False)
        assert got.decisions == want.decisions, f"step {k} ({kind})"
        assert got.order == want.order, f"step {k} ({kind})"
        for name in ("deferred", "batch_holds", "bypass", "queue_time", "pending"):
            assert getattr(got.state, name) == getattr(want.state, name), f"step {k}: {name}"
        assert got.state.queue_policy.dump() == want.state.queue_policy.dump()
        sets = got.state.caches.jobsets
        if sets is not None:
            sets.check(snap)
        state, bare = got.state, want.state
        for n, d in enumerate(got.decisions):
            if isinstance(d, Start) and (pick + n) % 5:    # else the start fails: still idle
                jobs[d.job_id] = replace(jobs[d.job_id], state=JobState.RUNNING, start_time=now,
                                         allocation=d.allocation)
