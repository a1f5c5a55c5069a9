"""Slurm adapter."""
