"""Where tests find the shared SWF traces (../shared/traces from the repository root).

A missing trace skips the test on a developer machine but fails it when the environment
variable CI is set (to any non-empty value), so CI never passes by skipping.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

TRACES_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "traces"


def in_ci() -> bool:
    return bool(os.environ.get("CI"))


def trace_path(name: str) -> Path:
    """The path of trace `name`; pytest.skip when absent outside CI, pytest.fail in CI."""
    path = TRACES_DIR / name
    if path.is_file():
        return path
    message = f"trace {name} not found in {TRACES_DIR}"
    if in_ci():
        pytest.fail(message)
    pytest.skip(message)
