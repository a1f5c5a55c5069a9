"""Where the runs of a what-if plan execute: here, in a local process pool, or as one Slurm
job array on the site's own cluster. No job runner of our own beyond that.

Local: `run_local(plan, jobs=N)`; N = 1 runs in this process, N > 1 in a process pool whose
workers receive the plan once (pool initializer) and then only run indexes.
Slurm: `run_slurm(plan, workdir)` writes plan.json to workdir (which every node must see),
submits one `sbatch --array=0-(R-1)` whose task i runs
`python -m maui_py.sim.whatif_runner workdir/plan.json` (the task reads its index from
SLURM_ARRAY_TASK_ID) and writes result-i.json, waits until squeue no longer lists the array,
and reads the results. A task that left no result is an error naming its output file.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from .outfile import write_text
from .whatif import run_count, run_one

_PLAN: dict[str, Any] | None = None


def _init(plan: dict[str, Any]) -> None:
    global _PLAN
    _PLAN = plan


def _run(index: int) -> dict[str, Any]:
    assert _PLAN is not None
    return run_one(_PLAN, index)


def run_local(plan: dict[str, Any], jobs: int = 1,
              progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
    """Every run of the plan, in index order, on `jobs` local processes."""
    n = run_count(plan)
    out: list[dict[str, Any]] = []
    if jobs <= 1:
        for i in range(n):
            out.append(_roundtrip(run_one(plan, i)))
            if progress:
                progress(i + 1, n)
        return out
    with ProcessPoolExecutor(max_workers=min(jobs, n), initializer=_init, initargs=(plan,)) as pool:
        for k, result in enumerate(pool.map(_run, range(n)), 1):
            out.append(_roundtrip(result))
            if progress:
                progress(k, n)
    return out


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
    result = run_one(plan, int(index_text))
    write_text(plan_path.with_name(f"result-{int(index_text)}.json"), json.dumps(result))
    print(f"run {index_text}: {result['wall_seconds']} s on {os.uname().nodename} "
          f"with {sys.executable}")
    return 0


if __name__ == "__main__":
    sys.exit(task_main())
