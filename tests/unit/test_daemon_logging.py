"""mauid's optional syslog (USESYSLOG): lines reach the syslog socket tagged mauid[pid];
no syslog socket is a warning, not a refusal to start."""

from __future__ import annotations

import logging
import os
import socket

from maui_py.daemon import logsetup


def test_syslog_lines_are_tagged_and_leveled(tmp_path):
    path = str(tmp_path / "log.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(path)
        server.settimeout(5)
        h = logsetup.syslog_handler(path)
        log = logging.getLogger("maui_py.test_syslog")
        log.addHandler(h)
        try:
            log.warning("start %s refused", "42")
        finally:
            log.removeHandler(h)
            h.close()
        data = server.recv(4096).decode()
    # <28>: facility daemon (3) x 8 + warning (4)
    assert data == f"<28>mauid[{os.getpid()}]: WARNING maui_py.test_syslog: start 42 refused\x00"


def test_no_syslog_socket_is_a_warning(tmp_path):
    try:
        logsetup.configure(tmp_path / "mauid.log", 1, stderr=False, syslog=str(tmp_path / "no-log"))
        handlers = [h for h in logging.getLogger("maui_py").handlers if getattr(h, "_mauid", False)]
        assert [type(h).__name__ for h in handlers] == ["LogFile"]
    finally:
        logsetup.unconfigure()
    assert "USESYSLOG: no syslog at" in (tmp_path / "mauid.log").read_text()
