"""The live Slurm for the daemon tests: the adapter tests' harness and fixtures, reused.

Without Slurm these tests skip locally and FAIL when CI is set (tests/adapters/conftest.py).
"""

from tests.adapters.conftest import skip_or_fail, slurm, slurm_cluster  # noqa: F401  (fixtures)
