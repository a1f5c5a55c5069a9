"""Fixtures for the adapter tests: `slurm_cluster`, one private Slurm for the whole session.

Without Slurm the live tests are skipped locally and FAIL in CI (the CI variable set):
CI installs Slurm, so a missing binary there is a broken set-up, not a reason to skip.
"""

from __future__ import annotations

import os

import pytest

from .slurm_cluster import ClusterError, SlurmCluster, missing_binaries

INSTALL_HINT = "Slurm not installed: apt-get install slurm-wlm munge"


def skip_or_fail(reason: str) -> None:
    """pytest.skip locally, pytest.fail when CI is set."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set: live Slurm tests must run)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def slurm_cluster():
    missing = missing_binaries()
    if missing:
        skip_or_fail(f"{INSTALL_HINT} (missing: {', '.join(missing)})")
    if os.geteuid() != 0:
        skip_or_fail("the live Slurm tests start slurmd and need root")
    cluster = SlurmCluster()
    try:
        cluster.start()
    except (ClusterError, OSError) as e:
        cluster.stop(keep=True)
        pytest.fail(f"could not start the test Slurm: {e}")
    yield cluster
    cluster.stop(keep=bool(os.environ.get("MAUI_SLURM_KEEP")))


@pytest.fixture
def slurm(slurm_cluster):
    """The session cluster, emptied of jobs after each test."""
    yield slurm_cluster
    slurm_cluster.cancel_all()
