"""mauid, the scheduler daemon: poll loop (RMPOLLINTERVAL), save, push, signals, reload.

loop.Daemon is the daemon; main.py its command line (`mauid`, `maui-py daemon`).
"""
