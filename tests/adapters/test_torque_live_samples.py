"""The Torque parser on output recorded from the live Torque 6.1 of ../shared/torque
(tests/adapters/data/torque/live-*.xml, written by capture_live.py there; SOURCES.md).

What these show that the older recordings did not: exec_host and <jobs> slot ranges
(`vm/0-1+vm-n3/0-1`, `0-1/0.vm,2/1.vm`), a `procs=` job placed over two nodes, array tasks
`4[1].vm` (with -t) and the array summary `4[].vm` in state R with no exec_host and an empty
Resource_List (without -t), Hold_Types `su`, ids from 0, escaped names and accounts.
"""

import warnings
from pathlib import Path

import pytest

from maui_py.adapters.torque import TorqueAdapter
from maui_py.adapters.torque.parse import parse_pbsnodes, parse_qstat
from maui_py.cfg import parse_config
from maui_py.model import HoldType, JobState, NodeState, Resources
from maui_py.rm.runner import Result

DATA = Path(__file__).parent / "data" / "torque"
NODES = ("vm", "vm-n2", "vm-n3", "vm-n4")


def text(name: str) -> str:
    return (DATA / name).read_text()


@pytest.fixture(autouse=True)
def no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def test_live_pbsnodes_ranges_and_offline_with_jobs():
    nodes = {n.name: n for n in parse_pbsnodes(text("live-pbsnodes-x.xml"))}
    assert tuple(nodes) == NODES
    # np=4 is what the server schedules; the mom's status says ncpus=2 (the host's cores)
    assert {n.resources.procs for n in nodes.values()} == {4}
    assert nodes["vm-n3"].state is NodeState.DRAINING          # offline, two jobs still on it
    assert nodes["vm"].state is NodeState.RUNNING               # free, with 2 of 4 slots used
    assert nodes["vm"].resources.mem == 24684084 // 1024


def jobs(name: str) -> dict:
    return {r.job.id: r for r in parse_qstat(text(name), now=1, node_names=NODES)}


def test_live_qstat_with_array_tasks():
    got = jobs("live-qstat-f-x-t.xml")
    assert list(got) == ["0.vm", "1.vm", "2.vm", "3.vm", "4[0].vm", "4[1].vm", "4[2].vm", "5.vm", "6.vm"]
    multi = got["0.vm"].job
    assert multi.state is JobState.RUNNING and multi.wallclock == 600
    assert multi.allocation == (("vm", Resources(2)), ("vm-n3", Resources(2)), ("vm-n4", Resources(2)))
    procs = got["1.vm"].job                                     # procs=3,mem=3gb over two nodes
    assert (procs.request.tasks, procs.request.nodes, procs.request.per_task.mem) == (3, 0, 1024)
    assert procs.allocation == (("vm-n2", Resources(2, 2048)), ("vm-n3", Resources(1, 1024)))
    queued = got["2.vm"].job
    assert queued.state is JobState.IDLE and queued.request.per_task.mem == 200   # pmem
    held = got["3.vm"]
    assert held.hold_types == "su" and held.job.holds == {HoldType.SYSTEM, HoldType.USER}
    task = got["4[1].vm"].job
    assert task.state is JobState.RUNNING and task.name == "arr-1" and task.nodes == ("vm-n4",)
    assert got["4[0].vm"].job.state is JobState.IDLE and not got["4[0].vm"].is_array_parent
    hostile = got["5.vm"].job
    assert (hostile.name, hostile.account) == ("x$(touch${IFS}/tmp/pwned)", "a'b\"c<&>")
    assert hostile.user == "mauitorque" and hostile.group == "mauitorque"
    assert got["6.vm"].job.state is JobState.COMPLETED


def test_live_array_summary_without_t_is_read_not_warned_about():
    got = jobs("live-qstat-f-x.xml")
    parent = got["4[].vm"]
    assert parent.is_array_parent and parent.job.state is JobState.RUNNING
    assert parent.job.allocation == ()


def test_adapter_snapshot_of_the_live_recording():
    answers = {"pbsnodes": text("live-pbsnodes-x.xml"), "qstat": text("live-qstat-f-x-t.xml")}

    def runner(argv, *, input=None, timeout=30.0, env=None):
        return Result(tuple(argv), 0, answers[argv[0]], "")

    snap = TorqueAdapter(parse_config("RMCFG[t] TYPE=PBS\n"), "t", runner=runner,
                         clock=lambda: 1795494300).snapshot()
    assert [j.id for j in snap.jobs] == ["0.vm", "1.vm", "2.vm", "3.vm", "4[0].vm", "4[1].vm",
                                         "4[2].vm", "5.vm"]           # the completed one left out
    used = {}
    for j in snap.running():
        for node, res in j.allocation:
            used[node] = used.get(node, 0) + res.procs
    assert used == {"vm": 2, "vm-n2": 2, "vm-n3": 3, "vm-n4": 3}     # as pbsnodes' <jobs> says
