"""Running mauid against the test Slurm and watching what Slurm does.

MauidProcess runs `python -m maui_py.daemon.main --foreground` as a child (optionally with
MAUID_FAULT), SlurmWatch polls squeue every 0.1 s and keeps, per job, when it was first
seen RUNNING and on which nodes, and `final_jobs` reads Slurm's own record of every job
(`scontrol -o show job`: state, nodes, restarts, start time) after the fact. The Torque
counterparts (write_torque_config, TorqueWatch, torque_final_jobs, check_ran_where_told_torque)
do the same through qstat for the test Torque.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from maui_py.adapters.slurm import hostlist
from maui_py.store import StoreReader
from maui_py.store.reader import StoreError

from tests.live import poll

REPO = Path(__file__).resolve().parents[2]


def write_config(home: Path, cluster, extra: str = "") -> Path:
    """maui.cfg for the test Slurm (tests/adapters/slurm_cluster.py)."""
    return _mauid_config(home, f"RMCFG[slurm]       TYPE=SLURM CONFIGFILE={cluster.conf} TIMEOUT=20",
                         extra)


def _mauid_config(home: Path, rmcfg: str, extra: str) -> Path:
    """A one-second poll, a local log and store, and the RMCFG line asked."""
    cfg = home / "maui.cfg"
    cfg.write_text(f"""\
{rmcfg}
RMPOLLINTERVAL     00:00:01
REQUESTPOLLINTERVAL 1
LOGDIR             .
LOGFILE            mauid.log
LOGLEVEL           4
STOREFILE          maui-py.db
{extra}""")
    return cfg


class MauidProcess:
    def __init__(self, config: Path, fault: str = "", env_extra: dict[str, str] | None = None):
        env = {k: v for k, v in os.environ.items() if k not in ("MAUID_FAULT", "MAUIHOMEDIR")}
        env.update(env_extra or {})
        if fault:
            env["MAUID_FAULT"] = fault
        env["PYTHONPATH"] = str(REPO)
        self.config = config
        self.log = open(config.parent / "mauid.stderr", "ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "maui_py.daemon.main", "-c", str(config),
                                      "--foreground"], env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)

    def wait(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout)
        finally:
            self.log.close()

    def kill9(self) -> int:
        self.proc.send_signal(signal.SIGKILL)
        return self.wait(10)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.wait(30)

    def alive(self) -> bool:
        return self.proc.poll() is None


@dataclass
class Seen:
    first_running: float
    nodes: set[str] = field(default_factory=set)


class SlurmWatch:
    """Polls squeue; `seen[job]` = first time RUNNING and every node it ran on."""

    def __init__(self, cluster, period: float = 0.1):
        self.cluster, self.period = cluster, period
        self.seen: dict[str, Seen] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(10)

    def _run(self) -> None:
        while not self._stop.is_set():
            p = self.cluster.run(["squeue", "-h", "-t", "RUNNING", "-o", "%i|%N"], check=False)
            now = time.time()
            for line in p.stdout.splitlines():
                jid, _, nodes = line.partition("|")
                s = self.seen.setdefault(jid, Seen(now))
                s.nodes.update(hostlist.expand(nodes))
            self._stop.wait(self.period)


def final_jobs(cluster) -> dict[str, dict[str, str]]:
    """Slurm's record of every job it still remembers (MinJobAge=300 in the harness)."""
    out = cluster.run(["scontrol", "-o", "show", "job"]).stdout
    jobs = {}
    for line in out.splitlines():
        fields = dict(tok.split("=", 1) for tok in line.split() if "=" in tok)
        if "JobId" in fields:
            jobs[fields["JobId"]] = fields
    return jobs


def journal(home: Path, **kw):
    """The journal so far; empty while mauid is still creating its store (the file can exist
    before its schema does)."""
    path = home / "maui-py.db"
    if not path.exists():
        return []
    try:
        with StoreReader.open(path) as r:
            return r.journal(**kw)
    except StoreError:
        return []


def wait_for(cond, timeout: float, what: str, period: float = 0.2):
    return poll(cond, timeout, what, period)


def by_job(entries):
    out: dict[str, list] = {}
    for e in entries:
        out.setdefault(e.job_id, []).append(e)
    return out


def pushed_start(entries):
    """The start entry that the resource manager confirmed (the last start before it)."""
    last = None
    for e in entries:
        if e.event == "start":
            last = e
        elif e.event in ("start-confirmed", "start-gone"):
            return last
    return None


def check_ran_where_told(slurm_final, journal_by_job, ids):
    """Every job completed, was never requeued, and ran on the nodes of the start that
    the next cycle confirmed."""
    for jid in ids:
        rec = slurm_final[jid]
        assert rec["JobState"] == "COMPLETED", (jid, rec["JobState"], rec.get("Reason"))
        assert rec["Restarts"] == "0", (jid, "restarted")
        start = pushed_start(journal_by_job.get(jid, []))
        assert start is not None, (jid, [e.event for e in journal_by_job.get(jid, [])])
        assert set(hostlist.expand(rec["NodeList"])) == set(start.detail["nodes"]), \
            (jid, rec["NodeList"], start.detail["nodes"])


