"""mauid, the scheduler daemon: poll loop (RMPOLLINTERVAL), save, push, signals, reload.

loop.Daemon is the daemon; main.py its command line (`mauid`, `maui-py daemon`); notify.py
talks to systemd, metrics.py exports Prometheus metrics, data/mauid.service is the unit.
"""
