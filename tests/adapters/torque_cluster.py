"""A real Torque 6.1 on this machine, for the live adapter and daemon tests (root needed).

Unpacks ../shared/torque/torque-install.tar.gz (from the repository's parent, as the trace
tests find ../shared/traces) under PREFIX_ROOT, unless the same tarball is unpacked there
already, and runs its start-torque.sh: trqauthd, a pbs_server with scheduling off (nothing
starts unless someone runs qrun) and one pbs_mom per node on this host (node 1 is the host
name, node K is `<host>-nK`). A non-root submitting user is created when missing (qsub
refuses root) and removed again if we created it. stop() runs stop-torque.sh (which deletes
the jobs and stops the daemons by pid) and then signals by pid whatever of our daemons is
left. One Torque per machine (fixed ports, /var/spool/torque): a Torque from another
prefix that is already running is an error, never stopped by us.
"""

from __future__ import annotations

import functools
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Sequence

from maui_py.rm.runner import run

from tests.live import Client, alive, poll

REPO = Path(__file__).resolve().parents[2]
TORQUE_DIR = REPO.parent / "shared" / "torque"
TARBALL = TORQUE_DIR / "torque-install.tar.gz"
PREFIX_ROOT = Path("/var/tmp/maui-py-torque")
DAEMONS = ("pbs_mom", "pbs_server", "trqauthd")
TEST_USER = "mauitorque"


class ClusterError(RuntimeError):
    pass


def missing() -> str | None:
    """Why no live Torque can run here, or None."""
    if not TARBALL.is_file():
        return f"no Torque build: {TARBALL} not found"
    if os.geteuid() != 0:
        return "the live Torque tests start pbs_server and pbs_mom and need root"
    return None


def daemon_pids(prefix: Path | None = None) -> dict[int, str]:
    """pid -> executable of every Torque daemon running; only those of `prefix` if given.
    Found by /proc/PID/exe (no matching on command lines)."""
    out = {}
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            exe = os.readlink(p / "exe")
        except OSError:
            continue
        exe_path = Path(exe)
        if exe_path.name in DAEMONS and exe_path.parent.name == "sbin" and \
                (prefix is None or exe_path.parent.parent == prefix):
            out[int(p.name)] = exe
    return out


