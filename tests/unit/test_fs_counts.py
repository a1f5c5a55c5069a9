"""What a fair-share cycle under throttling limits no longer walks (issue 33), by operation
counts, never by time: with the snapshot's delta the cycle splits the jobs, charges fair
share and brings the limits' usage forward from what moved (core/jobsets.py), so a cycle
costs the same calls whether 40 or 160 jobs run; and a queue whose jobs share one limit costs
one walk of that limit per cycle and level, not one per job (Limits.active_violation's
verdicts)."""

from __future__ import annotations

from maui_py.cfg import parse_config
from maui_py.core.cycle import run_cycle
from maui_py.core.state import SchedulerState
from maui_py.model import Job, JobRequest, Node, Resources
from maui_py.sim.rm import SimulatedRM
from tests.opcount import calls

CFG = ("FSPOLICY DEDICATEDPS\nFSINTERVAL 600\nFSDEPTH 3\nFSDECAY 0.5\nFSWEIGHT 1\n"
       "FSUSERWEIGHT 10\nQUEUETIMEWEIGHT 1\nUSERCFG[DEFAULT] FSTARGET=5-\n"
       "USERCFG[u1] FSTARGET=30\nQOSCFG[long] MAXJOB=2\nRESERVATIONDEPTH 1\n")


def _cycle(rm, cfg, state, now, k: int):
    """One cycle at which one job arrives and nothing can start: its snapshot carries the
    delta from the last one."""
    now[0] += 60
    rm.submit(Job(f"a{k}", f"u{k % 7}", JobRequest(tasks=1), 3000, now[0]), 3000)
    snap = rm.snapshot()
    assert snap.delta is not None
    out: list = []
    n = calls(lambda: out.append(run_cycle(snap, cfg, state, explain=False)))
    result = out[0]
    rm.apply(result.actions())
    return n, result


def _setup(running: int, blocked: int):
    cfg = parse_config(CFG)
    now = [1000]
    rm = SimulatedRM(tuple(Node(f"n{i}", Resources.of(1)) for i in range(running)),
                     lambda: now[0])
    for k in range(running):
        rm.submit(Job(f"r{k}", f"u{k % 7}", JobRequest(tasks=1), 10_000, now[0]), 10_000)
    state = SchedulerState()
    result = run_cycle(rm.snapshot(), cfg, state, explain=False)
    rm.apply(result.actions())
    now[0] += 30
    for k in range(blocked):
        rm.submit(Job(f"l{k}", "u1", JobRequest(tasks=1), 50_000, now[0], qos="long"), 50_000)
    result = run_cycle(rm.snapshot(), cfg, result.state, explain=False)
    rm.apply(result.actions())
    assert rm.running() == running
    return rm, cfg, result.state, now


def test_a_cycle_costs_the_same_calls_whatever_number_of_jobs_runs():
    counts = []
    for running in (40, 160):
        rm, cfg, state, now = _setup(running, 5)
        _cycle(rm, cfg, state, now, 0)          # the first delta cycle makes the sets' token
        n, result = _cycle(rm, cfg, state, now, 1)
        assert not result.actions()
        assert state.caches.jobsets is not None and state.caches.jobsets.walked == 1
        counts.append(n)
    # before: three walks of the running jobs (split, charge, usage), 360 more calls
    assert counts[1] - counts[0] < 40, counts


def test_a_queue_under_one_limit_plan_is_walked_once_per_cycle():
    rm, cfg, state, now = _setup(20, 30)
    limits = state.caches.engine.limits
    for k in range(3):
        before = limits.walks
        _n, result = _cycle(rm, cfg, state, now, k)
        assert len([j for j in result.order if j.startswith("l")]) == 30
        assert limits.walks - before <= 2, limits.walks - before     # one plan, two levels


def test_a_users_credential_sets_share_one_subfactor_and_one_tail_per_cycle(monkeypatch):
    """Queued jobs of one user under several QOS and groups are several credential sets
    with the same subfactors: each usage key's subfactor is worked out once per charge
    (FairShare._by_key) and each distinct subfactor value's (TARG, FS) tail once per cycle
    (FsTails.by_value), however many sets share them; and no kept job is looked up for a
    cap while no queued credential set has one (SelectionCache.capped), however deep the
    queue."""
    from maui_py.priority import engine as engine_mod, fairshare as fs_mod

    counts = {"sf": 0, "tail": 0, "cap": 0}
    real_sf, real_tail = fs_mod.fs_subfactor, engine_mod.PriorityEngine.fs_tail
    real_capped = fs_mod.FairShare.capped

    def sf(*a, **k):
        counts["sf"] += 1
        return real_sf(*a, **k)

    def tail(self, fs):
        counts["tail"] += 1
        return real_tail(self, fs)

    def capped(self, creds):
        counts["cap"] += 1
        return real_capped(self, creds)
    monkeypatch.setattr(fs_mod, "fs_subfactor", sf)
    monkeypatch.setattr(engine_mod.PriorityEngine, "fs_tail", tail)
    monkeypatch.setattr(fs_mod.FairShare, "capped", capped)
    cfg = parse_config(CFG + "GROUPCFG[nobody] FSTARGET=100^\n")
    for depth in (12, 48):
        now = [1000]
        rm = SimulatedRM((Node("n0", Resources.of(1)),), lambda: now[0])
        rm.submit(Job("r", "u1", JobRequest(tasks=1), 100_000, now[0]), 100_000)
        state = SchedulerState()
        result = run_cycle(rm.snapshot(), cfg, state, explain=False)
        rm.apply(result.actions())
        for k in range(depth):          # u1 under 4 QOS x 3 groups: 12 credential sets
            rm.submit(Job(f"q{k}", "u1", JobRequest(tasks=1), 3000, now[0], qos=f"q{k % 4}",
                          group=f"g{k % 3}"), 3000)
        for step in range(3):
            now[0] += 60
            for key in counts:
                counts[key] = 0
            result = run_cycle(rm.snapshot(), cfg, result.state, explain=False)
            rm.apply(result.actions())
            assert len(result.order) == depth
            if step:                    # the jobs kept from the last cycle
                assert counts == {"sf": 1, "tail": 1, "cap": 0}, (depth, counts)


