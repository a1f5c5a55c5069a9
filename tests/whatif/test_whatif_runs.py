"""How the runs of a what-if are made: the inputs converted once and shared by every run,
the collector paused, the runs handed out longest first. None of it may change a run's
numbers or schedule: each run gives what `run_one` gives alone, whatever order the runs
are made in and whichever worker makes them."""

from __future__ import annotations

import gc
import json
from dataclasses import asdict, replace
from pathlib import Path

from hypothesis import given, settings, strategies as st

from maui_py.sim.importers.workload import WorkloadJob, job_from_dict, job_to_dict
from maui_py.sim.whatif import ConfigVariant, make_plan, prepare, run_count, run_one, run_prepared
from maui_py.sim.whatif_runner import LongestFirst, run_local, run_quietly, task_main

from .workloads import busy_workload

ROOT = Path(__file__).resolve().parents[2]
EASY = (ROOT / "config" / "easy.cfg").read_text()
CONS = (ROOT / "config" / "conservative.cfg").read_text()
TIMES = ("wall_seconds", "cpu_seconds")


def _plan(n: int = 60, shakes: int = 2):
    return make_plan(busy_workload(n), [ConfigVariant("easy", EASY), ConfigVariant("cons", CONS)],
                     shakes=shakes, seed=5)


def _numbers(run: dict) -> dict:
    return {k: v for k, v in json.loads(json.dumps(run)).items() if k not in TIMES}


PLAN = _plan()
ALONE = [_numbers(run_one(PLAN, i)) for i in range(run_count(PLAN))]


def test_the_runs_differ_so_the_checks_below_can_fail():
    assert len({r["schedule"] for r in ALONE}) == len(ALONE)
    assert all(r["measure"]["violations"] == 0 for r in ALONE)


@settings(max_examples=8, deadline=None)
@given(st.permutations(range(run_count(PLAN))))
def test_shared_inputs_in_any_order_give_each_run_what_it_gives_alone(order):
    inputs = prepare(PLAN)
    for i in order:
        assert _numbers(run_prepared(PLAN, inputs, i)) == ALONE[i]


def test_a_run_is_deterministic_for_its_seed_and_shake():
    again = [_numbers(run_one(PLAN, i)) for i in range(run_count(PLAN))]
    assert again == ALONE
    other = make_plan(busy_workload(60), [ConfigVariant("easy", EASY)], shakes=2, seed=6)
    assert _numbers(run_one(other, 0))["schedule"] != ALONE[0]["schedule"]


def test_paused_collector_gives_the_same_run_and_is_restored():
    inputs = prepare(PLAN)
    was = gc.isenabled()
    try:
        gc.enable()
        assert _numbers(run_quietly(PLAN, inputs, 3)) == ALONE[3]
        assert gc.isenabled()
        gc.disable()
        assert _numbers(run_quietly(PLAN, inputs, 0)) == ALONE[0]
        assert not gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()


def test_pool_and_one_process_give_every_run_what_it_gives_alone():
    for workers in (1, 2, 3):
        runs = run_local(PLAN, workers)
        assert [r["index"] for r in runs] == list(range(run_count(PLAN)))
        assert [_numbers(r) for r in runs] == ALONE
        assert all(r["cpu_seconds"] >= 0 for r in runs)


# ------------------------------------------------------------------ the order of the runs
@st.composite
def pools(draw):
    configs = draw(st.integers(1, 4))
    shakes = draw(st.integers(1, 5))
    cost = [draw(st.integers(1, 50)) for _ in range(configs)]
    workers = draw(st.integers(1, 4))
    return configs, shakes, cost, workers


