"""maui-py: a Maui-style batch scheduler for Slurm and Torque, with a trace-replay simulator."""

__version__ = "0.1.0"
