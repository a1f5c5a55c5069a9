"""SlurmAdapter against a real Slurm 22.05 started by the harness (slurm_cluster.py).

Every job enters held by the repository's job_submit.lua; the adapter must be the only
way a job starts, and only where it says. Run with `-s` to see the measured latencies.
"""

from __future__ import annotations

import pwd
import statistics
import subprocess
import time
import warnings
from pathlib import Path

import pytest

from maui_py.adapters.slurm import SlurmAdapter
from maui_py.model import Hold, HoldType, JobState, ReleaseHold, Reserve, Resources, Start, StartKind
from maui_py.rm import RecordWarning

from .conftest import skip_or_fail

pytestmark = pytest.mark.slurm
TEST_USER = "mauitest"


def start(job_id: str, *nodes: str) -> Start:
    return Start(job_id, tuple((n, Resources.of(1)) for n in nodes), StartKind.IMMEDIATE)


@pytest.fixture
def adapter(slurm):
    a = SlurmAdapter(None, "slurm", slurm_conf=str(slurm.conf))
    yield a
    a.close()


def wait_for(slurm, ids, state="RUNNING", timeout=15.0) -> dict[str, list[str]]:
    deadline = time.monotonic() + timeout
    while True:
        rows = slurm.squeue("%T", "%N", "%r")
        if all(rows.get(i, [""])[0] == state for i in ids):
            return rows
        if time.monotonic() > deadline:
            raise AssertionError(f"not all {state} after {timeout} s: {rows}")
        time.sleep(0.05)


def test_snapshot_matches_sinfo_and_squeue(slurm, adapter):
    job = slurm.submit(["-n", "2", "-J", "snap", "-t", "7"])
    snap = adapter.snapshot()
    rows = slurm.run(["sinfo", "-h", "-N", "-o", "%N|%c|%m|%f|%G|%P|%T"]).stdout.split()
    seen: dict[str, dict] = {}
    for row in rows:
        name, cpus, mem, feat, gres, part, state = row.split("|")
        n = seen.setdefault(name, {"cpus": int(cpus), "mem": int(mem), "feat": {feat},
                                   "gres": gres, "parts": set(), "state": state})
        n["parts"].add(part.rstrip("*"))
    nodes = {n.name: n for n in snap.nodes}
    assert sorted(nodes) == sorted(seen) == slurm.nodes
    for name, want in seen.items():
        node = nodes[name]
        assert node.resources.procs == want["cpus"] and node.resources.mem == want["mem"]
        assert node.features == want["feat"] and node.partitions == want["parts"]
        assert node.resources.gres_count("gpu") == (2 if want["gres"] == "gpu:2" else 0)
        assert node.state.value.lower() == want["state"]          # all idle here
    assert slurm.squeue("%T", "%r")[job] == ["PENDING", "JobHeldUser"]
    j = snap.job(job)
    assert j.state is JobState.IDLE and not j.holds and j.user == "root"
    assert j.request.procs == 2 and j.wallclock == 7 * 60 and j.name == "snap"


def test_jobs_are_gated_until_started_then_run_exactly_where_told(slurm, adapter):
    one = slurm.submit(["-n", "2"])
    two = slurm.submit(["-N", "2", "-n", "4"])
    time.sleep(1.2)                       # Slurm's own loop had its chance to start them
    assert {v[0] for v in slurm.squeue("%T").values()} == {"PENDING"}
    snap = adapter.snapshot()
    assert {snap.job(one).state, snap.job(two).state} == {JobState.IDLE}
    assert adapter.apply([start(one, "node3"), start(two, "node1", "node4")]) == []
    rows = wait_for(slurm, [one, two])
    assert rows[one][1] == "node3" and rows[two][1] == "node[1,4]"
    after = adapter.snapshot()
    assert after.job(one).nodes == ("node3",) and sorted(after.job(two).nodes) == ["node1", "node4"]
    assert after.job(two).request.hostlist == ()          # the pin is not the user's request


def test_array_element_started_alone(slurm, adapter):
    array = slurm.submit(["--array=0-2", "-n", "1"])
    ids = {j.id for j in adapter.snapshot().jobs}
    assert {f"{array}_{t}" for t in range(3)} <= ids
    assert adapter.apply([start(f"{array}_1", "node2")]) == []
    rows = wait_for(slurm, [f"{array}_1"])
    assert rows[f"{array}_1"][1] == "node2"
    snap = {j.id: j.state for j in adapter.snapshot().jobs}
    assert snap[f"{array}_1"] is JobState.RUNNING
    assert snap[f"{array}_0"] is JobState.IDLE and snap[f"{array}_2"] is JobState.IDLE