def _simulate(configs, shakes, cost, workers):
    """A pool of `workers` on a clock: run i takes cost[config]. Returns the takes, each
    with the finished runs' costs known at that moment, and the finishing time."""
    order = LongestFirst(configs, shakes)
    now, running, takes = 0.0, {}, []
    while order or running:
        while order and len(running) < workers:
            known = {c: list(t) for c, t in enumerate(order.took)}
            fresh = [c for c, left in enumerate(order.left) if len(left) == shakes]
            i = order.take(now)
            takes.append((i, known, fresh, [c for c, left in enumerate(order.left)
                                           if left or c == i // shakes]))
            running[i] = now + cost[i // shakes]
        i = min(running, key=lambda i: (running[i], i))
        now = running.pop(i)
        order.done(i, now)
    return takes, now


@settings(max_examples=300, deadline=None)
@given(pools())
def test_longest_first_hands_out_every_run_once_longest_known_first(pool):
    configs, shakes, cost, workers = pool
    takes, end = _simulate(configs, shakes, cost, workers)
    assert sorted(i for i, *_ in takes) == list(range(configs * shakes))
    for c in range(configs):                              # shakes of a config in order
        mine = [i for i, *_ in takes if i // shakes == c]
        assert mine == sorted(mine)
    for i, known, fresh, open_ in takes:
        c = i // shakes
        if fresh:                                          # one of each config first
            assert c == fresh[0]
        elif all(known[o] for o in open_):                 # then the longest known
            mean = {o: sum(known[o]) / len(known[o]) for o in open_}
            assert mean[c] == max(mean.values())
    assert end <= sum(cost) * shakes                       # never worse than one worker
    assert end <= (sum(cost) * shakes) / workers + max(cost)   # list scheduling's bound


def _index_order(configs, shakes, cost, workers):
    """When the same pool, handed the runs in index order, finishes."""
    free = [0.0] * workers
    for i in range(configs * shakes):
        w = free.index(min(free))
        free[w] += cost[i // shakes]
    return max(free)


def test_longest_first_puts_the_long_runs_first_and_the_workers_finish_together():
    # 2 configs x 3 shakes, the second three times as long, two workers: in index order one
    # worker ends on a long run alone (70); longest first ends on the short ones, together
    takes, end = _simulate(2, 3, [10, 30], 2)
    assert [i // 3 for i, *_ in takes] == [0, 1, 1, 1, 0, 0]
    assert (end, _index_order(2, 3, [10, 30], 2)) == (60, 70)
    takes, end = _simulate(2, 10, [10, 20], 2)            # the default what-if's shape
    assert [i // 10 for i, *_ in takes][-4:] == [0, 0, 0, 0] and end == 150


# ------------------------------------------------------------------ the plan's job records
@settings(max_examples=200, deadline=None)
@given(st.builds(WorkloadJob, id=st.text(min_size=1, max_size=8), user=st.text(max_size=6),
                 submit=st.integers(0, 10**9), start=st.none() | st.integers(0, 10**9),
                 end=st.none() | st.integers(0, 10**9), wallclock=st.integers(0, 10**6),
                 procs=st.integers(0, 4096), nodes=st.integers(0, 64),
                 mem_mb=st.integers(0, 10**7),
                 gres=st.lists(st.tuples(st.text(max_size=5), st.integers(0, 8)),
                               max_size=3).map(tuple),
                 features=st.lists(st.text(max_size=5), max_size=3).map(tuple),
                 eligible=st.none() | st.integers(0, 10**9)))
def test_job_records_are_asdict_and_come_back_unchanged(job):
    d = job_to_dict(job)
    assert d == asdict(job) and json.dumps(d) == json.dumps(asdict(job))
    assert job_from_dict(json.loads(json.dumps(d))) == job
    assert job_from_dict(d) == replace(job)


def test_an_array_task_writes_what_run_one_gives(tmp_path, monkeypatch, capsys):
    (tmp_path / "plan.json").write_text(json.dumps(PLAN))
    monkeypatch.setenv("SLURM_ARRAY_TASK_ID", "2")
    assert task_main([str(tmp_path / "plan.json")]) == 0
    assert _numbers(json.loads((tmp_path / "result-2.json").read_text())) == ALONE[2]
    assert "run 2:" in capsys.readouterr().out