def test_a_kept_fair_share_queue_is_re_ranked_without_a_call_per_job(monkeypatch):
    """Under fair share every kept job's priority moves each cycle, so the kept queue is
    ranked again each cycle: from its (submit, id) rows (core/fsrank), the priorities in
    one comprehension and one stable sort in C, with no priority call (serv_priority,
    fs_priorities) and no sort key call (entry_key) per kept job, however deep the queue;
    the credential sets' tails once per set and cycle (FsTails)."""
    from maui_py.core import selection as sel_mod
    from maui_py.priority import engine as engine_mod

    counts = {"serv": 0, "fs_priorities": 0, "key": 0, "fs_tail": 0}
    Eng = engine_mod.PriorityEngine
    real = {"serv": Eng._queue_time_only, "fs_priorities": Eng.fs_priorities,
            "fs_tail": Eng.fs_tail}

    def counted(name):
        def call(self, *a, **k):
            counts[name] += 1
            return real[name](self, *a, **k)
        return call
    real_key = sel_mod.entry_key

    def key(e):
        counts["key"] += 1
        return real_key(e)
    for name in real:
        monkeypatch.setattr(Eng, "_queue_time_only" if name == "serv" else name, counted(name))
    monkeypatch.setattr(sel_mod, "entry_key", key)
    cfg = parse_config(CFG)
    for depth in (12, 48):
        now = [1000]
        rm = SimulatedRM((Node("n0", Resources.of(1)),), lambda: now[0])
        rm.submit(Job("r", "u1", JobRequest(tasks=1), 100_000, now[0]), 100_000)
        result = run_cycle(rm.snapshot(), cfg, SchedulerState(), explain=False)
        rm.apply(result.actions())
        for k in range(depth):          # three users, two QOS: six credential sets
            rm.submit(Job(f"q{k}", f"u{k % 3}", JobRequest(tasks=1), 3000, now[0] - k,
                          qos=f"q{k % 2}"), 3000)
        for step in range(4):
            now[0] += 600               # FSINTERVAL 600: a window rolls every cycle
            for name in counts:
                counts[name] = 0
            result = run_cycle(rm.snapshot(), cfg, result.state, explain=False)
            rm.apply(result.actions())
            assert len(result.order) == depth
            # u1 (target 30 %) has used everything: its jobs rank last, oldest first
            u1 = [f"q{k}" for k in range(depth - 1, -1, -1) if k % 3 == 1]
            assert result.order[-len(u1):] == u1
            if step:                    # every job kept from the last cycle
                assert counts == {"serv": 0, "fs_priorities": 0, "key": 0, "fs_tail": 1}, \
                    (depth, counts)


def test_credential_sets_with_no_subfactor_make_no_subfactor_dictionary(monkeypatch):
    """Under a ceiling target (USERCFG[DEFAULT] FSTARGET=5-) most credential sets are
    under it and have no FS subfactor: the re-ranking learns that from FairShare.empty
    and asks subfactors_of (which builds the dictionary) only of the sets that have one
    (u1, with a plain target), however many users and QOS queue."""
    from maui_py.priority import fairshare as fs_mod

    asked: list = []
    real = fs_mod.FairShare.subfactors_of

    def subfactors_of(self, creds):
        asked.append(creds)
        return real(self, creds)
    monkeypatch.setattr(fs_mod.FairShare, "subfactors_of", subfactors_of)
    cfg = parse_config(CFG)
    now = [1000]
    rm = SimulatedRM((Node("n0", Resources.of(1)),), lambda: now[0])
    rm.submit(Job("r", "u1", JobRequest(tasks=1), 100_000, now[0]), 100_000)
    state = SchedulerState()
    result = run_cycle(rm.snapshot(), cfg, state, explain=False)
    rm.apply(result.actions())
    for k in range(40):                 # 10 users x 4 QOS, and u1
        rm.submit(Job(f"q{k}", f"v{k % 10}", JobRequest(tasks=1), 3000, now[0],
                      qos=f"q{k % 4}"), 3000)
    rm.submit(Job("w", "u1", JobRequest(tasks=1), 3000, now[0]), 3000)
    for step in range(3):
        now[0] += 60
        asked.clear()
        result = run_cycle(rm.snapshot(), cfg, result.state, explain=False)
        rm.apply(result.actions())
        assert len(result.order) == 41
        if step:
            assert asked == [("u1", "", "", "", "")], asked