def test_impossible_pushes_come_back_as_failures_and_can_be_retried(slurm):
    a = SlurmAdapter(None, "slurm", slurm_conf=str(slurm.conf), verify_timeout=5)
    wrong_feature = slurm.submit(["-C", "fast", "-n", "1"])
    too_big = slurm.submit(["-n", "12"])               # nodes have 8 CPUs; pinned to one
    no_gpu = slurm.submit(["--gres=gpu:1", "-n", "1"])
    a.snapshot()
    failures = {f.job_id: f.reason for f in a.apply([
        start(wrong_feature, "node3"), start(too_big, "node1"), start(no_gpu, "node2")])}
    assert sorted(failures) == sorted([wrong_feature, too_big, no_gpu])
    assert all("BadConstraints" in r for r in failures.values()), failures
    snap = a.snapshot()
    assert a.bad_constraints >= {wrong_feature, too_big, no_gpu}
    assert snap.job(wrong_feature).state is JobState.IDLE
    assert snap.job(too_big).request.hostlist == ()     # the failed pin is not kept as a request
    assert a.apply([start(wrong_feature, "node1"), start(no_gpu, "node4")]) == []
    wait_for(slurm, [wrong_feature, no_gpu])


@pytest.fixture(scope="module")
def test_user():
    try:
        pwd.getpwnam(TEST_USER)
        created = False
    except KeyError:
        p = subprocess.run(["useradd", "--no-create-home", "--shell", "/bin/sh", TEST_USER],
                           capture_output=True, text=True)
        if p.returncode != 0:
            skip_or_fail(f"cannot create user {TEST_USER}: {p.stderr.strip()}")
        created = True
    yield TEST_USER
    if created:
        subprocess.run(["userdel", TEST_USER], capture_output=True)


def test_users_cannot_release_their_own_gated_jobs(slurm, adapter, test_user):
    job = slurm.submit(["-n", "1", "-J", "mine"], user=test_user)
    for argv in (["scontrol", "release", job], ["scontrol", "update", f"JobId={job}", "Priority=100"],
                 ["scontrol", "update", f"JobId={job}", "AdminComment=maui-py:nodes=node1;min=1;max=1"]):
        p = slurm.run(argv, user=test_user, check=False)
        assert p.returncode != 0, (argv, p.stdout, p.stderr)
    time.sleep(1.0)
    assert slurm.squeue("%T", "%r", "%u")[job] == ["PENDING", "JobHeldUser", test_user]
    assert adapter.apply([start(job, "node2")]) == []
    assert wait_for(slurm, [job])[job][1] == "node2"


def test_hold_and_release_hold_never_start_a_job(slurm, adapter):
    job = slurm.submit(["-n", "1"])
    adapter.snapshot()
    assert adapter.apply([Hold(job, HoldType.BATCH, "policy")]) == []
    assert slurm.squeue("%r")[job] == ["JobHeldAdmin"]
    assert adapter.snapshot().job(job).holds == {HoldType.BATCH}
    adapter.apply([ReleaseHold(job, HoldType.BATCH, "ok")])
    time.sleep(1.0)
    assert slurm.squeue("%T", "%r")[job] == ["PENDING", "JobHeldUser"]
    assert not adapter.snapshot().job(job).holds


def test_mirrored_reservation_is_created_and_removed_when_the_job_starts(slurm):
    a = SlurmAdapter(None, "slurm", slurm_conf=str(slurm.conf), mirror_reservations=True)
    job = slurm.submit(["-n", "1"])
    now = int(time.time())
    a.snapshot()
    a.apply([Reserve(job, now + 600, now + 2400, (("node1", Resources.of(8)), ("node2", Resources.of(8))))])
    shown = slurm.run(["scontrol", "show", "reservation", "-o"]).stdout
    assert f"ReservationName=maui.{job} " in shown and "Nodes=node[1-2] " in shown
    assert a.snapshot().reservations == ()
    assert a.apply([start(job, "node1")]) == []
    wait_for(slurm, [job])
    assert f"maui.{job}" not in slurm.run(["scontrol", "show", "reservation", "-o"]).stdout


HOSTILE = ["$(touch /tmp/pwned)", ";rm -rf /", "a'b\"c", "line1\nline2", "`touch /tmp/pwned`",
           "x UserId=root(0) JobId=1", "evil\nJobId=1 JobName=x UserId=root(0)", "|| touch /tmp/pwned"]


def test_hostile_job_names_are_data_not_commands(slurm, adapter):
    pwned = Path("/tmp/pwned")
    pwned.unlink(missing_ok=True)
    ids = {slurm.submit(["-J", name, "-n", "1", "--comment", name]): name for name in HOSTILE}
    snap = adapter.snapshot()
    assert {i: snap.job(i).name for i in ids} == ids
    fallback = SlurmAdapter(None, "slurm", slurm_conf=str(slurm.conf))
    fallback.json = False                                   # the scontrol show -o path
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RecordWarning)
        text_jobs = {j.id: j for j in fallback.snapshot().jobs}
    assert set(text_jobs) <= set(ids)                       # no record made up by a name
    assert all(text_jobs[i].name == ids[i] for i in text_jobs)
    nodes = [slurm.nodes[k % len(slurm.nodes)] for k in range(len(ids))]
    assert adapter.apply([start(i, n) for i, n in zip(ids, nodes)]) == []
    wait_for(slurm, list(ids))
    assert not pwned.exists()


