"""Fixtures for the adapter tests: `slurm_cluster`, one private Slurm for the whole session,
and `torque_cluster`, the Torque 6.1 of ../shared/torque (torque_cluster.py).

Without Slurm the live tests are skipped locally and FAIL in CI (the CI variable set):
CI installs Slurm, so a missing binary there is a broken set-up, not a reason to skip. The
same holds for Torque without ../shared/torque or without root.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from tests import live

from .slurm_cluster import ClusterError, SlurmCluster, missing_binaries

INSTALL_HINT = "Slurm not installed: apt-get install slurm-wlm munge"


def skip_or_fail(reason: str) -> None:
    """pytest.skip locally, pytest.fail when CI is set."""
    live.skip_or_fail(reason, "live Slurm tests")


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


# ---------------------------------------------------------------- Torque
# `torque_cluster`: the Torque 6.1 build of ../shared/torque, started once per test process
# (tests/adapters/torque_cluster.py). Skipped locally without it or without root; FAILS in CI.

def torque_skip_or_fail(reason: str) -> None:
    """pytest.skip locally, pytest.fail when CI is set."""
    live.skip_or_fail(reason, "live Torque tests")


@pytest.fixture(scope="session")
def torque_cluster():
    from . import torque_cluster as tc
    why = tc.missing()
    if why:
        torque_skip_or_fail(why)
    try:
        cluster = tc.acquire()
    except (tc.ClusterError, OSError, subprocess.SubprocessError) as e:
        pytest.fail(f"could not start the test Torque: {e}")
    yield cluster
    tc.release()


@pytest.fixture
def torque(torque_cluster):
    """The session Torque, emptied of jobs (and every node back online) after each test."""
    yield torque_cluster
    torque_cluster.clean()
