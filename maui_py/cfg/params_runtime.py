"""maui-py's parameters for running for real (state store, daemon): rows of the table.

The daemon (maui_py/daemon) and the state store (maui_py/store) read these; the Maui
parameters they also act on (RMPOLLINTERVAL, LOGDIR, LOGFILE, LOGLEVEL, RMCFG) are in
params.py. Relative paths are taken from the home directory: $MAUIHOMEDIR, else the
directory of the configuration file. See docs/operations.md.
"""

from __future__ import annotations

from typing import Any

from .rows import STRING, TIME, P, _group
from .values import Integer


def _p(name: str, vtype, default: Any, doc: str) -> Any:
    return P(name, vtype, default, doc, active=True, origin="maui-py", src="maui-py")


ROWS: list = _group(
    "State store and daemon",
    _p("STOREFILE", STRING, "maui-py.db", "the state store (SQLite, WAL): what lasts between cycles (fair "
       "share, kept reservations, defers, holds), the decision journal and the last cycle's view read by "
       "the commands; relative to the home directory"),
    _p("JOURNALKEEPTIME", TIME, 30 * 86400, "how long decision-journal entries and finished admin requests "
       "are kept in the store (0 = forever)"),
    _p("REQUESTPOLLINTERVAL", TIME, 1, "non-zero: an admin request arriving on mauid's socket "
       "starts a cycle within this long; 0: requests wait for the next RMPOLLINTERVAL cycle"),
    _p("METRICSPORT", Integer(0, 65535), 0, "non-zero: mauid serves Prometheus metrics on this TCP port "
       "(http://METRICSADDRESS:PORT/metrics); 0: no endpoint"),
    _p("METRICSADDRESS", STRING, "127.0.0.1", "the address the metrics endpoint listens on (0.0.0.0: "
       "every interface; the metrics name users and accounts)"),
    _p("METRICSFILE", STRING, None, "non-empty: mauid rewrites this file (atomically) with its Prometheus "
       "metrics after every cycle, for node_exporter's textfile collector (name it *.prom); relative to "
       "the home directory"),
)
