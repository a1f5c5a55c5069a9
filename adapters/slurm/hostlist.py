"""Slurm hostlist expressions for the adapter: maui_py/model/hostlist.py (shared with SRCFG
HOSTLIST and setres, which read the same syntax)."""

from maui_py.model.hostlist import MAX_NAMES, HostlistError, compress, expand

__all__ = ["MAX_NAMES", "HostlistError", "compress", "expand"]