def check_each_started_once(journal_by_job, ids):
    """Each job's starts are one more than its refused and unconfirmed ones, and exactly
    one of them was confirmed (or the job had already finished when it was checked)."""
    for jid in ids:
        ev = [e.event for e in journal_by_job[jid]]
        assert ev.count("start") == 1 + ev.count("start-failed") + ev.count("start-unconfirmed"), (jid, ev)
        assert ev.count("start-confirmed") + ev.count("start-gone") == 1, (jid, ev)


def epoch(slurm_time: str) -> int:
    """Slurm's `2026-11-21T17:45:13` (local time) -> epoch seconds."""
    return int(time.mktime(time.strptime(slurm_time, "%Y-%m-%dT%H:%M:%S")))


def check_reservation_kept(entries, started: float) -> None:
    """A job waited on a priority reservation that was never dropped and never moved later
    (a backfill start that took its resources would push it later; only Slurm's start times,
    a second or so after each decision, may), and it started no later than reserved."""
    res = [e for e in entries if e.event in ("reserve", "reserve-moved")]
    assert res, [e.event for e in entries]
    assert not [e for e in entries if e.event == "reserve-dropped"]
    starts = [e.detail["start"] for e in res]
    assert all(b <= a + 2 for a, b in zip(starts, starts[1:])), starts
    assert started <= starts[-1] + 3, (started, starts)


def check_easy_stream(entries, ids, wide: str, wide_started: float, small) -> dict:
    """What a live EASY run with a wide job among a stream of small ones must show, whatever
    the resource manager: each job started once, the wide job kept its reservation and started
    no later than it said, and some small jobs were backfilled before it. The journal by job."""
    jb = by_job(entries)
    check_each_started_once(jb, ids)
    check_reservation_kept(jb[wide], wide_started)
    kinds = [e.detail["kind"] for e in entries if e.event == "start"]
    assert "BACKFILL" in kinds, kinds
    assert [e.job_id for e in entries if e.event == "start" and e.detail["kind"] == "BACKFILL"
            and e.job_id in small and e.at < wide_started]
    return jb


# ---------------------------------------------------------------- Torque
def write_torque_config(home: Path, extra: str = "") -> Path:
    """maui.cfg for the test Torque (tests/adapters/torque_cluster.py); mauid needs the
    cluster's PATH (MauidProcess(..., env_extra={"PATH": cluster.env["PATH"]}))."""
    return _mauid_config(home, "RMCFG[torque]      TYPE=PBS TIMEOUT=20", extra)


class TorqueWatch(SlurmWatch):
    """Polls qstat; `seen[job]` = first time R and every node of its exec_host."""

    def _run(self) -> None:
        from maui_py.adapters.torque.values import exec_host
        while not self._stop.is_set():
            try:
                states = self.cluster.states()
            except Exception:            # a slow qstat is retried, not fatal to the watch
                states = {}
            now = time.time()
            for jid, (state, hosts) in states.items():
                if state == "R" and hosts:
                    s = self.seen.setdefault(jid, Seen(now))
                    s.nodes.update(h for h, _ in exec_host(hosts))
            self._stop.wait(self.period)


def torque_final_jobs(cluster) -> dict[str, dict[str, str]]:
    """Torque's record of every job it still lists (keep_completed=600 in the harness):
    job_state, exec_host, exit_status, start_count, start_time, Hold_Types."""
    import xml.etree.ElementTree as ET
    text = cluster.qstat_xml().strip()
    if not text:
        return {}
    keys = ("job_state", "exec_host", "exit_status", "start_count", "start_time", "Hold_Types")
    return {j.findtext("Job_Id"): {k: j.findtext(k) or "" for k in keys}
            for j in ET.fromstring(text).iter("Job")}


def check_ran_where_told_torque(final, journal_by_job, ids):
    """Every job completed with exit 0, was started once by Torque (start_count 1) and ran
    on the nodes of the start that the next cycle confirmed."""
    from maui_py.adapters.torque.values import exec_host
    for jid in ids:
        rec = final[jid]
        assert rec["job_state"] == "C" and rec["exit_status"] == "0", (jid, rec)
        assert rec["start_count"] == "1", (jid, "started more than once", rec)
        start = pushed_start(journal_by_job.get(jid, []))
        assert start is not None, (jid, [e.event for e in journal_by_job.get(jid, [])])
        assert {h for h, _ in exec_host(rec["exec_host"])} == set(start.detail["nodes"]), \
            (jid, rec["exec_host"], start.detail["nodes"])
