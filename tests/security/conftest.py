"""Fixtures for the security tests: a real non-admin user (root only: CI runs as root).

Where a test needs root (useradd, setuid) and does not have it, it is skipped on a
developer's machine and FAILS when the CI variable is set: CI runs as root, so a missing
privilege there is a broken set-up, not a reason to skip.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess

import pytest

from tests import live


def skip_or_fail(reason: str) -> None:
    """pytest.skip locally, pytest.fail when CI is set."""
    live.skip_or_fail(reason, "the security tests")


@pytest.fixture
def nonadmin():
    """A fresh system user in no ADMIN list (pwd entry), removed afterwards."""
    if os.geteuid() != 0:
        skip_or_fail("acting as another user needs root (useradd, setuid)")
    for tool in ("useradd", "userdel"):
        if shutil.which(tool) is None:
            skip_or_fail(f"{tool} not found (apt-get install passwd)")
    name = f"mauisec{os.getpid()}"
    subprocess.run(["useradd", "--system", "--no-create-home", "--user-group",
                    "--shell", "/usr/sbin/nologin", name], check=True, capture_output=True)
    try:
        yield pwd.getpwnam(name)
    finally:
        subprocess.run(["userdel", name], check=False, capture_output=True)
