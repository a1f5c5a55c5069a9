"""TorqueAdapter against a real Torque 6.1 started by the harness (torque_cluster.py).

pbs_server runs with scheduling off: a job starts only when someone runs qrun, so the
adapter is the only way a job starts here, and only where it says. Run with `-s` to see the
measured latencies.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import pytest

from maui_py.adapters.torque import TorqueAdapter
from maui_py.adapters.torque.values import exec_host
from maui_py.cfg import parse_config
from maui_py.model import Hold, HoldType, JobState, NodeState, ReleaseHold, Resources, Start, StartKind


def start(job_id: str, *nodes: str, procs: int = 1) -> Start:
    return Start(job_id, tuple((n, Resources.of(procs)) for n in nodes), StartKind.IMMEDIATE)


@pytest.fixture
def adapter(torque):
    return TorqueAdapter(parse_config("RMCFG[torque] TYPE=PBS TIMEOUT=20\n"), "torque",
                         runner=torque.runner)


def wait_running(torque, ids, timeout=15.0) -> dict[str, tuple[str, str]]:
    """{job: (state, exec_host)} once every job in `ids` is R."""
    def all_running():
        states = torque.states()
        return states if all(states.get(i, ("",))[0] == "R" for i in ids) else None
    return torque.wait(all_running, timeout, f"{ids} running")


def hosts(exec_host_text: str) -> dict[str, int]:
    return dict(exec_host(exec_host_text))


def test_snapshot_matches_pbsnodes_and_qstat(torque, adapter):
    queued = torque.qsub(["-N", "snap", "-l", "nodes=1:ppn=2,walltime=00:07:00,mem=300mb"])
    held = torque.qsub(["-h", "-N", "held", "-l", "nodes=2:ppn=1"])
    running = torque.qsub(["-N", "run", "-l", "nodes=2:ppn=3,walltime=120"])
    torque.run(["qrun", "-H", f"{torque.nodes[1]}:ppn=3+{torque.nodes[2]}:ppn=3", running])
    wait_running(torque, [running])
    snap = adapter.snapshot()
    nodes = {n.name: n for n in snap.nodes}
    assert sorted(nodes) == sorted(torque.nodes)
    for name, node in nodes.items():
        assert node.resources.procs == torque.np and node.resources.mem > 0
        busy = name in torque.nodes[1:3]
        assert node.state is (NodeState.RUNNING if busy else NodeState.IDLE), (name, node.state)
    q, h, r = snap.job(queued), snap.job(held), snap.job(running)
    assert q.state is JobState.IDLE and not q.holds and q.name == "snap" and q.user == torque.user
    assert (q.request.tasks, q.request.nodes, q.request.tasks_per_node) == (2, 1, 2)
    assert q.request.per_task.mem == 150 and q.wallclock == 420 and q.class_ == "batch"
    assert h.state is JobState.IDLE and h.holds == {HoldType.USER}
    assert (h.request.tasks, h.request.nodes) == (2, 2) and h.wallclock == 3600  # queue default
    assert r.state is JobState.RUNNING and r.wallclock == 120
    assert dict((n, res.procs) for n, res in r.allocation) == {torque.nodes[1]: 3, torque.nodes[2]: 3}
    assert abs(r.start_time - time.time()) < 30


def test_starts_run_exactly_where_told(torque, adapter):
    one = torque.qsub(["-l", "nodes=1:ppn=2"])
    two = torque.qsub(["-l", "nodes=2:ppn=2"])
    anywhere = torque.qsub(["-l", "procs=3"])
    time.sleep(1.0)
    assert {s for s, _ in torque.active().values()} == {"Q"}    # nothing starts on its own
    snap = adapter.snapshot()
    assert snap.job(anywhere).request.tasks == 3
    n1, n2, n3, n4 = torque.nodes
    assert adapter.apply([start(one, n3, procs=2), start(two, n1, n4, procs=2),
                          Start(anywhere, ((n2, Resources.of(2)), (n3, Resources.of(1))),
                                StartKind.IMMEDIATE)]) == []
    rows = wait_running(torque, [one, two, anywhere])
    assert hosts(rows[one][1]) == {n3: 2}
    assert hosts(rows[two][1]) == {n1: 2, n4: 2}
    assert hosts(rows[anywhere][1]) == {n2: 2, n3: 1}
    after = adapter.snapshot()
    assert sorted(after.job(two).nodes) == sorted([n1, n4])
    assert after.job(two).request.hostlist == ()          # the placement is not the user's request


def test_array_element_started_alone(torque, adapter):
    parent = torque.qsub(["-t", "0-2", "-l", "nodes=1:ppn=1"])
    assert parent.split(".")[0].endswith("[]")
    base, _, server = parent.partition(".")
    ids = {j.id for j in adapter.snapshot().jobs}
    elems = [f"{base[:-2]}[{t}].{server}" for t in range(3)]
    assert set(elems) <= ids and parent not in ids
    assert adapter.apply([start(elems[1], torque.nodes[1])]) == []
    wait_running(torque, [elems[1]])
    snap = {j.id: j.state for j in adapter.snapshot().jobs}
    assert snap[elems[1]] is JobState.RUNNING
    assert snap[elems[0]] is JobState.IDLE and snap[elems[2]] is JobState.IDLE


def test_refused_qrun_comes_back_as_a_failure_and_the_job_stays_queued(torque, adapter):
    job = torque.qsub(["-l", "nodes=1:ppn=1"])
    too_big = torque.qsub(["-l", "nodes=1:ppn=2"])
    adapter.snapshot()                                   # decided while every node was free
    torque.set_offline(torque.nodes[1])                  # ... then a node goes offline
    busy = torque.qsub(["-l", "nodes=1:ppn=4"])
    assert adapter.apply([start(busy, torque.nodes[2], procs=4)]) == []
    failures = {f.job_id: f.reason for f in adapter.apply([
        start(job, torque.nodes[1]), start(too_big, torque.nodes[2], procs=2)])}
    assert sorted(failures) == sorted([job, too_big])
    assert all("qrun" in r and "available" in r for r in failures.values()), failures
    snap = adapter.snapshot()
    assert snap.job(job).state is JobState.IDLE and snap.job(too_big).state is JobState.IDLE
    assert {n.name: n.state for n in snap.nodes}[torque.nodes[1]] is NodeState.DRAINED
    assert adapter.apply([start(job, torque.nodes[0]), start(too_big, torque.nodes[3], procs=2)]) == []
    rows = wait_running(torque, [job, too_big])
    assert hosts(rows[job][1]) == {torque.nodes[0]: 1}


def test_hold_and_release_only_what_the_adapter_set(torque, adapter):
    job = torque.qsub(["-l", "nodes=1:ppn=1"])
    users = torque.qsub(["-h", "-l", "nodes=1:ppn=1"])
    adapter.snapshot()
    assert adapter.apply([Hold(job, HoldType.BATCH, "policy"), Hold(users, HoldType.BATCH, "policy")]) == []
    states = torque.states()
    assert states[job][0] == "H"
    snap = adapter.snapshot()
    assert snap.job(job).holds == {HoldType.BATCH}
    assert snap.job(users).holds == {HoldType.USER, HoldType.BATCH}
    p = torque.run(["qrls", "-h", "s", job], user=torque.user, check=False)
    assert p.returncode != 0                              # a user cannot lift the scheduler's hold
    assert torque.states()[job][0] == "H"
    adapter.apply([ReleaseHold(job, HoldType.BATCH, "ok"), ReleaseHold(users, HoldType.BATCH, "ok")])
    time.sleep(0.5)
    assert torque.states()[job][0] == "Q" and torque.states()[users][0] == "H"
    snap = adapter.snapshot()
    assert not snap.job(job).holds and snap.job(users).holds == {HoldType.USER}
    assert torque.states()[job][0] == "Q"                 # a release never starts a job


# qsub refuses names with white space or a first character that is not a letter; these
# pass it and reach qstat's XML escaped.
HOSTILE = ["x$(touch${IFS}/tmp/pwned)", "x;rm${IFS}-rf${IFS}/", "x`touch${IFS}/tmp/pwned`",
           "x||touch${IFS}/tmp/pwned", "a'b\"c", "x<y>&z", "x</Job_Name><Job_Id>1.evil</Job_Id>",
           "x+y:ppn=9", "x,Job_Owner=root@localhost"]


def test_hostile_job_names_are_data_not_commands(torque, adapter):
    pwned = Path("/tmp/pwned")
    pwned.unlink(missing_ok=True)
    ids = {torque.qsub(["-N", name, "-A", name, "-l", "nodes=1:ppn=1"]): name for name in HOSTILE}
    snap = adapter.snapshot()
    assert {i: snap.job(i).name for i in ids} == ids
    assert {i: snap.job(i).account for i in ids} == ids
    assert {j.id for j in snap.jobs} == set(ids)            # no record made up by a name
    assert {snap.job(i).user for i in ids} == {torque.user}
    nodes = [torque.nodes[k % len(torque.nodes)] for k in range(len(ids))]
    assert adapter.apply([start(i, n) for i, n in zip(ids, nodes)]) == []
    wait_running(torque, list(ids))
    assert not pwned.exists()


def test_start_to_running_latency_and_snapshot_time(torque, adapter):
    ids = [torque.qsub(["-N", f"lat{k}", "-l", "nodes=1:ppn=1"]) for k in range(12)]
    t0 = time.perf_counter()
    for _ in range(5):
        adapter.snapshot()
    snap_ms = (time.perf_counter() - t0) / 5 * 1000
    t_apply = time.perf_counter()
    assert adapter.apply([start(j, torque.nodes[k % 4]) for k, j in enumerate(ids)]) == []
    apply_ms = (time.perf_counter() - t_apply) * 1000
    running: dict[str, float] = {}
    deadline = time.monotonic() + 15
    while len(running) < len(ids) and time.monotonic() < deadline:
        for j, (state, _) in torque.states().items():
            if j in ids and j not in running and state == "R":
                running[j] = time.perf_counter() - t_apply
        time.sleep(0.02)
    assert len(running) == len(ids), f"only {len(running)} of {len(ids)} running"
    lat = sorted(running.values())
    print(f"\ntorque live: snapshot {snap_ms:.0f} ms (mean of 5, {len(ids)} jobs, 4 nodes); "
          f"apply of {len(ids)} qrun {apply_ms:.0f} ms; qrun->R in qstat median "
          f"{statistics.median(lat):.2f} s (min {lat[0]:.2f}, max {lat[-1]:.2f}); "
          f"Torque start-up {torque.startup_seconds:.1f} s")