def test_release_to_running_latency_and_snapshot_time(slurm, adapter):
    ids = [slurm.submit(["-n", "1", "-J", f"lat{k}"]) for k in range(10)]
    t0 = time.perf_counter()
    for _ in range(5):
        adapter.snapshot()
    snap_ms = (time.perf_counter() - t0) / 5 * 1000
    t_apply = time.perf_counter()
    assert adapter.apply([start(j, slurm.nodes[k % 4]) for k, j in enumerate(ids)]) == []
    apply_ms = (time.perf_counter() - t_apply) * 1000
    running: dict[str, float] = {}
    deadline = time.monotonic() + 15
    while len(running) < len(ids) and time.monotonic() < deadline:
        states = slurm.squeue("%T")
        for j in ids:
            if j not in running and states.get(j, [""])[0] == "RUNNING":
                running[j] = time.perf_counter() - t_apply
        time.sleep(0.02)
    assert len(running) == len(ids), f"only {len(running)} of {len(ids)} running"
    lat = sorted(running.values())
    print(f"\nslurm live: snapshot {snap_ms:.0f} ms (mean of 5, {len(ids)} jobs, 4 nodes); "
          f"apply of {len(ids)} starts {apply_ms:.0f} ms; release->RUNNING median "
          f"{statistics.median(lat):.2f} s (min {lat[0]:.2f}, max {lat[-1]:.2f}); "
          f"cluster start-up {slurm.startup_seconds:.2f} s")


OWNER_CHANGES = {
    "node list": ["NodeList=node3"], "excluded nodes": ["ExcNodeList=node2"],
    "node count": ["NumNodes=2"], "task count": ["NumTasks=2"], "CPU count": ["NumCPUs=2"],
    "CPUs per node": ["MinCPUsNode=4"], "CPUs per task": ["CPUsPerTask=2"],
    "memory per node": ["MinMemoryNode=300"], "memory per CPU": ["MinMemoryCPU=300"],
    "partition": ["Partition=debug"], "time limit": ["TimeLimit=5"],
    "minimum time": ["TimeMin=2"], "features": ["Features=slow"], "gres": ["Gres=gpu:1"],
}
"""One owner's `scontrol update` per planned property of a released job (issue 34 item 10)."""


def _job_fields(slurm, job: str) -> dict[str, str]:
    text = slurm.run(["scontrol", "show", "job", "-o", job]).stdout
    keys = ("ReqNodeList", "ExcNodeList", "NumNodes", "NumCPUs", "NumTasks", "CPUs/Task",
            "MinCPUsNode", "MinMemoryNode", "MinMemoryCPU", "Partition", "TimeLimit", "TimeMin",
            "Features", "TresPerNode", "TRES")
    out = {}
    for token in text.split():
        key, eq, value = token.partition("=")
        if eq and key in keys:
            out[key] = value
    return out


def test_owner_cannot_reshape_a_released_job_before_it_starts(slurm, adapter, test_user):
    """Released onto a busy pinned node, the job waits (Reason=Resources); its owner's
    changes to what maui-py planned are refused one by one, root's are not, and the job
    then starts where and as maui-py planned."""
    blocker = slurm.submit(["-n", "8", "-J", "blocker"])
    job = slurm.submit(["-n", "1", "-t", "10", "-J", "planned"], user=test_user)
    adapter.snapshot()
    assert adapter.apply([Start(blocker, (("node2", Resources.of(8)),), StartKind.IMMEDIATE)]) == []
    wait_for(slurm, [blocker])
    owner_ok = slurm.run(["scontrol", "update", f"JobId={job}", "TimeLimit=9"], user=test_user,
                         check=False)
    assert owner_ok.returncode == 0, owner_ok.stderr     # at the gate, the owner may change it
    assert adapter.apply([start(job, "node2")]) == []
    time.sleep(1.0)
    assert slurm.squeue("%T", "%u")[job] == ["PENDING", test_user]
    assert slurm.squeue("%r")[job] != ["JobHeldUser"]       # released, waiting for node2
    before = _job_fields(slurm, job)
    accepted = {}
    for what, args in OWNER_CHANGES.items():
        p = slurm.run(["scontrol", "update", f"JobId={job}", *args], user=test_user, check=False)
        if p.returncode == 0:
            accepted[what] = args
    assert accepted == {}, f"the owner changed a released job: {accepted}"
    assert _job_fields(slurm, job) == before
    comment = slurm.run(["scontrol", "update", f"JobId={job}", "Comment=still-mine"],
                        user=test_user, check=False)
    assert comment.returncode == 0, comment.stderr      # what maui-py did not plan stays open
    assert slurm.run(["scontrol", "update", f"JobId={job}", "TimeLimit=8"]).returncode == 0
    assert _job_fields(slurm, job)["TimeLimit"] == "00:08:00"   # root (the scheduler) still may
    slurm.run(["scancel", blocker])
    rows = wait_for(slurm, [job])
    assert rows[job][1] == "node2"
    assert _job_fields(slurm, job)["NumCPUs"] == "1"
