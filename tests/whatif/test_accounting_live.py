"""Accounting as sites run it, end to end (issue 16): a real Slurm with slurmdbd and MariaDB
(tests/whatif/accounting_cluster.py), a few dozen jobs of several users and accounts, `sacct`
read by the importer, the workload replayed; its jobs, users, sizes and limits must match what
was submitted. The jobcomp/filetxt log of the same jobs is read as well.

Needs root and Debian's slurm-wlm, munge, slurmdbd and mariadb-server: skipped locally when
missing, a failure when CI is set. With MAUI_WHATIF_CAPTURE=DIR the raw outputs are kept
there (that is how tests/adapters/data/sacct/*-live.txt were made).
"""

from __future__ import annotations

import os
import pwd
import subprocess
import time
from pathlib import Path

import pytest

from maui_py.cfg import SchedulerConfig
from maui_py.sim.engine import Simulation
from maui_py.sim.importers.nodes import SINFO_FORMAT, parse_sinfo_text
from maui_py.sim.importers.slurm import SACCT_FORMAT, SACCT_STATES, parse_jobcomp, parse_sacct
from maui_py.sim.importers.workload import replayable, to_sim_jobs
from tests.adapters.conftest import skip_or_fail
from tests.adapters.slurm_cluster import ClusterError, missing_binaries

from .accounting_cluster import AccountingCluster, missing_accounting_binaries

USERS = {"whatif-a": "proj-a", "whatif-b": "proj-a", "whatif-c": "proj-b"}
SHAPES = (  # sbatch args, procs, nodes, minutes, gres, features, partition
    (["-N", "1", "-n", "4", "-t", "5"], 4, 1, 5, (), (), "batch"),
    (["-N", "2", "--ntasks-per-node=2", "-t", "3"], 4, 2, 3, (), (), "batch"),
    (["-n", "1", "-t", "2", "-p", "debug"], 1, 1, 2, (), (), "debug"),
    (["-n", "1", "--gres=gpu:1", "-t", "4"], 1, 1, 4, (("gpu", 1),), (), "batch"),
    (["-n", "2", "-N", "1", "-C", "fast", "-t", "6"], 2, 1, 6, (), ("fast",), "batch"),
)
JOBS = 30


@pytest.fixture(scope="module")
def accounting():
    missing = missing_binaries() + missing_accounting_binaries()
    if missing:
        skip_or_fail("accounting needs apt-get install slurm-wlm munge slurmdbd mariadb-server "
                     f"(missing: {', '.join(missing)})")
    if os.geteuid() != 0:
        skip_or_fail("the live accounting test starts slurmd and MariaDB and needs root")
    created = []
    for user in USERS:
        try:
            pwd.getpwnam(user)
        except KeyError:
            p = subprocess.run(["useradd", "--no-create-home", "--shell", "/bin/sh", user],
                               capture_output=True, text=True)
            if p.returncode != 0:
                skip_or_fail(f"cannot create user {user}: {p.stderr.strip()}")
            created.append(user)
    accounts: dict[str, list[str]] = {}
    for user, account in USERS.items():
        accounts.setdefault(account, []).append(user)
    cluster = AccountingCluster(accounts)
    try:
        cluster.start()
    except (ClusterError, OSError, subprocess.SubprocessError) as e:
        cluster.stop(keep=True)
        pytest.fail(f"could not start Slurm with accounting: {e} (logs in {cluster.base}/log)")
    yield cluster
    cluster.stop()
    for user in created:
        subprocess.run(["userdel", user], capture_output=True)


def _wait(what: str, ok, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not ok():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached after {timeout} s")
        time.sleep(0.5)


def test_sacct_of_a_real_cluster_replays_as_submitted(accounting, tmp_path):
    started = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(time.time() - 3600))
    expected = {}
    users = list(USERS)
    for k in range(JOBS):
        user = users[k % len(users)]
        args, procs, nodes, minutes, gres, feats, part = SHAPES[k % len(SHAPES)]
        job = accounting.submit([*args, "-A", USERS[user], "-J", f"w{k}"], user=user, script="sleep 2")
        expected[job] = (user, USERS[user], procs, nodes, minutes * 60, gres, feats, part)
    # The whole cluster, last in line behind the others: released, then cancelled while it
    # waits (a job held and cancelled was never eligible, and sacct -S/-E does not list it).
    never = accounting.submit(["-N", str(accounting.nnodes), "-n", str(accounting.nnodes * accounting.cpus),
                               "-t", "1", "-A", "proj-b"], user="whatif-c", script="true")
    accounting.run(["scontrol", "release", *expected, never])
    time.sleep(1.0)
    assert accounting.squeue("%T")[never] == ["PENDING"]
    accounting.run(["scancel", never])
    _wait("all jobs done", lambda: not accounting.squeue(), 180)
    fmt = ["sacct", "-a", "-X", "-P", "-S", started, "-E", "now", f"--state={SACCT_STATES}",
           f"--format={SACCT_FORMAT}"]

    seen = [""]

    def complete() -> bool:
        seen[0] = accounting.run(fmt).stdout
        jobs = {j.id: j for j in parse_sacct(seen[0], "sacct").jobs}
        return never in jobs and all(j in jobs and jobs[j].end is not None for j in expected)
    try:
        _wait("accounting records in slurmdbd", complete, 60)
    except AssertionError:
        raise AssertionError(f"sacct never listed every job ended; last output:\n{seen[0]}") from None
    text = seen[0]
    sinfo = accounting.run(["sinfo", "-N", "-h", "-o", SINFO_FORMAT]).stdout
    capture = os.environ.get("MAUI_WHATIF_CAPTURE")
    if capture:
        Path(capture).mkdir(parents=True, exist_ok=True)
        (Path(capture) / "sacct-live.txt").write_text(text)
        (Path(capture) / "sinfo-N-live.txt").write_text(sinfo)
        (Path(capture) / "jobcomp-live.txt").write_text(accounting.jobcomp.read_text())

    workload = parse_sacct(text, "sacct")
    got = {j.id: j for j in workload.jobs}
    assert set(got) == {*expected, never}
    for jid, (user, account, procs, nodes, limit, gres, feats, part) in expected.items():
        j = got[jid]
        assert (j.user, j.account, j.procs, j.nodes, j.wallclock, j.gres, j.features, j.class_) == \
            (user, account, procs, nodes, limit, gres, feats, part), jid
        assert j.qos == "normal" and j.state == "COMPLETED" and 1 <= j.runtime <= 60
    assert got[never].start is None and got[never].state == "CANCELLED"

    jobs, left_out = replayable(workload)
    assert len(jobs) == JOBS and left_out == {"never started (cancelled or still queued)": 1}
    nodes = parse_sinfo_text(sinfo, "sinfo")
    assert len(nodes) == accounting.nnodes
    result = Simulation(nodes, to_sim_jobs(jobs), SchedulerConfig.default()).run()
    assert result.check.ok and not result.unfinished
    assert {r.job.user for r in result.records.values()} == set(USERS)
    assert sorted(r.job.procs for r in result.records.values()) == sorted(e[2] for e in expected.values())

    comp = parse_jobcomp(accounting.jobcomp.read_text(), "jobcomp")
    by_id = {j.id: j for j in comp.jobs}
    assert set(expected) <= set(by_id)
    assert all((by_id[j].user, by_id[j].procs) == (e[0], e[2]) for j, e in expected.items())
