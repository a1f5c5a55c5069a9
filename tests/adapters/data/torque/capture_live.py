"""Records the live-*.xml samples here from the Torque 6.1 of ../shared/torque (root needed).

    flock /tmp/torque-live.lock .venv/bin/python tests/adapters/data/torque/capture_live.py

Starts the test Torque (tests/adapters/torque_cluster.py: 4 nodes x np=4), submits a set of
jobs as the test user, starts some with `qrun -H`, takes one node offline, and writes
`qstat -f -x -t`, `qstat -f -x` (arrays summarised) and `pbsnodes -x` verbatim. The job ids
and times differ from run to run; tests/adapters/test_torque_live_samples.py reads the
recorded files.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))

from tests.adapters.torque_cluster import TorqueCluster  # noqa: E402


def main() -> None:
    c = TorqueCluster()
    c.start()
    try:
        n1, n2, n3, n4 = c.nodes
        multi = c.qsub(["-N", "multi", "-l", "nodes=3:ppn=2,walltime=00:10:00"], "sleep 60")
        procs = c.qsub(["-N", "procs", "-l", "procs=3,walltime=600,mem=3gb"], "sleep 60")
        c.qsub(["-N", "queued", "-l", "nodes=1:ppn=2,pmem=200mb"], "sleep 60")
        held = c.qsub(["-h", "-N", "held", "-l", "nodes=1:ppn=1"], "sleep 60")
        c.run(["qhold", "-h", "s", held])
        array = c.qsub(["-t", "0-2", "-N", "arr", "-l", "nodes=1:ppn=1,walltime=00:05:00"], "sleep 60")
        c.qsub(["-N", "x$(touch${IFS}/tmp/pwned)", "-A", "a'b\"c<&>", "-l", "nodes=1:ppn=1"], "sleep 60")
        done = c.qsub(["-N", "done", "-l", "nodes=1:ppn=1"], "true")
        c.run(["qrun", "-H", f"{n1}:ppn=2+{n3}:ppn=2+{n4}:ppn=2", multi])
        c.run(["qrun", "-H", f"{n2}:ppn=2+{n3}:ppn=1", procs])
        base, server = array.split("[]", 1)
        c.run(["qrun", "-H", n4, f"{base}[1]{server}"])
        c.run(["qrun", "-H", n2, done])
        c.wait(lambda: c.states()[done][0] == "C", 20, "the short job to complete")
        c.set_offline(n3)
        time.sleep(1)
        (HERE / "live-qstat-f-x-t.xml").write_text(c.run(["qstat", "-f", "-x", "-t"]).stdout)
        (HERE / "live-qstat-f-x.xml").write_text(c.run(["qstat", "-f", "-x"]).stdout)
        (HERE / "live-pbsnodes-x.xml").write_text(c.run(["pbsnodes", "-x"]).stdout)
    finally:
        c.stop()


if __name__ == "__main__":
    main()
