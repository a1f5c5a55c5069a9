"""A start Torque does not carry out: the chosen node taken offline between the decision
and the push, so `qrun -H` fails (exit 2, "job allocation request exceeds currently available
cluster nodes"). That is a failed start: the next cycle sees the job still queued, defers it
(DEFERTIME), then starts it elsewhere. A job that can only run on that node is deferred
again and again and then held (DEFERCOUNT): held in Torque, never dropped.
"""

from __future__ import annotations

from maui_py.adapters.torque.values import exec_host
from tests.adapters.conftest import torque, torque_cluster  # noqa: F401  (fixtures)

from .harness import MauidProcess, by_job, journal, torque_final_jobs, wait_for, write_torque_config

CONFIG = """\
NODEALLOCATIONPOLICY FIRSTAVAILABLE
DEFERTIME          00:00:02
DEFERSTARTCOUNT    1
DEFERCOUNT         2
"""


def test_a_refused_qrun_is_deferred_retried_elsewhere_or_held(torque, tmp_path):
    cfg = write_torque_config(tmp_path, CONFIG)
    first = torque.nodes[0]
    anywhere = torque.qsub(["-l", "nodes=1:ppn=1,walltime=00:01:00"], "sleep 2")
    pinned = torque.qsub(["-l", f"nodes={first}:ppn=1,walltime=00:01:00"], "sleep 2")
    # The first cycle decides both starts (FIRSTAVAILABLE on an idle cluster: node 1) and
    # pauses 4 s after saving them, before pushing: node 1 goes offline meanwhile.
    mauid = MauidProcess(cfg, "after-save@1:pause=4", env_extra={"PATH": torque.env["PATH"]})
    try:
        decided = wait_for(lambda: journal(tmp_path, events=("start",)), 20, "the first starts")
        assert {e.job_id: e.detail["nodes"] for e in decided} == {anywhere: [first], pinned: [first]}
        torque.set_offline(first)
        wait_for(lambda: anywhere not in torque.active() and torque.active().get(pinned, ("",))[0] == "H",
                 60, "the movable job to run and finish, the pinned one to be held", period=0.5)
    finally:
        assert mauid.stop() == 0
    final = torque_final_jobs(torque)
    jb = by_job(journal(tmp_path))

    events = [e.event for e in jb[anywhere]]
    assert events == ["start", "start-failed", "defer", "release", "start", "start-confirmed"], events
    assert jb[anywhere][1].detail["nodes"] == [first]
    assert "available" in jb[anywhere][1].reason              # Torque's own words, kept
    retry = jb[anywhere][4].detail["nodes"]
    assert retry != [first]
    assert final[anywhere]["job_state"] == "C" and final[anywhere]["start_count"] == "1"
    assert [h for h, _ in exec_host(final[anywhere]["exec_host"])] == retry

    events = [e.event for e in jb[pinned]]
    assert events[:3] == ["start", "start-failed", "defer"], events
    assert "hold" in events and "start-confirmed" not in events, events
    assert events.count("start") == 1                          # never pushed to the offline node again
    assert final[pinned]["job_state"] == "H" and "s" in final[pinned]["Hold_Types"]
    assert final[pinned]["start_count"] in ("", "0")
