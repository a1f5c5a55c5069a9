"""The trace-replay simulator: workloads (SWF traces, Lublin model) and cluster descriptions.

Submodules are imported explicitly (maui_py.sim.swf, .lublin, .cluster); nothing heavy here.
"""
