"""The advice's promise, as a property: on random small clusters and queues, taken after
some cycle of a random replay, every suggestion for a queued job, applied (the job
re-submitted with the change at that moment, same state: changes.apply) and replayed
through the simulator until the job starts, starts it no later than promised; and a
numeric change's value is the boundary: one more (a second more walltime, one more
processor or node) does not start it by then. The replay that checks is written here,
apart from the advice's own (advice/replay.py): it runs to the job's start, not to the
promise. A mutant that advises a second more walltime fails the check.
"""

from __future__ import annotations

import copy
import random
from dataclasses import replace

from hypothesis import assume, given, settings, strategies as st

from maui_py.advice import Situation, advise
from maui_py.advice.changes import NUMERIC, apply
from maui_py.cfg import SchedulerConfig
from maui_py.cfg.loader import parse_config
from maui_py.forecast.engine import Moment, plain_copy
from maui_py.model import Job, JobRequest
from maui_py.sim.cluster import cluster_from_option
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import SimJob

CONFIGS = ("", "RESERVATIONDEPTH[0] 1000\nRESERVATIONQOSLIST[0] [ALL]\nBACKFILLPOLICY FIRSTFIT\n",
           "BACKFILLPOLICY BESTFIT\nUSERCFG[u0] MAXPROC=6\n",
           "QOSCFG[lo] MAXPROC=2\nUSERCFG[DEFAULT] QLIST=lo,hi\n")


class _Stop(Exception):
    pass


def workload(rng: random.Random, n: int, procs: int) -> list[SimJob]:
    """n jobs arriving close together (a queue forms), wide ones (half the nodes or more,
    which wait for room and hold reservations) and narrow ones of one or two processors
    (backfill candidates); some ask for whole nodes by count."""
    out, t = [], 1000
    for k in range(n):
        t += rng.randrange(0, 300)
        request = rng.randrange(60, 4000)
        tasks = rng.randrange(procs // 2, procs + 1) if rng.random() < 0.4 else rng.randrange(1, 3)
        req = JobRequest(tasks) if rng.random() < 0.8 else JobRequest(tasks, nodes=tasks, tasks_per_node=1)
        job = Job(str(k + 1), f"u{rng.randrange(3)}", req, request, t, qos=rng.choice(("", "lo")))
        out.append(SimJob(job, max(1, int(request * rng.choice((1.0, 0.5, 0.1))))))
    return out


def take(seed: int, n: int, nodes: int, cycle: int, cfg_text: str) -> Situation | None:
    """The moment after the `cycle`-th cycle of a random replay, if a job is queued then."""
    rng = random.Random(seed)
    cfg = parse_config(cfg_text) if cfg_text else SchedulerConfig.default()
    got: list[Situation] = []
    seen = [0]
    sim: Simulation

    def on_cycle(t: int, result) -> None:
        seen[0] += 1
        live = sim.rm.live()
        if seen[0] >= cycle and any(not j.state.active for j in live):
            got.append(Situation(Moment(t, sim.nodes, live), cfg, result.state))
            raise _Stop

    sim = Simulation(cluster_from_option(f"{nodes}x1"), workload(rng, n, nodes), cfg,
                     SimOptions(on_cycle=on_cycle, leave_idle=False, cycle_reserves=False))
    try:
        sim.run()
    except _Stop:
        pass
    return got[0] if got else None


def replayed_start(sit: Situation, changed: Job) -> int | None:
    """The changed job's start in a replay from the moment (every job to its limit, no
    arrival, a cycle where each defer of the state ends, as mauid's poll would run one),
    run until it starts; None if it never does."""
    present = [(changed if j.id == changed.id else j, changed.wallclock if j.id == changed.id else j.wallclock)
               for j in sit.moment.jobs]
    found: list[int] = []
    sim: Simulation

    def on_cycle(_t: int, _result) -> None:
        rec = sim.rm.records[changed.id]
        if rec.start is not None:
            found.append(rec.start)
            raise _Stop

    sim = Simulation(sit.moment.nodes, (), sit.cfg, SimOptions(
        on_cycle=on_cycle, cycle_reserves=False, state=copy.deepcopy(plain_copy(sit.state)),
        present=present, present_at=sit.now,
        wake_at=[r.until for r in sit.state.deferred.values() if r.until > sit.now]))
    try:
        sim.run()
    except _Stop:
        pass
    return found[0] if found else None


def broken(sit: Situation, job: Job, change: str, value, promised: int) -> bool:
    """Does the suggestion break its promise when applied?"""
    s = replayed_start(sit, apply(job, change, value))
    return s is None or s > promised


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10**6), st.integers(6, 18), st.integers(3, 10), st.integers(1, 12),
       st.sampled_from(CONFIGS), st.integers(0, 100))
def test_every_suggestion_applied_in_a_replay_starts_the_job_no_later_than_promised(
        seed, n, nodes, cycle, cfg_text, pick):
    sit = take(seed, n, nodes, cycle, cfg_text)
    assume(sit is not None)
    queued = sorted((j for j in sit.moment.jobs if not j.state.active), key=lambda j: j.id)
    job = queued[pick % len(queued)]
    got = advise(sit, job.id)
    for a in got.advice:
        if a.change == "waits":
            continue
        assert sit.now <= a.start and (got.planned is None or a.start < got.planned)
        assert not broken(sit, job, a.change, a.value, a.start), a
        if a.change in NUMERIC and a.value + 1 < NUMERIC[a.change](job).current:
            assert broken(sit, job, a.change, a.value + 1, a.start), a      # the boundary


def test_a_mutant_advising_a_second_more_walltime_is_caught():
    """Advice made one second longer than the boundary breaks its promise, on every walltime
    suggestion of some random moments (the check above would fail on it)."""
    checked = 0
    for seed in range(40):
        sit = take(seed, 12, 6, 3 + seed % 5, CONFIGS[seed % 2])
        if sit is None:
            continue
        for job in (j for j in sit.moment.jobs if not j.state.active):
            for a in advise(sit, job.id, alternatives=False).advice:
                if a.change == "walltime" and a.value + 1 < job.wallclock:
                    mutant = replace(a, value=a.value + 1)
                    assert broken(sit, job, mutant.change, mutant.value, mutant.start)
                    checked += 1
        if checked >= 5:
            break
    assert checked >= 5
