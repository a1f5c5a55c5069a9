"""Adapter tests: recorded resource-manager output and a live Slurm (see slurm_cluster.py)."""
