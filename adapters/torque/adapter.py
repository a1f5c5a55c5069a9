"""TorqueAdapter: maui-py's view of a Torque (PBS) server, through Torque's own commands.

Reads state with `qstat -f -x -t` and `pbsnodes -x`; starts a job with
`qrun -H host[:ppn=P][+host...] jobid` (`-a` with RMCFG ASYNCJOBSTART=TRUE); holds with
`qhold -h s jobid` and releases only the holds it set itself with `qrls -h s jobid`. With no
pbs_sched running, pbs_server never starts a queued job on its own, so nothing has to be
held for maui-py to be the only one deciding.

Every command is an argument list run through the injectable runner with RMCFG TIMEOUT
(default 30 s); job ids that do not look like Torque's (`123`, `123.server`, `123[4].server`)
and node names that are not host names are refused before anything runs. A snapshot costs
two commands and is linear in their output.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import replace
from typing import Callable, Sequence

from maui_py.model import (ClusterSnapshot, Decision, Hold, HoldType, Job, JobState, ReleaseHold,
                           Start)
from maui_py.rm.protocol import RMError, StartFailure, check_answer
from maui_py.rm.runner import Result, Runner, run

from .nodespec import qrun_hosts
from .parse import TorqueJob, TorqueParseError, parse_pbsnodes, parse_qstat

log = logging.getLogger(__name__)

JOB_ID = re.compile(r"\d+(\[\d*\])?(\.[\w.-]+)?", re.ASCII)
DEFAULT_TIMEOUT = 30.0
SCHEDULER_HOLD = "s"  # the hold letter maui-py sets and releases


def message(result: Result) -> str:
    """What Torque said about a failed command, on one line."""
    text = (result.stderr.strip() or result.stdout.strip()
            or f"{result.argv[0]} exited {result.returncode} without a message")
    return " ".join(text.split())[:500]


class TorqueAdapter:
    """ResourceManager for Torque. `runner` and `clock` are injectable for tests.

    RMCFG[name] attributes used: HOST (and PORT) name the pbs_server (qstat `@HOST`,
    pbsnodes `-s HOST`; job ids carry their server already); TIMEOUT bounds every command;
    ASYNCJOBSTART=TRUE adds qrun -a. SYSTEMDEFAULTJOBWALLTIME is the limit of jobs that
    request no walltime.
    """

    def __init__(self, cfg, rm_name: str, *, runner: Runner = run,
                 clock: Callable[[], float] = time.time):
        rm = cfg.object("RMCFG", rm_name)
        self.name = rm_name
        timeout = rm.get("TIMEOUT") or 0
        self.timeout = float(timeout) if timeout > 0 else DEFAULT_TIMEOUT
        host, port = (rm.get("HOST") or "").strip(), rm.get("PORT") or 0
        self.server = f"{host}:{port}" if host and port else host
        self.async_start = bool(rm.get("ASYNCJOBSTART", False))
        self.default_wallclock = int(cfg.get("SYSTEMDEFAULTJOBWALLTIME"))
        self._run = runner
        self._clock = clock
        self._seq = 0
        self._last_nodes = 0        # nodes in the last good answer (an empty one is an outage)
        self._held: dict[str, HoldType] = {}  # job id -> the hold maui-py set on it
        self.failures: list[StartFailure] = []  # every refused command of the last apply()

    # ------------------------------------------------------------ reading
    def qstat_argv(self) -> list[str]:
        return ["qstat", "-f", "-x", "-t"] + ([f"@{self.server}"] if self.server else [])

    def pbsnodes_argv(self) -> list[str]:
        return ["pbsnodes", "-x"] + (["-s", self.server] if self.server else [])

    def _query(self, argv: list[str]) -> str:
        result = self._run(argv, timeout=self.timeout)
        if result.returncode != 0:
            raise RMError(f"{' '.join(argv)}: exit {result.returncode}: {message(result)}")
        return result.stdout

    def snapshot(self) -> ClusterSnapshot:
        """Nodes and the jobs Torque knows (completed jobs and array summaries left out)."""
        now = int(self._clock())
        nodes_xml = self._query(self.pbsnodes_argv())
        jobs_xml = self._query(self.qstat_argv())
        try:
            nodes = parse_pbsnodes(nodes_xml)
        except TorqueParseError as e:
            raise RMError(f"pbsnodes -x: {e}") from e
        check_answer("pbsnodes -x", len(nodes), self._last_nodes)
        try:
            records = parse_qstat(jobs_xml, now=now, node_names={n.name for n in nodes},
                                  default_wallclock=self.default_wallclock)
        except TorqueParseError as e:
            raise RMError(f"qstat -f -x: {e}") from e
        self._forget_released(records)
        jobs = tuple(self._own_holds(r.job) for r in records
                     if r.job.state is not JobState.COMPLETED and not r.is_array_parent)
        self._last_nodes = len(nodes)
        self._seq += 1
        return ClusterSnapshot(now, tuple(nodes), jobs, seq=self._seq)

    def _forget_released(self, records: list[TorqueJob]) -> None:
        """Drop holds maui-py set on jobs that are gone or that someone else released."""
        still = {r.job.id for r in records if SCHEDULER_HOLD in r.hold_types}
        for job_id in [j for j in self._held if j not in still]:
            del self._held[job_id]

    def _own_holds(self, job: Job) -> Job:
        """A system hold maui-py set shows as the hold the scheduler asked for."""
        kind = self._held.get(job.id)
        if kind is None or HoldType.SYSTEM not in job.holds:
            return job
        return replace(job, holds=(job.holds - {HoldType.SYSTEM}) | {kind})

    # ------------------------------------------------------------ acting
    def apply(self, decisions: Sequence[Decision]) -> list[StartFailure]:
        """Run qrun/qhold/qrls for Start/Hold/ReleaseHold; Reserve and Defer stay maui-py's.

        Returns the starts that failed. A refused hold or release is logged and kept in
        `self.failures` with the starts, not returned: it is not a failed start. Raises
        RMError when no command reached Torque at all.
        """
        self.failures = []
        starts: list[StartFailure] = []
        tried = unreachable = 0
        first_error: RMError | None = None
        plans = {Start: self._start, Hold: self._hold, ReleaseHold: self._release}
        for d in decisions:
            plan = plans[type(d)](d) if type(d) in plans else None
            if plan is None:
                continue
            why = plan if isinstance(plan, str) else None
            if why is None:
                tried += 1
                try:
                    why = self._command(plan)
                except RMError as e:
                    unreachable += 1
                    first_error = first_error or e
                    why = str(e)
            if why is None:
                self._done(d)
                continue
            failure = StartFailure(d.job_id, why)
            self.failures.append(failure)
            if isinstance(d, Start):
                starts.append(failure)
            else:
                log.warning("Torque refused %s for job %s: %s", type(d).__name__, d.job_id, why)
        if unreachable and unreachable == tried:
            raise first_error
        return starts

    def _command(self, argv: list[str]) -> str | None:
        """None when argv ran and succeeded, else what Torque said."""
        result = self._run(argv, timeout=self.timeout)
        return None if result.returncode == 0 else message(result)

    @staticmethod
    def _refusal(job_id: str) -> str | None:
        if JOB_ID.fullmatch(job_id):
            return None
        return f"refused: {job_id!r} is not a Torque job id; nothing was run"

    def _start(self, d: Start) -> list[str] | str:
        refused = self._refusal(d.job_id)
        if refused:
            return refused
        try:
            hosts = qrun_hosts(d.allocation)
        except ValueError as e:
            return f"refused: {e}; nothing was run"
        return ["qrun"] + (["-a"] if self.async_start else []) + ["-H", hosts, d.job_id]

    def _hold(self, d: Hold) -> list[str] | str:
        return self._refusal(d.job_id) or ["qhold", "-h", SCHEDULER_HOLD, d.job_id]

    def _release(self, d: ReleaseHold) -> list[str] | str | None:
        if d.job_id not in self._held:
            return None  # not a hold maui-py set in Torque: nothing to release there
        return self._refusal(d.job_id) or ["qrls", "-h", SCHEDULER_HOLD, d.job_id]

    def _done(self, d: Decision) -> None:
        if isinstance(d, Hold):
            self._held[d.job_id] = d.hold
        elif isinstance(d, ReleaseHold):
            self._held.pop(d.job_id, None)

    def close(self) -> None:
        """Nothing to close: every command is its own process."""

