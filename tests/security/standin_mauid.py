"""mauid for the security tests: the real Daemon (loop, signals, store, request socket) on a
stand-in resource manager, in a process of its own:

    python -m tests.security.standin_mauid CONFIG       # SIGTERM stops it

The test process stays single-threaded, so that it may fork a child that becomes another
user (os.setuid) without inheriting the daemon's threads.
"""

from __future__ import annotations

import sys

from maui_py.daemon.loop import Daemon

from tests.cli.test_admin_commands import FakeRM


class StandInRM(FakeRM):
    """The admin-command tests' resource manager: two 4-processor nodes, six 4-processor jobs
    of alice; what is pushed takes effect."""

    name = "standin"


def main(argv: list[str]) -> int:
    rm = StandInRM()
    return Daemon(argv[0], adapter_factory=lambda cfg, name: rm, stderr=True).run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
