"""TorqueAdapter: the exact commands it runs, how it reads their answers, and end to end
against the Torque stand-in (tests/adapters/torque_standin, a test double, not Torque)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from maui_py.adapters.torque import TorqueAdapter
from maui_py.cfg import parse_config
from maui_py.model import (Hold, HoldType, JobState, NodeState, ReleaseHold, Reserve, Resources, Start,
                           StartKind)
from maui_py.rm import ResourceManager, RMError, StartFailure
from maui_py.rm.registry import create
from maui_py.rm.runner import Result

HERE = Path(__file__).parent
DATA = HERE / "data" / "torque"
STANDIN = HERE / "torque_standin"
NOW = 1_700_000_000


class FakeRunner:
    """Records every call; answers from `replies` (argv[0] -> Result fields or an exception)."""

    def __init__(self, **replies):
        self.calls: list[tuple[list[str], float]] = []
        self.replies = replies

    def __call__(self, argv, *, input=None, timeout=30.0, env=None):
        assert isinstance(argv, list) and all(isinstance(a, str) for a in argv)
        self.calls.append((argv, timeout))
        reply = self.replies.get(argv[0], (0, "", ""))
        if isinstance(reply, Exception):
            raise reply
        return Result(tuple(argv), *reply)

    @property
    def argvs(self):
        return [argv for argv, _ in self.calls]


def adapter(runner, cfg="RMCFG[torque] TYPE=PBS\n"):
    return TorqueAdapter(parse_config(cfg), "torque", runner=runner, clock=lambda: NOW + 0.7)


def start(job_id, *alloc):
    return Start(job_id, tuple(alloc), StartKind.IMMEDIATE)


# ------------------------------------------------------------------ reading
def test_snapshot_runs_pbsnodes_and_qstat_with_the_default_timeout():
    run = FakeRunner(pbsnodes=(0, (DATA / "torque-pbsnodes-x-2.xml").read_text(), ""),
                     qstat=(0, (DATA / "torque-qstat-f-x.xml").read_text(), ""))
    snap = adapter(run).snapshot()
    assert run.calls == [(["pbsnodes", "-x"], 30.0), (["qstat", "-f", "-x", "-t"], 30.0)]
    assert snap.now == NOW and snap.seq == 1
    assert [n.name for n in snap.nodes] == ["node1", "node14", "node150", "node163", "node164"]
    # completed jobs and the array summary are left out; R and Q stay
    assert [j.id for j in snap.jobs] == ["665199.superserver.stanford.edu", "667999.superserver.stanford.edu"]
    assert snap.running()[0].allocation == (("node01", Resources(1, 4096)),)


def test_server_port_timeout_and_async_start_come_from_rmcfg():
    run = FakeRunner()
    a = adapter(run, "RMCFG[torque] TYPE=PBS HOST=pbs1 PORT=15001 TIMEOUT=7 ASYNCJOBSTART=TRUE\n")
    a.snapshot()
    a.apply([start("5.pbs1", ("n1", Resources(1)))])
    assert run.calls == [(["pbsnodes", "-x", "-s", "pbs1:15001"], 7.0),
                         (["qstat", "-f", "-x", "-t", "@pbs1:15001"], 7.0),
                         (["qrun", "-a", "-H", "n1", "5.pbs1"], 7.0)]


def test_registry_builds_it_for_type_pbs():
    a = create(parse_config("RMCFG[base] TYPE=PBS HOST=srv\n"))
    assert isinstance(a, TorqueAdapter) and isinstance(a, ResourceManager)
    assert (a.name, a.server, a.timeout) == ("base", "srv", 30.0)


@pytest.mark.parametrize("replies,match", [
    ({"pbsnodes": (1, "", "pbsnodes: cannot connect to server pbs1, error=111 (Connection refused)")},
     "Connection refused"),
    ({"qstat": (2, "", "qstat: Unauthorized Request")}, "exit 2: qstat: Unauthorized Request"),
    ({"qstat": RMError("qstat: no answer within 30 s")}, "no answer within 30 s"),
    ({"qstat": (0, "<Data><Job><Job_Id>1", "")}, r"qstat -f -x: not Torque XML"),
    ({"pbsnodes": (0, "garbage", "")}, r"pbsnodes -x: not Torque XML"),
])
def test_snapshot_fails_as_a_whole_with_rmerror(replies, match):
    with pytest.raises(RMError, match=match):
        adapter(FakeRunner(**replies)).snapshot()


# ------------------------------------------------------------------ acting
def test_start_hold_release_argv_lists():
    run = FakeRunner()
    a = adapter(run)
    failures = a.apply([
        start("12.srv", ("n1", Resources(4)), ("n2", Resources(4)), ("n3", Resources.of(1, gpu=2))),
        start("13", ("n1", Resources(1))),
        Hold("14.srv", HoldType.BATCH, "deferred too often"),
        Reserve("15.srv", 0, 10, ()),
        ReleaseHold("14.srv", HoldType.BATCH, "admin"),
        start("16[3].srv", ("n4", Resources(2))),
    ])
    assert failures == []
    assert run.argvs == [["qrun", "-H", "n1:ppn=4+n2:ppn=4+n3:gpus=2", "12.srv"],
                         ["qrun", "-H", "n1", "13"],
                         ["qhold", "-h", "s", "14.srv"],
                         ["qrls", "-h", "s", "14.srv"],
                         ["qrun", "-H", "n4:ppn=2", "16[3].srv"]]


def test_release_only_holds_maui_py_set():
    run = FakeRunner()
    a = adapter(run)
    a.apply([ReleaseHold("7.srv", HoldType.DEFER, "defer time elapsed"),
             ReleaseHold("8.srv", HoldType.USER, "admin")])
    assert run.calls == []


@pytest.mark.parametrize("bad_id", ["abc", "12; rm -rf /", "$(touch /tmp/pwned)", "-H", "12.srv x",
                                    "12\n", "12.srv@other", "", "١٢"])
def test_ids_that_are_not_torque_ids_are_refused_and_never_passed(bad_id):
    run = FakeRunner()
    a = adapter(run)
    failures = a.apply([start(bad_id, ("n1", Resources(1))), Hold(bad_id, HoldType.BATCH, "x")])
    assert run.calls == []
    assert failures == [StartFailure(bad_id, f"refused: {bad_id!r} is not a Torque job id; nothing was run")]
    assert len(a.failures) == 2  # the hold is refused too, but it is not a failed start


@pytest.mark.parametrize("node", ["n1+n2", "n1:ppn=8", "a b", "-H", "007"])
def test_allocations_on_odd_node_names_are_refused(node):
    run = FakeRunner()
    [f] = adapter(run).apply([start("3.srv", (node, Resources(1)))])
    assert run.calls == [] and f.job_id == "3.srv" and f.reason.startswith("refused:")


def test_torque_refusals_are_start_failures_with_torque_message():
    unavailable = "qrun: Resource temporarily unavailable MSG=cannot allocate node 'n4' 3.srv\n"
    run = FakeRunner(qrun=(2, "", unavailable))
    failures = adapter(run).apply([start("3.srv", ("n4", Resources(1)))])
    assert failures == [StartFailure("3.srv", unavailable.strip())]
    run = FakeRunner(qrun=(2, "", "qrun: Unknown Job Id Error 99.srv\n"),
                     qhold=(153, "", "qhold: Unknown Job Id Error 9.srv"))
    a = adapter(run)
    failures = a.apply([start("99.srv", ("n1", Resources(1))), Hold("9.srv", HoldType.BATCH, "x")])
    assert failures == [StartFailure("99.srv", "qrun: Unknown Job Id Error 99.srv")]
    assert a.failures[1] == StartFailure("9.srv", "qhold: Unknown Job Id Error 9.srv")


def test_failed_hold_is_not_remembered_so_no_release_follows():
    run = FakeRunner(qhold=(153, "", "qhold: Unknown Job Id Error 9.srv"))
    a = adapter(run)
    a.apply([Hold("9.srv", HoldType.BATCH, "x"), ReleaseHold("9.srv", HoldType.BATCH, "y")])
    assert run.argvs == [["qhold", "-h", "s", "9.srv"]]


def test_rmerror_only_when_no_command_reached_torque():
    down = RMError("qrun: no answer within 30 s")
    with pytest.raises(RMError, match="no answer"):
        adapter(FakeRunner(qrun=down)).apply([start("1.srv", ("n1", Resources(1))),
                                              start("2.srv", ("n1", Resources(1)))])
    failures = adapter(FakeRunner(qrun=down)).apply([start("1.srv", ("n1", Resources(1))),
                                                     Hold("2.srv", HoldType.BATCH, "x")])
    assert failures == [StartFailure("1.srv", "qrun: no answer within 30 s")]


def test_a_system_hold_maui_py_set_reads_back_as_the_hold_it_asked_for():
    held = ("<Data><Job><Job_Id>9.srv</Job_Id><Job_Owner>u@h</Job_Owner><job_state>H</job_state>"
            "<queue>q</queue><qtime>1</qtime><Hold_Types>s</Hold_Types></Job></Data>")
    run = FakeRunner(qstat=(0, held, ""))
    a = adapter(run)
    assert a.snapshot().jobs[0].holds == {HoldType.SYSTEM}  # not ours (yet)
    a.apply([Hold("9.srv", HoldType.BATCH, "x")])
    assert a.snapshot().jobs[0].holds == {HoldType.BATCH}
    run.replies["qstat"] = (0, held.replace(">s<", ">n<").replace(">H<", ">Q<"), "")
    assert a.snapshot().jobs[0].holds == frozenset()  # an operator released it
    a.apply([ReleaseHold("9.srv", HoldType.BATCH, "y")])
    assert ["qrls", "-h", "s", "9.srv"] not in run.argvs


# ------------------------------------------------------------------ end to end with the stand-in
INJECTIONS = ["$(touch {tmp}/pwned)", "$(touch /tmp/pwned)", ";rm -rf /", "`touch {tmp}/pwned2`",
              "it's \"quoted\"", "two\nlines"]


@pytest.fixture
def torque(tmp_path, monkeypatch):
    """A Torque stand-in on PATH: n1..n3 with 4 slots, n4 offline."""
    state = tmp_path / "torque.json"
    nodes = {f"n{i}": {"np": 4, "properties": ["fast"] if i < 3 else [], "physmem_kb": 8 * 2**20,
                       "gpus": 1 if i == 1 else 0, "offline": i == 4} for i in range(1, 5)}
    state.write_text(json.dumps({"server": "standin", "next_id": 1, "nodes": nodes, "jobs": {}}))
    monkeypatch.setenv("TORQUE_STANDIN_STATE", str(state))
    monkeypatch.setenv("TORQUE_STANDIN_NOW", str(NOW))
    python = tmp_path / "bin" / "python3"  # the stand-in's `env python3`: this interpreter
    python.parent.mkdir()
    python.symlink_to(sys.executable)
    monkeypatch.setenv("PATH", os.pathsep.join([str(STANDIN), str(python.parent), os.environ["PATH"]]))
    return state


def qsub(*args):
    out = subprocess.run(["qsub", *args], input="", capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_end_to_end_with_the_standin(torque, tmp_path):
    pwned_before = Path("/tmp/pwned").exists()
    names = [n.format(tmp=tmp_path) for n in INJECTIONS]
    ids = [qsub("-N", names[0], "-l", "nodes=1:ppn=2:fast,walltime=00:10:00,mem=2gb",
                "-u", "eve$(touch x)", "-A", "acct';rm -rf /")]
    ids.append(qsub("-N", names[1], "-l", "nodes=2:ppn=4"))
    ids += [qsub("-N", name, "-l", "procs=1") for name in names[2:]]
    a = TorqueAdapter(parse_config("RMCFG[t] TYPE=PBS HOST=standin\n"), "t")

    snap = a.snapshot()
    by = {j.id: j for j in snap.jobs}
    assert list(by) == ids == [f"{i}.standin" for i in range(1, 7)]
    assert [by[i].name for i in ids] == names  # names are data, to the byte
    first = by[ids[0]]
    assert (first.user, first.account, first.wallclock) == ("eve$(touch x)", "acct';rm -rf /", 600)
    assert first.request.per_task == Resources(1, 1024) and first.request.features == {"fast"}
    nodes = {n.name: n for n in snap.nodes}
    assert nodes["n4"].state is NodeState.DRAINED and nodes["n1"].resources == Resources.of(4, 8192, gpu=1)

    failures = a.apply([start(ids[0], ("n1", Resources(2))),
                        start(ids[1], ("n2", Resources(4)), ("n3", Resources(4))),
                        Hold(ids[2], HoldType.BATCH, "test")])
    assert failures == []
    snap = a.snapshot()
    by = {j.id: j for j in snap.jobs}
    assert by[ids[0]].state is JobState.RUNNING and by[ids[0]].start_time == NOW
    assert by[ids[0]].allocation == (("n1", Resources(2, 2048)),)
    assert by[ids[1]].allocation == (("n2", Resources(4)), ("n3", Resources(4)))
    assert by[ids[2]].holds == {HoldType.BATCH}
    states = {n.name: n.state for n in snap.nodes}
    assert states == {"n1": NodeState.RUNNING, "n2": NodeState.BUSY, "n3": NodeState.BUSY,
                      "n4": NodeState.DRAINED}

    failures = a.apply([ReleaseHold(ids[2], HoldType.BATCH, "admin"),
                        start(ids[3], ("n4", Resources(1))),   # offline
                        start(ids[4], ("n2", Resources(1))),   # full
                        start("99.standin", ("n1", Resources(1))),
                        start(ids[0], ("n1", Resources(1)))])  # already running
    assert [f.job_id for f in failures] == [ids[3], ids[4], "99.standin", ids[0]]
    assert "Resource temporarily unavailable" in failures[0].reason and "'n4'" in failures[0].reason
    assert "Resource temporarily unavailable" in failures[1].reason
    assert failures[2].reason == "qrun: Unknown Job Id Error 99.standin"
    assert failures[3].reason == f"qrun: Request invalid for state of job {ids[0]}"
    snap = a.snapshot()
    assert {j.id: j.holds for j in snap.jobs}[ids[2]] == frozenset()
    assert sorted(j.id for j in snap.running()) == sorted(ids[:2])

    assert not (tmp_path / "pwned").exists() and not (tmp_path / "pwned2").exists()
    assert pwned_before or not Path("/tmp/pwned").exists()
    assert not (Path.cwd() / "x").exists()


def test_standin_speaks_torque_exit_codes(torque):
    def run(*argv):
        p = subprocess.run(list(argv), capture_output=True, text=True)
        return p.returncode, p.stderr.strip()

    job = qsub("-l", "nodes=1")
    assert run("qhold", "42.standin") == (153, "qhold: Unknown Job Id Error 42.standin")
    assert run("qrls", "-h", "x", job) == (2, "qrls: illegal -h value")
    assert run("qrun", "-H", "n1", "not-an-id") == (1, "qrun: illegally formed job identifier: not-an-id")
    assert run("qrun", "-H", "nx", job) == (2, f"qrun: Unknown node in hostlist 'nx...' for job {job}")
    assert run("qrun", "-H", "n1", job) == (0, "")
    assert run("qhold", job) == (168, f"qhold: Request invalid for state of job {job}")
    assert run("qalter", "-l", "walltime=1:00:00", job) == (
        167, f"qalter: Cannot modify attribute while job running {job}")
    assert run("pbsnodes", "-o", "n9")[0] == 214
    assert run("qdel", job) == (0, "")
    snap = TorqueAdapter(parse_config("RMCFG[t] TYPE=PBS\n"), "t").snapshot()
    assert snap.jobs == () and all(n.state is not NodeState.RUNNING for n in snap.nodes)
