"""`whatif_slurm`: the session's test Slurm of the adapter tests (tests/adapters/conftest.py),
emptied of jobs after each test, for the --slurm array tests. Without Slurm these tests skip
locally and FAIL when CI is set."""

from __future__ import annotations

import pytest

from tests.adapters.conftest import slurm, slurm_cluster  # noqa: F401  (fixtures)


@pytest.fixture
def whatif_slurm(slurm):  # noqa: F811
    return slurm
