"""A start Slurm does not carry out: a node drained between the decision and the push, and
a node the job excluded (maui-py does not read --exclude). Both are failed starts: the
next cycle sees the job still idle, defers it (DEFERTIME), then starts it elsewhere; the
journal shows each step.
"""

from __future__ import annotations

import pytest

from .harness import MauidProcess, by_job, final_jobs, journal, wait_for, write_config
from maui_py.adapters.slurm import hostlist

pytestmark = pytest.mark.slurm

CONFIG = """\
NODEALLOCATIONPOLICY FIRSTAVAILABLE
DEFERTIME          00:00:02
DEFERSTARTCOUNT    1
DEFERCOUNT         5
"""


def test_a_refused_push_is_deferred_then_retried_elsewhere(slurm, tmp_path):
    cfg = write_config(tmp_path, slurm, CONFIG)
    drained = slurm.submit(["-n", "1", "-t", "1"], script="sleep 2")
    excluded = slurm.submit(["-n", "1", "-t", "1", "--exclude=node1"], script="sleep 2")
    # The first cycle decides both starts (FIRSTAVAILABLE on an idle cluster: node1) and
    # pauses 4 s after saving them, before pushing: node1 is drained meanwhile.
    mauid = MauidProcess(cfg, "after-save@1:pause=4")
    try:
        first = wait_for(lambda: [e for e in journal(tmp_path, events=("start",))], 20, "the first starts")
        chosen = {e.job_id: e.detail["nodes"] for e in first}
        assert chosen == {drained: ["node1"], excluded: ["node1"]}, chosen
        slurm.run(["scontrol", "update", "NodeName=node1", "State=DRAIN", "Reason=maui-py test"])
        wait_for(lambda: not slurm.squeue(), 60, "both jobs to run elsewhere and finish", period=0.5)
    finally:
        slurm.run(["scontrol", "update", "NodeName=node1", "State=RESUME"], check=False)
        assert mauid.stop() == 0
    final = final_jobs(slurm)
    jb = by_job(journal(tmp_path))
    for jid in (drained, excluded):
        events = [e.event for e in jb[jid]]
        assert events == ["start", "start-failed", "defer", "release", "start", "start-confirmed"], (jid, events)
        failed = jb[jid][1]
        assert failed.detail["nodes"] == ["node1"]
        retry = jb[jid][4]
        assert retry.detail["nodes"] != ["node1"]
        rec = final[jid]
        assert rec["JobState"] == "COMPLETED" and rec["Restarts"] == "0"
        assert hostlist.expand(rec["NodeList"]) == retry.detail["nodes"]
    defer = jb[drained][2]
    assert "start failed 1 time(s)" in defer.reason
