"""Issue 13 in the adapters, with recorded answers: Slurm's error list and an empty view are
outages; a start over the partition's MaxTime is never pushed and the job is held; a Defer
sends a released job back to the gate; DEFAULT.WCLIMIT is planned and pushed as TimeLimit."""

from __future__ import annotations

import json

import pytest

from maui_py.adapters.slurm.adapter import parse_partition_max_times
from maui_py.model import Defer, HoldType
from maui_py.rm.protocol import RMOutage
from maui_py.rm.runner import Result

from .test_slurm_adapter import PARTITIONS, FakeSlurm, adapter, sample, script, start

ERRORS = {"errors": [{"description": "Failed while looking for jobs", "error_number": -1,
                      "error": "Unspecified error", "source": "slurm_load_jobs"}]}


def _json(name: str, **changes) -> str:
    doc = json.loads(sample(name))
    doc.update(changes)
    return json.dumps(doc)


def _squeue(**per_job) -> str:
    """squeue-holdmode.json with fields of some jobs changed: {job id: {field: value}}."""
    doc = json.loads(sample("squeue-holdmode.json"))
    for j in doc["jobs"]:
        j.update(per_job.get(str(j["job_id"]), {}))
    return json.dumps(doc)


@pytest.mark.parametrize("command, name, key", [
    (("squeue", "--all", "--json"), "squeue-holdmode.json", "jobs"),
    (("sinfo", "--all", "--json"), "sinfo-holdmode.json", "nodes")])
def test_an_answer_with_slurms_error_list_is_an_outage_not_an_empty_view(command, name, key):
    fake = FakeSlurm({command: (0, _json(name, **ERRORS, **{key: []}), "")})
    with pytest.raises(RMOutage, match="Unspecified error"):
        adapter(fake).snapshot()


def test_no_nodes_after_a_view_with_nodes_is_an_outage():
    answers = [sample("sinfo-holdmode.json"), _json("sinfo-holdmode.json", nodes=[])]
    fake = FakeSlurm({("sinfo", "--all", "--json"): lambda argv, _in: Result(tuple(argv), 0, answers.pop(0), "")})
    a = adapter(fake)
    assert len(a.snapshot().nodes) == 4
    with pytest.raises(RMOutage, match="no nodes listed"):
        a.snapshot()


def test_partition_max_times_are_read_and_unlimited_ones_left_out():
    assert parse_partition_max_times(PARTITIONS + "PartitionName=x MaxTime=1-00:00:00\n") == \
        {"debug": 3600, "x": 86400}


def test_a_start_over_the_partition_max_time_is_never_pushed_and_the_job_is_held():
    fake = FakeSlurm({("squeue", "--all", "--json"): (0, _squeue(**{"11": {"partition": "debug",
                                                                          "time_limit": 120}}), "")})
    a = adapter(fake)
    a.snapshot()
    fake.calls.clear()
    failures = a.apply([start("11", "node1"), start("10", "node3")])
    assert [(f.job_id, f.reason.split(":")[0]) for f in failures] == [("11", "refused and held")]
    assert "time limit 2:00:00 over partition debug MaxTime 1:00:00" in failures[0].reason
    phase1, phase2 = fake.scontrol_inputs()
    assert phase1 == script("hold 11", "update JobId=10 NodeList=node3 NumNodes=1-1")
    assert phase2 == script("release 10")
    assert a._holds == {"11": HoldType.BATCH}


def test_partitions_are_read_again_only_after_the_refresh_interval():
    fake = FakeSlurm()
    a = adapter(fake)
    a.snapshot()
    a.snapshot()
    assert fake.argvs().count(["scontrol", "show", "partition", "-o"]) == 1


def test_a_defer_sends_a_released_job_back_to_the_gate_and_leaves_gated_ones_alone():
    fake = FakeSlurm({("squeue", "--all", "--json"): (
        0, _squeue(**{"10": {"state_reason": "PartitionTimeLimit", "priority": 1}}), "")})
    a = adapter(fake)
    a.snapshot()
    fake.calls.clear()
    a.apply([Defer("10", "start failed 1 time(s)", 99), Defer("11", "cannot run", 99)])
    assert fake.scontrol_inputs() == [script("uhold 10")]


def test_a_job_without_a_time_limit_gets_the_class_default_planned_and_pushed():
    fake = FakeSlurm({("squeue", "--all", "--json"): (0, _squeue(**{"11": {"time_limit": 4294967295}}), "")})
    a = adapter(fake, "\nCLASSCFG[batch] DEFAULT.WCLIMIT=01:30:00")
    snap = a.snapshot()
    assert snap.job("11").wallclock == 5400
    assert snap.job("10").wallclock == 300           # a job with its own limit keeps it
    fake.calls.clear()
    a.apply([start("11", "node2")])
    assert fake.scontrol_inputs()[0] == script("update JobId=11 NodeList=node2 NumNodes=1-1 TimeLimit=90")


def test_torque_no_nodes_after_a_view_with_nodes_is_an_outage():
    from .test_torque_adapter import DATA, FakeRunner
    from .test_torque_adapter import adapter as torque_adapter
    run = FakeRunner(pbsnodes=(0, (DATA / "torque-pbsnodes-x-2.xml").read_text(), ""),
                     qstat=(0, (DATA / "torque-qstat-f-x.xml").read_text(), ""))
    a = torque_adapter(run)
    assert a.snapshot().nodes
    run.replies["pbsnodes"] = (0, "<Data></Data>", "")
    with pytest.raises(RMOutage, match="no nodes listed"):
        a.snapshot()
