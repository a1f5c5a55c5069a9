"""What the live harnesses share (tests/adapters/slurm_cluster.py, torque_cluster.py,
tests/daemon/harness.py): skipping only outside CI, running a client command as root or as a
user, and waiting for a condition with a deadline."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Callable, Mapping, Sequence, TypeVar

import pytest

T = TypeVar("T")


def run_client(argv: Sequence[str], env: Mapping[str, str], cwd: Path, *, user: str | None = None,
               check: bool = True, input: str | None = None, timeout: float = 30,
               error: type[Exception] = RuntimeError) -> subprocess.CompletedProcess:
    """argv (a list, never a shell string), as root or as `user` (runuser); `error` with the
    command's output when it fails and `check`."""
    full = ["runuser", "-u", user, "--", *argv] if user else list(argv)
    p = subprocess.run(full, env=dict(env), capture_output=True, text=True, input=input,
                       timeout=timeout, cwd=cwd)
    if check and p.returncode != 0:
        raise error(f"{list(argv)}: exit {p.returncode}: {(p.stderr or p.stdout).strip()}")
    return p


def alive(pid: int) -> bool:
    """Running and not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


class Client:
    """`run` for a live harness: argv (a list, never a shell string) as root or as `user`,
    in the harness's environment and jobs directory; the harness's `error` on failure."""

    env: Mapping[str, str]
    jobs_dir: Path
    error: type[Exception] = RuntimeError

    def run(self, argv: Sequence[str], *, user: str | None = None, check: bool = True,
            input: str | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
        return run_client(argv, self.env, self.jobs_dir, user=user, check=check, input=input,
                          timeout=timeout, error=self.error)


def poll(cond: Callable[[], T], timeout: float, what: str, period: float = 0.2,
         error: type[Exception] = AssertionError) -> T:
    """cond()'s first true value, asked every `period` seconds; `error` after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > deadline:
            raise error(f"timed out after {timeout} s waiting for {what}")
        time.sleep(period)


def skip_or_fail(reason: str, what: str) -> None:
    """pytest.skip locally, pytest.fail when CI is set: `what` must run in CI."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set: {what} must run)")
    pytest.skip(reason)