class TorqueCluster(Client):
    """start() / stop(); `env` and `runner` for client commands; `nodes`; qsub() and friends."""

    error = ClusterError

    def __init__(self, nnodes: int = 4, np: int = 4, user: str = TEST_USER,
                 prefix_root: Path = PREFIX_ROOT):
        self.nnodes, self.np, self.user = nnodes, np, user
        self.prefix = prefix_root / "torque"
        self.prefix_root = prefix_root
        self.host = socket.gethostname()
        self.nodes = [self.host] + [f"{self.host}-n{i}" for i in range(2, nnodes + 1)]
        self.env = {**os.environ,
                    "PATH": f"{self.prefix}/bin:{self.prefix}/sbin:" + os.environ.get("PATH", "")}
        self.env.pop("PBS_DEFAULT", None)
        self.runner = functools.partial(run, env=self.env)
        self.jobs_dir = Path(tempfile.mkdtemp(prefix="maui-torque-jobs-", dir="/tmp"))
        self.startup_seconds = 0.0
        self.pids: dict[int, str] = {}
        self._created_user = False

    # ---------------------------------------------------------------- set-up
    def _unpack(self) -> None:
        stamp = self.prefix_root / "unpacked-from"
        st = TARBALL.stat()
        want = f"{TARBALL} {st.st_size} {int(st.st_mtime)}\n"
        if (self.prefix / "sbin" / "pbs_server").exists() and stamp.exists() \
                and stamp.read_text() == want:
            return
        if daemon_pids(self.prefix):
            raise ClusterError(f"Torque daemons of {self.prefix} are running; cannot unpack over them")
        shutil.rmtree(self.prefix_root, ignore_errors=True)
        self.prefix_root.mkdir(parents=True)
        subprocess.run(["tar", "-C", str(self.prefix_root), "-xzf", str(TARBALL)], check=True,
                       capture_output=True)
        stamp.write_text(want)

    def _ensure_user(self) -> None:
        try:
            pwd.getpwnam(self.user)
            return
        except KeyError:
            pass
        p = subprocess.run(["useradd", "--no-create-home", "--home-dir", "/tmp",
                            "--shell", "/bin/sh", self.user], capture_output=True, text=True)
        if p.returncode != 0:
            raise ClusterError(f"cannot create user {self.user}: {p.stderr.strip()}")
        self._created_user = True

    def start(self, timeout: float = 45.0) -> "TorqueCluster":
        t0 = time.monotonic()
        others = {pid: exe for pid, exe in daemon_pids().items()
                  if not exe.startswith(str(self.prefix) + "/")}
        if others:
            raise ClusterError(f"another Torque is running ({others}); one Torque per machine")
        self._unpack()
        self._ensure_user()
        self.jobs_dir.mkdir(exist_ok=True)
        self.jobs_dir.chmod(0o1777)
        if daemon_pids(self.prefix):        # left over by a killed test session of ours
            self._stop_script()
        env = {**self.env, "TORQUE_PREFIX": str(self.prefix), "TORQUE_NODES": str(self.nnodes),
               "TORQUE_NP": str(self.np), "TORQUE_RESET": "1", "TORQUE_USERS": "",
               "TORQUE_KEEP_COMPLETED": "600"}
        log = self.prefix_root / "start-torque.log"
        for attempt in (1, 2):            # pbs_server 6.1-dev now and then hangs at start-up
            try:
                with open(log, "a") as out:
                    out.write(f"--- attempt {attempt} at {time.ctime()}\n")
                    out.flush()
                    p = subprocess.run([str(self.prefix / "start-torque.sh")], env=env, stdout=out,
                                       stderr=subprocess.STDOUT, timeout=timeout, cwd="/",
                                       stdin=subprocess.DEVNULL)
                why = None if p.returncode == 0 else f"start-torque.sh exit {p.returncode}"
            except subprocess.TimeoutExpired:
                why = f"start-torque.sh took more than {timeout} s"
            self.pids = daemon_pids(self.prefix)
            if why is None:
                break
            if attempt == 2:
                raise ClusterError(f"{why} (twice); its output is in {log}: "
                                   + log.read_text()[-600:])
            self._stop_script()
        self.wait(lambda: self.free_nodes() == set(self.nodes), 30, "every node free")
        self.startup_seconds = time.monotonic() - t0
        return self

    # ---------------------------------------------------------------- clients
    def qsub(self, args: Sequence[str] = (), script: str = "sleep 300", *,
             user: str | None = None) -> str:
        """qsub [args] with the script on stdin, as the test user; output to /dev/null.
        Returns the job id (`12.host`)."""
        p = self.run(["qsub", "-o", "/dev/null", "-e", "/dev/null", "-d", str(self.jobs_dir),
                      *args], user=user or self.user, input=f"#!/bin/sh\n{script}\n")
        return p.stdout.strip()

    def qstat_xml(self) -> str:
        return self.run(["qstat", "-f", "-x", "-t"]).stdout

    def states(self) -> dict[str, tuple[str, str]]:
        """{job id: (job_state, exec_host)} for every job qstat lists, completed ones too."""
        import xml.etree.ElementTree as ET
        text = self.qstat_xml().strip()
        if not text:
            return {}
        return {j.findtext("Job_Id"): (j.findtext("job_state") or "", j.findtext("exec_host") or "")
                for j in ET.fromstring(text).iter("Job")}

    def active(self) -> dict[str, tuple[str, str]]:
        """The jobs that are not completed."""
        return {k: v for k, v in self.states().items() if v[0] != "C"}

    def node_states(self) -> dict[str, str]:
        import xml.etree.ElementTree as ET
        text = self.run(["pbsnodes", "-x"], check=False).stdout.strip()
        if not text.startswith("<Data>"):
            return {}
        return {n.findtext("name"): n.findtext("state") or "" for n in ET.fromstring(text).iter("Node")}

    def free_nodes(self) -> set[str]:
        return {n for n, s in self.node_states().items() if s == "free"}

    def set_offline(self, node: str, offline: bool = True) -> None:
        self.run(["pbsnodes", "-o" if offline else "-c", node])

    @staticmethod
    def wait(cond, timeout: float, what: str, period: float = 0.1):
        return poll(cond, timeout, what, period, error=ClusterError)

    def clean(self, timeout: float = 30.0) -> None:
        """Delete every job, bring every node back online, wait until all are free."""
        for node, state in self.node_states().items():
            if "offline" in state:
                self.run(["pbsnodes", "-c", node], check=False)
        ids = list(self.active())
        if ids:
            self.run(["qdel", "-W", "0", *ids], check=False)
            self.wait(lambda: not self.active(), timeout, "deleted jobs to leave", period=0.3)
        self.wait(lambda: self.free_nodes() == set(self.nodes), timeout, "every node free", 0.3)

    # ---------------------------------------------------------------- tear-down
    def _stop_script(self) -> None:
        try:
            subprocess.run([str(self.prefix / "stop-torque.sh")], capture_output=True, text=True,
                           timeout=60, cwd="/", stdin=subprocess.DEVNULL,
                           env={**self.env, "TORQUE_PREFIX": str(self.prefix), "TORQUE_WIPE": "1"})
        except (OSError, subprocess.SubprocessError):
            pass

    def stop(self) -> None:
        """stop-torque.sh, then SIGTERM / SIGKILL by pid to what is left; remove the user
        if we created it."""
        self._stop_script()
        pids = set(self.pids) | set(daemon_pids(self.prefix))
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in pids:
                if alive(pid):
                    try:
                        os.kill(pid, sig)
                    except ProcessLookupError:
                        pass
            deadline = time.monotonic() + 5
            while any(alive(p) for p in pids) and time.monotonic() < deadline:
                time.sleep(0.05)
        if self._created_user:
            subprocess.run(["userdel", self.user], capture_output=True)
        shutil.rmtree(self.jobs_dir, ignore_errors=True)


_shared: TorqueCluster | None = None
_users = 0
_failed: str | None = None


def acquire() -> TorqueCluster:
    """The one Torque of this test process, started on first use. Fixtures of several
    test files (adapters, daemon) share it: there can be one Torque per machine. A start
    that failed is not tried again by every later test: they fail at once with its reason."""
    global _shared, _users, _failed
    if _failed is not None:
        raise ClusterError(f"the test Torque failed to start earlier in this session: {_failed}")
    if _shared is None:
        cluster = TorqueCluster()
        try:
            cluster.start()
        except BaseException as e:
            _failed = str(e)
            cluster.stop()
            raise
        _shared = cluster
    _users += 1
    return _shared


def release() -> None:
    """Stop the shared Torque when its last user lets go."""
    global _shared, _users
    _users -= 1
    if _users <= 0 and _shared is not None:
        cluster, _shared, _users = _shared, None, 0
        if not os.environ.get("MAUI_TORQUE_KEEP"):
            cluster.stop()
