"""Running resource-manager commands: argument lists only, always with a timeout.

Adapters take a `Runner` so that tests can record the argument lists and answer with
recorded output instead of running Slurm or Torque.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from .protocol import RMError


@dataclass(frozen=True, slots=True)
class Result:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str


Runner = Callable[..., Result]
"""runner(argv, *, input=None, timeout=30.0, env=None) -> Result"""


def run(argv: Sequence[str], *, input: str | None = None, timeout: float = 30.0,
        env: Mapping[str, str] | None = None) -> Result:
    """Run argv (a list, never a shell string). RMError when it cannot start or times out;
    a non-zero exit is returned, not raised: the caller decides what it means."""
    if isinstance(argv, str):
        raise TypeError("commands are argument lists, never shell strings")
    args = [str(a) for a in argv]
    try:
        p = subprocess.run(args, input=input, capture_output=True, text=True, timeout=timeout,
                           env=dict(env) if env is not None else None, shell=False)
    except FileNotFoundError as e:
        raise RMError(f"{args[0]}: command not found") from e
    except subprocess.TimeoutExpired as e:
        raise RMError(f"{args[0]}: no answer within {timeout:g} s") from e
    except OSError as e:
        raise RMError(f"{args[0]}: {e}") from e
    return Result(tuple(args), p.returncode, p.stdout, p.stderr)
