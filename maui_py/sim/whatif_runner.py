"""Where the runs of a what-if plan execute: here, in a local process pool, or as one Slurm
job array on the site's own cluster. No job runner of our own beyond that.

Local: `run_local(plan, jobs=N)`; N = 1 runs in this process, N > 1 in a process pool whose
workers receive the plan and its converted inputs once (pool initializer; forked, they share
the parent's) and then only run indexes, handed out longest first (LongestFirst).
Slurm: `run_slurm(plan, workdir)` writes plan.json to workdir (which every node must see),
submits one `sbatch --array=0-(R-1)` whose task i runs
`python -m maui_py.sim.whatif_runner workdir/plan.json` (the task reads its index from
SLURM_ARRAY_TASK_ID) and writes result-i.json, waits until squeue no longer lists the array,
and reads the results. A task that left no result is an error naming its output file.
"""

from __future__ import annotations

import gc
import json
import os
import shlex
import subprocess
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ..core import gcpause
from .outfile import write_text
from .whatif import Inputs, prepare, run_count, run_prepared

_PLAN: dict[str, Any] | None = None
_INPUTS: Inputs | None = None


def _init(plan: dict[str, Any], inputs: Inputs) -> None:
    """A worker's set-up: the plan and its converted inputs (inherited from the parent when
    forked, never converted again), moved out of the collector's sight (gc.freeze): they
    live as long as the worker, and a collection walking them would find nothing to free
    and copy the parent's pages it touches."""
    global _PLAN, _INPUTS
    _PLAN, _INPUTS = plan, inputs
    gc.freeze()


def _run(index: int) -> dict[str, Any]:
    assert _PLAN is not None and _INPUTS is not None
    return run_quietly(_PLAN, _INPUTS, index)


def run_quietly(plan: dict[str, Any], inputs: Inputs, index: int) -> dict[str, Any]:
    """One run with Python's cyclic collector paused for the whole replay, then one
    collection. The replay makes next to no cyclic garbage (peak RSS the same with and
    without; docs/simulator.md) and the collector, run between cycles, walks the whole
    scheduler state again and again: about a tenth of a replay's CPU. Results are the same."""
    with gcpause.paused():
        result = run_prepared(plan, inputs, index)
    gc.collect()
    return result


