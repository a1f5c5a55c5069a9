"""A private Slurm cluster on this machine, for the live adapter tests (root needed).

What /work/shared/spec/slurm/start-slurm.sh does, in Python: munge with its own key and
socket, a slurm.conf in a temporary directory, N slurmd (node1..nodeN) on distinct free
ports sharing NodeHostName=localhost, features fast (first half) / slow, the last node
with gres gpu:2 backed by mknod'd character devices, partitions batch (all, default) and
debug (node1-2), and hold-all mode with the repository's own job_submit.lua. Daemons run
in the foreground as our children (so we reap them), also write PID files, and are
stopped by pid; a process counts as gone once /proc/PID/stat says Z (PID 1 here does not
reap). Start-up takes well under a second; every client command gets `env`.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Sequence

from tests.live import Client, alive

REPO = Path(__file__).resolve().parents[2]
LUA = REPO / "adapters" / "slurm" / "job_submit.lua"
BINARIES = ("slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol", "munged", "mungekey")


class ClusterError(RuntimeError):
    pass


def missing_binaries() -> list[str]:
    return [b for b in BINARIES if shutil.which(b) is None
            and not Path("/usr/sbin", b).exists()]


def _free_ports(n: int) -> list[int]:
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


class SlurmCluster(Client):
    """start() / stop(); `env` for client commands; `nodes`; submit() and friends."""

    error = ClusterError

    def __init__(self, nnodes: int = 4, cpus: int = 8, mem: int = 8000,
                 base: str | os.PathLike | None = None, lua: Path = LUA):
        self.nnodes, self.cpus, self.mem, self.lua = nnodes, cpus, mem, lua
        self.base = Path(base) if base else Path(tempfile.mkdtemp(prefix="maui-slurm-", dir="/tmp"))
        self.nodes = [f"node{i}" for i in range(1, nnodes + 1)]
        self.conf = self.base / "etc" / "slurm.conf"
        self.jobs_dir = self.base / "jobs"
        self.env = {**os.environ, "SLURM_CONF": str(self.conf),
                    "PATH": os.environ.get("PATH", "") + ":/usr/sbin:/sbin"}
        self._procs: list[subprocess.Popen] = []
        self.startup_seconds = 0.0

    # ---------------------------------------------------------------- set-up
    def _write_config(self) -> None:
        b = self.base
        for d in ("etc", "state", "spool", "log", "munge", "munge-sock", "dev", "jobs"):
            (b / d).mkdir(parents=True, exist_ok=True)
        b.chmod(0o755)
        (b / "etc").chmod(0o755)
        (b / "munge").chmod(0o700)
        (b / "munge-sock").chmod(0o755)
        self.jobs_dir.chmod(0o1777)
        ctld, *node_ports = _free_ports(self.nnodes + 1)
        lines = [
            "ClusterName=mauitest", "SlurmctldHost=localhost", f"SlurmctldPort={ctld}",
            "AuthType=auth/munge", f"AuthInfo=socket={b}/munge-sock/munge.sock",
            "CredType=cred/munge", "SlurmUser=root", "SlurmdUser=root",
            f"StateSaveLocation={b}/state", f"SlurmdSpoolDir={b}/spool/%n",
            f"SlurmctldPidFile={b}/slurmctld.pid", f"SlurmdPidFile={b}/slurmd-%n.pid",
            f"SlurmctldLogFile={b}/log/slurmctld.log", f"SlurmdLogFile={b}/log/slurmd-%n.log",
            "SlurmctldDebug=info", "SlurmdDebug=info", "MailProg=/bin/true",
            "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "MpiDefault=none",
            "JobAcctGatherType=jobacct_gather/none", "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none", "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core_Memory", "SchedulerType=sched/builtin",
            "PriorityType=priority/basic",
            "SchedulerParameters=batch_sched_delay=0,default_queue_depth=1000,disable_job_shrink",
            "ReturnToService=2", "SlurmdParameters=config_overrides", "MinJobAge=300",
            "DefMemPerCPU=100", "GresTypes=gpu", "JobSubmitPlugins=lua",
            "KillWait=1",   # a job cancelled while it launches can miss SIGTERM: SIGKILL soon
        ]
        gres_conf = []
        for i, (name, port) in enumerate(zip(self.nodes, node_ports), start=1):
            feature = "fast" if i <= self.nnodes // 2 else "slow"
            gres = ""
            if i == self.nnodes:
                for g in (0, 1):
                    dev = b / "dev" / f"gpu{g}"
                    if not dev.exists():
                        os.mknod(dev, 0o666 | 0o020000, os.makedev(1, 3))  # like /dev/null
                gres = " Gres=gpu:2"
                gres_conf.append(f"NodeName={name} Name=gpu File={b}/dev/gpu[0-1]")
            lines.append(f"NodeName={name} NodeHostname=localhost NodeAddr=127.0.0.1 Port={port} "
                         f"CPUs={self.cpus} RealMemory={self.mem} Feature={feature}{gres} State=UNKNOWN")
        debug = "node[1-2]" if self.nnodes > 1 else "node1"
        lines += ["PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
                  f"PartitionName=debug Nodes={debug} MaxTime=60 State=UP"]
        self.conf.write_text("\n".join(lines) + "\n")
        self.conf.chmod(0o644)
        (b / "etc" / "gres.conf").write_text("\n".join(gres_conf) + "\n")
        shutil.copy(self.lua, b / "etc" / "job_submit.lua")

    def _daemon(self, argv: list[str], log_name: str) -> subprocess.Popen:
        log = open(self.base / "log" / log_name, "ab")
        p = subprocess.Popen(argv, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        self._procs.append(p)
        return p

    def _wait(self, what: str, ok, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not ok():
            if time.monotonic() > deadline:
                raise ClusterError(f"{what} not ready after {timeout} s; logs in {self.base}/log")
            time.sleep(0.05)

    def _start_munge(self, timeout: float) -> None:
        """munged with this cluster's own key and socket."""
        m = self.base / "munge"
        if not (m / "munge.key").exists():
            subprocess.run(["mungekey", "-c", "-k", str(m / "munge.key"), "-b", "1024"],
                           check=True, capture_output=True)
        sock = self.base / "munge-sock" / "munge.sock"
        self._daemon(["munged", "--foreground", f"--key-file={m}/munge.key", f"--socket={sock}",
                      f"--pid-file={m}/munged.pid", f"--log-file={m}/munged.log",
                      f"--seed-file={m}/munged.seed"], "munged.out")
        self._wait("munged", sock.exists, timeout)

    def start(self, timeout: float = 30.0) -> "SlurmCluster":
        t0 = time.monotonic()
        self._write_config()
        self._start_munge(timeout)
        return self._start_slurm(t0, timeout)

    def _start_slurm(self, t0: float, timeout: float):
        """slurmctld and one slurmd per node, until every node is idle (after munge and,
        for a subclass, whatever else the controller needs)."""
        self._daemon(["slurmctld", "-D", "-c", "-i"], "slurmctld.out")
        for name in self.nodes:
            (self.base / "spool" / name).mkdir(exist_ok=True)
            self._daemon(["slurmd", "-D", "-N", name], f"slurmd-{name}.out")
        self._wait("idle nodes", lambda: len(self.idle_nodes()) >= self.nnodes, timeout)
        self.startup_seconds = time.monotonic() - t0
        return self

    # ---------------------------------------------------------------- clients
    def submit(self, args: Sequence[str], *, user: str | None = None,
               script: str = "sleep 300") -> str:
        """sbatch [args] --wrap script -> job id. Output goes to /dev/null."""
        p = self.run(["sbatch", "--parsable", "--output=/dev/null", f"--chdir={self.jobs_dir}",
                      *args, "--wrap", script], user=user)
        return p.stdout.strip().split(";")[0]

    def squeue(self, *fields: str) -> dict[str, list[str]]:
        """{job id: [field values]} for `squeue -h -o` fields such as %T, %r, %N."""
        out = self.run(["squeue", "-h", "-o", "|".join(("%i",) + fields)]).stdout
        rows = [line.split("|") for line in out.splitlines() if line]
        return {r[0]: r[1:] for r in rows}

    def idle_nodes(self) -> list[str]:
        p = self.run(["sinfo", "-h", "-N", "-p", "batch", "-t", "idle", "-o", "%N"], check=False)
        return p.stdout.split() if p.returncode == 0 else []

    def cancel_all(self, timeout: float = 15.0) -> None:
        """Cancel every job and wait until every node is idle again."""
        self.run(["scancel", "--full", "-u", "root"], check=False)
        ids = [i for i in self.squeue().keys()]
        if ids:
            self.run(["scancel", "--full", *ids], check=False)
        self._wait("jobs gone", lambda: not self.squeue() and len(self.idle_nodes()) >= self.nnodes,
                   timeout)

    # ---------------------------------------------------------------- tear-down
    def _pids_from_files(self) -> list[int]:
        files = [*self.base.glob("slurmd-*.pid"), self.base / "slurmctld.pid",
                 self.base / "munge" / "munged.pid"]
        pids = []
        for f in files:
            try:
                pids.append(int(f.read_text().split()[0]))
            except (OSError, ValueError, IndexError):
                pass
        return pids

    def stop(self, keep: bool = False) -> None:
        """Cancel jobs, stop slurmd, slurmctld, munged (by pid), reap, remove the dir."""
        try:
            if any(p.poll() is None for p in self._procs):
                self.cancel_all(timeout=10)
        except (ClusterError, OSError, subprocess.SubprocessError):
            pass
        pids = {p.pid for p in self._procs} | set(self._pids_from_files())
        for pid in pids:
            if alive(pid):
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 5
        for p in self._procs:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=5)
        for pid in pids:
            while alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        self._procs.clear()
        if not keep:
            shutil.rmtree(self.base, ignore_errors=True)
