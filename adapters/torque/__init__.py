"""Torque (PBS) adapter, imported as maui_py.adapters.torque (RMCFG TYPE=PBS).

parse.py reads `qstat -f -x` and `pbsnodes -x`; nodespec.py maps Torque's node specs;
adapter.py runs Torque's commands. See docs/torque.md.
"""

from .adapter import TorqueAdapter

__all__ = ["TorqueAdapter"]
