"""`maui-sim whatif --slurm`: the runs of a sweep as one job array on a real Slurm (the
harness tests/adapters/slurm_cluster.py, started by conftest.py: four slurmd on this host),
and the same numbers as the local run. The harness's job_submit.lua holds every job for an external
scheduler; the test plays that scheduler and releases the array."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from maui_py.sim.whatif import ConfigVariant, analyse, make_plan, run_count
from maui_py.sim.whatif_runner import SlurmRunError, run_local, run_slurm, sbatch_argv

from .workloads import busy_workload

ROOT = Path(__file__).resolve().parents[2]
EASY = (ROOT / "config" / "easy.cfg").read_text()
GOLD = EASY + "\nQOSWEIGHT 1\nQOSCFG[gold] PRIORITY=100000\n"


def test_sbatch_command_is_an_argument_list_with_time_and_memory(tmp_path):
    argv = sbatch_argv(tmp_path, 6, time_limit="00:20:00", mem="1G", partition="batch")
    assert argv[:3] == ["sbatch", "--parsable", "--array=0-5"]
    assert "--time=00:20:00" in argv and "--mem=1G" in argv and "--partition=batch" in argv
    assert argv[-2] == "--wrap" and argv[-1].startswith(sys.executable)
    assert argv[-1].endswith(f"{tmp_path}/plan.json")


@pytest.mark.slurm
def test_slurm_array_gives_the_same_numbers_as_the_local_run(whatif_slurm, tmp_path):
    plan = make_plan(busy_workload(80), [ConfigVariant("current", EASY), ConfigVariant("gold", GOLD)],
                     shakes=2, seed=5)
    work = tmp_path / "array"
    runs = run_slurm(plan, work, time_limit="00:10:00", mem="500M", env=whatif_slurm.env,
                     poll=0.5, timeout=300,
                     after_submit=lambda job: whatif_slurm.run(["scontrol", "release", job]))
    local = run_local(plan, 1)
    assert [r["index"] for r in runs] == list(range(run_count(plan)))
    assert [r["measure"] for r in runs] == [r["measure"] for r in local]
    assert analyse(plan, runs)["comparisons"] == analyse(plan, local)["comparisons"]
    for i in range(run_count(plan)):                      # each task really ran our python
        assert f"with {sys.executable}" in (work / f"task-{i}.out").read_text()


@pytest.mark.slurm
def test_slurm_task_without_a_result_is_named(whatif_slurm, tmp_path):
    plan = make_plan(busy_workload(20), [ConfigVariant("a", EASY), ConfigVariant("b", EASY)], shakes=1)
    plan["configs"][1]["text"] = None                 # task 1 fails in the worker
    with pytest.raises(SlurmRunError, match=r"task 1 \(see .*task-1.out\)"):
        run_slurm(plan, tmp_path / "bad", time_limit="00:05:00", mem="300M", env=whatif_slurm.env,
                  poll=0.5, timeout=300,
                  after_submit=lambda job: whatif_slurm.run(["scontrol", "release", job]))
