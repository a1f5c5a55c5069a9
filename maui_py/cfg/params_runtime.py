"""maui-py's parameters for running for real (state store, daemon): rows of the table.

The daemon (maui_py/daemon) and the state store (maui_py/store) read these; the Maui
parameters they also act on (RMPOLLINTERVAL, LOGDIR, LOGFILE, LOGLEVEL, RMCFG) are in
params.py. Relative paths are taken from the home directory: $MAUIHOMEDIR, else the
directory of the configuration file. See docs/operations.md.
"""

from __future__ import annotations

from .rows import OWN, STRING, TIME, group
from .values import Integer


ROWS: list = group(
    "State store and daemon",
    OWN("STOREFILE", STRING, "maui-py.db", "the state store (SQLite, WAL): what lasts between cycles (fair "
        "share, kept reservations, defers, holds), the decision journal and the last cycle's view read by "
        "the commands; relative to the home directory"),
    OWN("JOURNALKEEPTIME", TIME, 30 * 86400, "how long decision-journal entries and finished admin requests "
        "are kept in the store (0 = forever)"),
    OWN("REQUESTPOLLINTERVAL", TIME, 1, "non-zero: an admin request arriving on mauid's socket "
        "starts a cycle within this long; 0: requests wait for the next RMPOLLINTERVAL cycle"),
    OWN("METRICSPORT", Integer(0, 65535), 0, "non-zero: mauid serves Prometheus metrics on this TCP port "
        "(http://METRICSADDRESS:PORT/metrics); 0: no endpoint"),
    OWN("METRICSADDRESS", STRING, "127.0.0.1", "the address the metrics endpoint listens on (0.0.0.0: "
        "every interface; the metrics name users and accounts)"),
    OWN("METRICSFILE", STRING, None, "non-empty: mauid rewrites this file (atomically) with its Prometheus "
        "metrics after every cycle, for node_exporter's textfile collector (name it *.prom); relative to "
        "the home directory"),
)
