"""mauid for the security tests: the real Daemon (loop, signals, store, request socket) on a
stand-in resource manager, in a process of its own:

    python -m tests.security.standin_mauid CONFIG       # SIGTERM stops it

The test process stays single-threaded, so that it may fork a child that becomes another
user (os.setuid) without inheriting the daemon's threads.
"""

from __future__ import annotations

import sys
import time

from maui_py.daemon.loop import Daemon
from maui_py.model import ClusterSnapshot, Hold, Job, JobRequest, JobState, Node, ReleaseHold, Resources, Start


class StandInRM:
    """Two 4-processor nodes, six 4-processor jobs of alice; what is pushed takes effect."""

    name = "standin"

    def __init__(self):
        self.nodes = (Node("n0", Resources.of(4)), Node("n1", Resources.of(4)))
        self.jobs = {str(k): Job(str(k), "alice", JobRequest(4), 3600, k) for k in range(1, 7)}

    def snapshot(self) -> ClusterSnapshot:
        return ClusterSnapshot(int(time.time()), self.nodes, tuple(self.jobs.values()))

    def apply(self, decisions):
        for d in decisions:
            j = self.jobs[d.job_id]
            if isinstance(d, Start):
                self.jobs[j.id] = Job(j.id, j.user, j.request, j.wallclock, j.submit_time,
                                      state=JobState.RUNNING, start_time=int(time.time()),
                                      allocation=d.allocation)
            elif isinstance(d, Hold):
                self.jobs[j.id] = Job(j.id, j.user, j.request, j.wallclock, j.submit_time,
                                      holds=j.holds | {d.hold})
            elif isinstance(d, ReleaseHold):
                self.jobs[j.id] = Job(j.id, j.user, j.request, j.wallclock, j.submit_time,
                                      holds=j.holds - {d.hold})
        return []

    def close(self) -> None:
        pass


def main(argv: list[str]) -> int:
    rm = StandInRM()
    return Daemon(argv[0], adapter_factory=lambda cfg, name: rm, stderr=True).run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
