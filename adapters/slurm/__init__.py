"""Slurm adapter: read Slurm's state, push maui-py's decisions (see docs/slurm.md).

Imported as `maui_py.adapters.slurm`; RMCFG[<name>] TYPE=SLURM selects it.
"""

from .adapter import SlurmAdapter

__all__ = ["SlurmAdapter"]
