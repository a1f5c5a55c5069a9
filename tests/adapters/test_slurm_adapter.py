"""SlurmAdapter with a recording fake runner: the exact commands, the scontrol stdin text,
how Slurm's answers turn into StartFailures and RMErrors."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from maui_py.adapters.slurm import SlurmAdapter
from maui_py.adapters.slurm.batch import MARK
from maui_py.adapters.slurm.values import epoch
from maui_py.cfg.loader import parse_config
from maui_py.model import (
    Hold, HoldType, JobState, ReleaseHold, Reserve, Resources, Start, StartKind,
)
from maui_py.rm import RMError, StartFailure
from maui_py.rm.registry import create
from maui_py.rm.runner import Result

DATA = Path(__file__).parent / "data" / "slurm"
NOW = 1795278010
PARTITIONS = ("PartitionName=batch AllowGroups=ALL Default=YES DefaultTime=NONE MaxNodes=UNLIMITED "
              "MaxTime=UNLIMITED MinNodes=0 Nodes=node[1-4] State=UP\n"
              "PartitionName=debug AllowGroups=ALL Default=NO DefaultTime=NONE MaxNodes=UNLIMITED "
              "MaxTime=01:00:00 MinNodes=0 Nodes=node[1-2] State=UP\n")


def sample(name: str) -> str:
    return (DATA / name).read_text()


class FakeSlurm:
    """A runner that records every call and answers like Slurm 22.05.

    outputs: argv tuple -> Result fields (or a callable(argv, input) -> Result);
    errors: regex -> stderr text for scontrol stdin commands that fail.
    """

    def __init__(self, outputs=None, errors=None):
        self.calls: list[dict] = []
        self.outputs = {
            ("sinfo", "--all", "--json"): (0, sample("sinfo-holdmode.json"), ""),
            ("squeue", "--all", "--json"): (0, sample("squeue-holdmode.json"), ""),
            ("scontrol", "show", "reservation", "-o"): (0, "No reservations in the system\n", ""),
            ("scontrol", "show", "partition", "-o"): (0, PARTITIONS, ""),
            **(outputs or {}),
        }
        self.errors = errors or {}

    def __call__(self, argv, *, input=None, timeout=30.0, env=None):
        assert isinstance(argv, list) and all(isinstance(a, str) for a in argv)
        self.calls.append({"argv": argv, "input": input, "timeout": timeout, "env": env})
        if argv == ["scontrol"]:
            return self._scontrol(argv, input)
        answer = self.outputs[tuple(argv)]
        if callable(answer):
            return answer(argv, input)
        if isinstance(answer, Exception):
            raise answer
        rc, out, err = answer
        return Result(tuple(argv), rc, out, err)

    def _scontrol(self, argv, script):
        err = []
        for line in script.splitlines():
            if line.startswith(MARK):
                err.append(f"invalid keyword: {line}")
                continue
            for pattern, message in self.errors.items():
                if re.fullmatch(pattern, line):
                    err.append(message)
        return Result(tuple(argv), 1 if len(err) > script.count(MARK) else 0, "", "\n".join(err) + "\n")

    def scontrol_inputs(self) -> list[str]:
        return [c["input"] for c in self.calls if c["argv"] == ["scontrol"]]

    def argvs(self) -> list[list[str]]:
        return [c["argv"] for c in self.calls]


def cfg(extra: str = ""):
    return parse_config(f"RMCFG[slurm] TYPE=SLURM {extra}\n")


def adapter(fake, extra: str = "", **kw) -> SlurmAdapter:
    return SlurmAdapter(cfg(extra), "slurm", runner=fake, clock=lambda: NOW + 0.7, **kw)


def start(job_id: str, *nodes: str) -> Start:
    return Start(job_id, tuple((n, Resources.of(4, 400)) for n in nodes), StartKind.IMMEDIATE)


def script(*commands: str) -> str:
    lines = []
    for i, c in enumerate(commands):
        lines += [f"{MARK}{i}", c]
    return "\n".join(lines + [f"{MARK}{len(commands)}"]) + "\n"


# ------------------------------------------------------------------ snapshot
def test_snapshot_runs_json_commands_with_rmcfg_timeout_and_conf():
    fake = FakeSlurm()
    a = adapter(fake, "TIMEOUT=45 CONFIGFILE=/etc/slurm-test/slurm.conf")
    snap = a.snapshot()
    assert fake.argvs() == [["sinfo", "--all", "--json"], ["squeue", "--all", "--json"],
                            ["scontrol", "show", "partition", "-o"],
                            ["scontrol", "show", "reservation", "-o"]]
    assert {c["timeout"] for c in fake.calls} == {45.0}
    assert {c["env"]["SLURM_CONF"] for c in fake.calls} == {"/etc/slurm-test/slurm.conf"}
    assert snap.now == NOW and snap.seq == 1 and len(snap.nodes) == 4
    assert sorted(j.id for j in snap.jobs) == ["10", "11", "12", "13", "14", "8", "9"]
    assert a.bad_constraints == {"12"}
    assert a.snapshot().seq == 2


def test_default_timeout_and_inherited_environment():
    fake = FakeSlurm()
    adapter(fake).snapshot()
    assert {c["timeout"] for c in fake.calls} == {30.0} and {c["env"] for c in fake.calls} == {None}


def test_registry_builds_the_adapter_from_rmcfg():
    assert isinstance(create(cfg(), "slurm"), SlurmAdapter)


@pytest.mark.parametrize("answer", [(1, "", "squeue: error: Unable to contact slurm controller"),
                                    RMError("squeue: no answer within 30 s")])
def test_a_failing_command_is_an_rmerror(answer):
    fake = FakeSlurm({("squeue", "--all", "--json"): answer})
    with pytest.raises(RMError):
        adapter(fake).snapshot()


def test_output_that_is_not_json_is_an_rmerror():
    fake = FakeSlurm({("sinfo", "--all", "--json"): (0, "<html>", "")})
    with pytest.raises(RMError, match="not JSON"):
        adapter(fake).snapshot()


def test_fallback_to_scontrol_when_json_is_unknown_is_found_once():
    no_json = (1, "", "squeue: unrecognized option '--json'\nTry \"squeue --help\"")
    fake = FakeSlurm({
        ("sinfo", "--all", "--json"): (1, "", "sinfo: unrecognized option '--json'"),
        ("squeue", "--all", "--json"): no_json,
        ("scontrol", "--all", "show", "node", "-o"): (0, sample("scontrol-show-node-o-holdmode.txt"), ""),
        ("squeue", "--all", "-h", "-t", "all", "-o", "%A"): (0, "8\n9\n10\n11\n12\n13\n14\n3\n4\n7\n", ""),
        ("scontrol", "--all", "show", "job", "-o"): (0, sample("scontrol-show-job-o-holdmode.txt"), ""),
    })
    a = adapter(fake)
    first = a.snapshot()
    assert a.json is False
    fake.calls.clear()
    second = a.snapshot()
    assert ["sinfo", "--all", "--json"] not in fake.argvs()
    assert ["squeue", "--all", "--json"] not in fake.argvs()
    assert first.jobs == second.jobs and sorted(j.id for j in second.jobs) == [
        "10", "11", "12", "13", "14", "8", "9"]
    assert a.bad_constraints == {"12"}


# ------------------------------------------------------------------ apply: starts
def test_batch_of_starts_goes_through_two_scontrol_runs_with_exact_stdin():
    fake = FakeSlurm()
    a = adapter(fake)
    a.snapshot()
    fake.calls.clear()
    failures = a.apply([start("11", "node2"), start("10", "node3"),
                        start("14", "node1", "node2", "node3")])
    assert failures == []
    assert fake.argvs() == [["scontrol"], ["scontrol"]]
    assert fake.scontrol_inputs() == [
        script("update JobId=11 NodeList=node2 NumNodes=1-1",
               "update JobId=10 NodeList=node3 NumNodes=1-1",
               "update JobId=14 NodeList=node[1-3] NumNodes=3-3"),
        script("release 11", "release 10", "release 14"),
    ]


def test_refused_update_is_a_start_failure_and_that_job_is_not_released():
    fake = FakeSlurm(errors={
        r"update JobId=11 .*": "Invalid node name specified for job 11",
        r"release 14": "Invalid job id specified for job 14\nslurm_suspend error: Invalid job id specified",
    })
    a = adapter(fake)
    failures = a.apply([start("11", "nodeX"), start("10", "node3"), start("14", "node1")])
    assert failures == [
        StartFailure("11", "Invalid node name specified for job 11"),
        StartFailure("14", "Invalid job id specified for job 14; slurm_suspend error: Invalid job id specified"),
    ]
    assert fake.scontrol_inputs()[1] == script("release 10", "release 14")


def test_scontrol_that_reads_nothing_is_an_rmerror():
    def broken(argv, input):
        return Result(tuple(argv), 1, "", "scontrol: error: resolve_ctls_from_dns_srv: no SRV\n")
    fake = FakeSlurm()
    fake._scontrol = broken
    with pytest.raises(RMError, match="did not read its commands"):
        adapter(fake).apply([start("11", "node1")])


def test_scontrol_dying_midway_fails_the_unanswered_commands():
    def dies(argv, input):
        return Result(tuple(argv), 137, "", f"invalid keyword: {MARK}0\ninvalid keyword: {MARK}1\n")
    fake = FakeSlurm()
    fake._scontrol = dies
    failures = adapter(fake).apply([start("11", "node1"), start("10", "node2")])
    assert failures == [StartFailure("10", "no answer from scontrol for this command")]


@pytest.mark.parametrize("bad_id", ["12; rm -rf /", "$(touch /tmp/pwned)", "1\nrelease 2", "abc", "", "12_"])
def test_job_ids_that_are_not_slurm_ids_are_refused_and_never_sent(bad_id):
    fake = FakeSlurm()
    failures = adapter(fake).apply([start(bad_id, "node1"), start("11", "node2")])
    assert failures == [StartFailure(bad_id, f"refused: {bad_id!r} is not a Slurm job id")]
    assert all(bad_id not in text for text in fake.scontrol_inputs()) or bad_id == ""
    assert fake.scontrol_inputs()[1] == script("release 11")


def test_node_names_and_empty_allocations_are_checked():
    failures = adapter(FakeSlurm()).apply([start("11", "node1\nrelease 12"), start("10")])
    assert [f.reason for f in failures] == ["refused: 'node1\\nrelease 12' is not a node name",
                                            "refused: no nodes in the allocation"]


def test_array_element_ids_pass():
    fake = FakeSlurm()
    assert adapter(fake).apply([start("21_3", "node1")]) == []
    assert fake.scontrol_inputs() == [script("update JobId=21_3 NodeList=node1 NumNodes=1-1"),
                                      script("release 21_3")]


def test_running_jobs_are_not_pushed_again():
    a = adapter(FakeSlurm())
    a.snapshot()
    assert a.apply([start("8", "node2")]) == [StartFailure("8", "refused: the job is already running")]


# ------------------------------------------------------------------ holds
def test_holds_are_admin_holds_and_come_back_with_the_type_we_set():
    fake = FakeSlurm()
    a = adapter(fake)
    assert a.apply([Hold("11", HoldType.BATCH, "policy"), Hold("14", HoldType.DEFER, "defer")]) == []
    assert fake.scontrol_inputs() == [script("hold 11")]
    held = json.loads(sample("squeue-holdmode.json"))
    for j in held["jobs"]:
        if j["job_id"] in (11, 14):
            j["state_reason"] = "JobHeldAdmin"
    fake.outputs[("squeue", "--all", "--json")] = (0, json.dumps(held), "")
    jobs = {j.id: j for j in a.snapshot().jobs}
    assert jobs["11"].holds == {HoldType.BATCH}       # ours
    assert jobs["14"].holds == {HoldType.SYSTEM}      # somebody else's scontrol hold


def test_release_in_hold_all_mode_goes_back_to_the_gate_never_starts():
    fake = FakeSlurm()
    adapter(fake).apply([ReleaseHold("11", HoldType.BATCH, "ok")])
    assert fake.scontrol_inputs() == [script("uhold 11")]


def test_release_outside_hold_all_mode_only_for_holds_we_set():
    fake = FakeSlurm()
    a = adapter(fake, hold_all=False)
    a.apply([ReleaseHold("5", HoldType.USER, "not ours")])
    assert fake.scontrol_inputs() == []
    a.apply([Hold("6", HoldType.SYSTEM, "x")])
    a.apply([ReleaseHold("6", HoldType.SYSTEM, "ours")])
    assert fake.scontrol_inputs() == [script("hold 6"), script("release 6")]


# ------------------------------------------------------------------ verify
def _squeue_with(job_id: int, **fields) -> str:
    doc = json.loads(sample("squeue-holdmode.json"))
    for j in doc["jobs"]:
        if j["job_id"] == job_id:
            j.update(fields)
    return json.dumps(doc)


class Clock:
    def __init__(self):
        self.t = float(NOW)

    def __call__(self):
        return self.t

    def sleep(self, s):
        self.t += max(s, 0.05)


def test_verify_reports_bad_constraints_and_regates_jobs_still_pending():
    answers = [_squeue_with(11, priority=99, state_reason="None"),
               _squeue_with(11, priority=0, state_reason="BadConstraints")]
    polls = []

    def squeue(argv, _):
        polls.append(clock.t)
        return Result(tuple(argv), 0, answers[min(len(polls), 2) - 1], "")
    clock = Clock()
    fake = FakeSlurm({("squeue", "--all", "--json"): squeue})
    a = SlurmAdapter(cfg(), "slurm", runner=fake, clock=clock, sleep=clock.sleep,
                     verify_timeout=1.0, read_reservations=False)
    failures = a.apply([start("11", "node1"), start("10", "node3")])
    assert failures == [StartFailure("11", "Slurm: BadConstraints (the nodes cannot run this job)"),
                        StartFailure("10", "still pending after 1 s (Reason=JobHeldUser)")]
    assert fake.scontrol_inputs()[-1] == script("uhold 10")
    assert 3 <= len(polls) <= 7 and clock.t - NOW <= 1.3


def test_verify_is_quiet_when_jobs_run():
    running = json.loads(sample("squeue-holdmode.json"))
    for j in running["jobs"]:
        if j["job_id"] == 11:
            j.update(job_state="RUNNING", state_reason="None", priority=5)
    clock = Clock()
    fake = FakeSlurm({("squeue", "--all", "--json"): (0, json.dumps(running), "")})
    a = SlurmAdapter(cfg(), "slurm", runner=fake, clock=clock, sleep=clock.sleep, verify_timeout=5)
    assert a.apply([start("11", "node1")]) == []
    assert clock.t - NOW < 1


# ------------------------------------------------------------------ reservation mirrors
def test_mirrors_are_created_deleted_before_release_and_read_back():
    fake = FakeSlurm()
    a = adapter(fake, mirror_reservations=True)
    reserve = Reserve("11", NOW + 600, NOW + 600 + 1800, (("node1", Resources.of(8)), ("node2", Resources.of(8))))
    assert a.apply([reserve]) == []
    when = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(NOW + 600))
    assert fake.scontrol_inputs() == [script(
        f"create reservation ReservationName=maui.11 StartTime={when} Duration=30 "
        f"Nodes=node[1-2] Users=root Flags=IGNORE_JOBS")]
    fake.calls.clear()
    a.apply([reserve])
    assert fake.scontrol_inputs() == []                      # unchanged: nothing sent
    a.apply([start("11", "node1", "node2")])
    assert fake.scontrol_inputs() == [
        script("update JobId=11 NodeList=node[1-2] NumNodes=2-2", "delete ReservationName=maui.11"),
        script("release 11")]


def test_mirrors_found_in_slurm_after_a_restart_are_managed():
    resv = sample("scontrol-show-reservation-o.txt").replace("maui.r", "maui.2")
    fake = FakeSlurm({("scontrol", "show", "reservation", "-o"): (0, resv, "")})
    a = adapter(fake, mirror_reservations=True)
    assert a.snapshot().reservations == ()                   # maui.* are ours, not input
    fake.calls.clear()
    keep = Reserve("24", epoch("2026-11-21T17:07:08"), epoch("2026-11-21T17:37:08"),
                   (("node1", Resources.of(4)),))
    assert a.apply([keep]) == []
    assert fake.scontrol_inputs() == [script("delete ReservationName=maui.21",
                                             "delete ReservationName=maui.23",
                                             "delete ReservationName=maui.25")]


def test_reservations_named_like_ours_but_not_ours_are_left_alone():
    resv = sample("scontrol-show-reservation-o.txt")         # maui.r1 ...: not job ids
    fake = FakeSlurm({("scontrol", "show", "reservation", "-o"): (0, resv, "")})
    a = adapter(fake, mirror_reservations=True)
    names = sorted(r.name for r in a.snapshot().reservations)
    assert names == ["maui.r1", "maui.r3", "maui.r4", "maui.r5"]      # site reservations
    a.apply([])
    assert fake.scontrol_inputs() == []


def test_close_stops_further_commands():
    a = adapter(FakeSlurm())
    a.close()
    with pytest.raises(RMError, match="closed"):
        a.snapshot()


def test_snapshot_states_for_gate_and_starting():
    fake = FakeSlurm({("squeue", "--all", "--json"): (0, _squeue_with(10, priority=9, state_reason="Resources"), "")})
    jobs = {j.id: j for j in adapter(fake).snapshot().jobs}
    assert jobs["10"].state is JobState.STARTING and jobs["10"].nodes == ("node3",)
    assert jobs["11"].state is JobState.IDLE and not jobs["11"].holds


def test_slurm_settings_come_from_rmcfg_and_keywords_override_them():
    knobs = lambda a: (a.hold_all, a.verify_timeout, a.mirror_reservations, a.read_reservations)  # noqa: E731
    assert knobs(adapter(FakeSlurm())) == (True, 0.0, False, True)
    assert knobs(SlurmAdapter(None, "slurm", runner=FakeSlurm())) == (True, 0.0, False, True)
    text = "HOLDALL=FALSE VERIFYTIMEOUT=00:00:05 MIRRORRESERVATIONS=TRUE READRESERVATIONS=FALSE"
    assert knobs(adapter(FakeSlurm(), text)) == (False, 5.0, True, False)
    assert knobs(adapter(FakeSlurm(), text, hold_all=True, verify_timeout=1)) == (True, 1.0, True, False)