class LongestFirst:
    """The order runs are handed to a pool's workers: one run of each config first (to learn
    what each costs), then always a run of the config whose runs take longest (its finished
    runs' mean wall time; a config with none finished yet, its running run's time so far, a
    lower bound that wins a tie), so the short runs come last and the workers finish
    together. Other ties: the lower config; within a config, shakes in order. Only the order changes: every run gives what it
    would have given alone (run_prepared is pure)."""

    def __init__(self, configs: int, shakes: int):
        self.shakes = shakes
        self.left = [list(range(c * shakes, (c + 1) * shakes)) for c in range(configs)]
        self.took: list[list[float]] = [[] for _ in range(configs)]
        self.started: dict[int, float] = {}

    def __bool__(self) -> bool:
        return any(self.left)

    def cost(self, c: int, now: float) -> float:
        if self.took[c]:
            return sum(self.took[c]) / len(self.took[c])
        running = [now - t for i, t in self.started.items() if i // self.shakes == c]
        return max(running, default=0.0)

    def take(self, now: float) -> int:
        """The next run to start (at time `now`); IndexError when none is left."""
        fresh = [c for c, runs in enumerate(self.left) if runs and len(runs) == self.shakes]
        if fresh:
            c = fresh[0]
        else:
            c = max((c for c, runs in enumerate(self.left) if runs),
                    key=lambda c: (self.cost(c, now), not self.took[c], -c))
        index = self.left[c].pop(0)
        self.started[index] = now
        return index

    def done(self, index: int, now: float) -> None:
        self.took[index // self.shakes].append(now - self.started.pop(index))


def run_local(plan: dict[str, Any], jobs: int = 1,
              progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
    """Every run of the plan, in index order, on `jobs` local processes. The inputs are
    converted once, here, before the workers fork; the runs go out longest first."""
    n = run_count(plan)
    inputs = prepare(plan)
    out: list[dict[str, Any]] = []
    if jobs <= 1:
        for i in range(n):
            out.append(_roundtrip(run_quietly(plan, inputs, i)))
            if progress:
                progress(i + 1, n)
        return out
    order = LongestFirst(len(plan["configs"]), plan["shakes"])
    with ProcessPoolExecutor(max_workers=min(jobs, n), initializer=_init,
                             initargs=(plan, inputs)) as pool:
        running: dict[Future, int] = {}
        while order or running:
            while order and len(running) < min(jobs, n):
                i = order.take(time.monotonic())
                running[pool.submit(_run, i)] = i
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for f in sorted(finished, key=lambda f: running[f]):
                order.done(running.pop(f), time.monotonic())
                out.append(_roundtrip(f.result()))
                if progress:
                    progress(len(out), n)
    return sorted(out, key=lambda r: r["index"])


def _roundtrip(result: dict[str, Any]) -> dict[str, Any]:
    """The result as a Slurm task would hand it back (through JSON), so local and array runs
    give identical data."""
    return json.loads(json.dumps(result))


class SlurmRunError(RuntimeError):
    """The array could not be submitted, or some task left no result (the message says which)."""


def sbatch_argv(workdir: Path, count: int, *, time_limit: str, mem: str,
                partition: str | None = None, extra: Sequence[str] = (),
                python: str = sys.executable) -> list[str]:
    """The sbatch command line of the array (an argument list; the task's own command is the
    --wrap text, quoted with shlex)."""
    task = shlex.join([python, "-m", "maui_py.sim.whatif_runner", str(workdir / "plan.json")])
    argv = ["sbatch", "--parsable", f"--array=0-{count - 1}", f"--time={time_limit}",
            f"--mem={mem}", "--ntasks=1", "--cpus-per-task=1", "--job-name=maui-whatif",
            f"--output={workdir}/task-%a.out", f"--chdir={workdir}"]
    if partition:
        argv.append(f"--partition={partition}")
    return [*argv, *extra, "--wrap", task]


def run_slurm(plan: dict[str, Any], workdir: str | os.PathLike[str], *, time_limit: str = "01:00:00",
              mem: str = "2G", partition: str | None = None, extra: Sequence[str] = (),
              env: Mapping[str, str] | None = None, poll: float = 2.0, timeout: float = 86400.0,
              after_submit: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Every run of the plan as one Slurm array; blocks until the array has left the queue."""
    wd = Path(workdir).resolve()
    wd.mkdir(parents=True, exist_ok=True)
    n = run_count(plan)
    for old in wd.glob("result-*.json"):
        old.unlink()
    write_text(wd / "plan.json", json.dumps(plan))       # never through a planted link
    argv = sbatch_argv(wd, n, time_limit=time_limit, mem=mem, partition=partition, extra=extra)
    env = dict(env) if env is not None else None
    p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    if p.returncode != 0:
        raise SlurmRunError(f"sbatch failed (exit {p.returncode}): {p.stderr.strip()[:500]}")
    job_id = p.stdout.strip().split(";")[0]
    if not job_id.isdigit():
        raise SlurmRunError(f"sbatch printed no job id: {p.stdout.strip()[:200]!r}")
    if after_submit:
        after_submit(job_id)
    deadline = time.monotonic() + timeout
    while True:
        q = subprocess.run(["squeue", "-h", "-j", job_id, "-o", "%i"], capture_output=True,
                           text=True, env=env, timeout=60)
        listed = q.returncode == 0 and q.stdout.strip()
        if not listed and (q.returncode == 0 or "Invalid job id" in q.stderr):
            break
        if time.monotonic() > deadline:
            subprocess.run(["scancel", job_id], capture_output=True, env=env, timeout=60)
            raise SlurmRunError(f"array {job_id} still queued or running after {timeout:.0f} s: cancelled")
        time.sleep(poll)
    results, missing = [], []
    for i in range(n):
        f = wd / f"result-{i}.json"
        if f.exists():
            results.append(json.loads(f.read_text()))
        else:
            missing.append(f"task {i} (see {wd}/task-{i}.out)")
    if missing:
        raise SlurmRunError(f"array {job_id}: no result from {', '.join(missing[:10])}"
                            + (f" and {len(missing) - 10} more" if len(missing) > 10 else ""))
    return results


def task_main(argv: Sequence[str] | None = None) -> int:
    """A Slurm array task: run index $SLURM_ARRAY_TASK_ID of PLAN, write result-<i>.json
    beside it (through a temporary file, so a half-written result is never read)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m maui_py.sim.whatif_runner PLAN.json", file=sys.stderr)
        return 2
    plan_path = Path(args[0])
    index_text = os.environ.get("SLURM_ARRAY_TASK_ID", "")
    if not index_text.isdigit():
        print("SLURM_ARRAY_TASK_ID is not set: run this as a Slurm array task", file=sys.stderr)
        return 2
    plan = json.loads(plan_path.read_text())
    result = run_quietly(plan, prepare(plan), int(index_text))
    write_text(plan_path.with_name(f"result-{int(index_text)}.json"), json.dumps(result))
    print(f"run {index_text}: {result['wall_seconds']} s on {os.uname().nodename} "
          f"with {sys.executable}")
    return 0


if __name__ == "__main__":
    sys.exit(task_main())
