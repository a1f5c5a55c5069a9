"""SlurmAdapter: maui-py's ResourceManager for Slurm (tested with 22.05).

Reads: `sinfo --all --json` and `squeue --all --json` (fallback when `--json` is unknown:
`scontrol show node -o`, `squeue -h -t all -o %A` + `scontrol show job -o`), and
`scontrol show reservation -o`. Writes, through one `scontrol` on stdin per phase:
  1. `update JobId=X NodeList=<nodes> NumNodes=n-n` for every start (the count pinned:
     NodeList alone is a minimum), `hold X` / `uhold X` for holds, reservation mirrors;
  2. `release X` for the starts whose update Slurm accepted (a release after a failed
     update would let Slurm place the job anywhere, so it is never sent).
A start Slurm refuses (an error on its update or release; with verify_timeout, still
pending with Reason=BadConstraints or any reason when the time is up) comes back as a
StartFailure. Every command is an argument list; job ids must be Slurm ids (digits, or
digits_digits for array elements) and node names host names, else the start is refused.

Outages and refused starts (issue 13): an answer with Slurm's `errors` list, or with no node
where the last good answer had some, raises RMOutage (never an empty view). A start whose
time limit is over its partition's MaxTime (`scontrol show partition -o`, read again every
`partition_refresh` s) is never pushed: it is refused and the job held (`scontrol hold`),
since Slurm would never run it. A Defer of a job Slurm shows released (a push it did not
carry out) sends it back to the gate (`uhold`). A waiting job with no time limit gets
CLASSCFG[class] DEFAULT.WCLIMIT, pushed with its start as `TimeLimit=`.
"""

from __future__ import annotations

import logging
import math
import os
import re
import time
from dataclasses import replace
from typing import Any, Callable, Hashable, Sequence

from maui_py.cfg import PARAMS
from maui_py.model import (
    ClusterSnapshot, Decision, Defer, HoldType, Job, JobState, Node, ReleaseHold, Reservation,
    Reserve, Start,
)
from maui_py.model import Hold as HoldDecision
from maui_py.model.times import duration
from maui_py.rm.protocol import RMError, StartFailure, check_answer
from maui_py.rm.runner import Result, Runner, run

from . import hostlist
from .batch import JOB_ID, MARK, NODE_NAME, Batch
from .jobs import Pin
from .mirror import Mirror, plan
from .parse import (
    SlurmJobs, parse_job_ids, parse_scontrol_jobs, parse_scontrol_mirrors, parse_scontrol_nodes,
    parse_scontrol_reservations, parse_sinfo_json, parse_squeue_json,
)
from .values import UNLIMITED_WALLCLOCK, time_limit_seconds

log = logging.getLogger("maui_py.adapters.slurm")
DEFAULT_TIMEOUT = 30.0
_NO_JSON = re.compile(r"unrecognized option|invalid option|unknown option|illegal option", re.I)
_PART_FIELD = re.compile(r"(?:^|\s)(PartitionName|MaxTime)=(\S*)")
GATE_REASONS = frozenset({"JobHeldUser", "JobHeldAdmin"})
"""Reasons of a job Slurm keeps held (the gate, or an admin hold): not released."""


def _setting(given: Any, cfg: Any, rm_name: str, attr: str) -> Any:
    """A constructor keyword when given, else RMCFG[rm_name] <attr> (its table default when the
    file does not set it, or when there is no configuration)."""
    if given is not None:
        return given
    if cfg is not None:
        return cfg.object("RMCFG", rm_name).value(attr)
    return PARAMS["RMCFG"].attrs[attr].default


def parse_partition_max_times(text: str) -> dict[str, int]:
    """`scontrol show partition -o` -> {partition: MaxTime in seconds}; partitions without
    a limit (UNLIMITED) are left out, and so is a line that cannot be read (logged).
    Partition names are the admin's, never a user's. O(size of the text)."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        fields = dict(_PART_FIELD.findall(line))
        name = fields.get("PartitionName")
        if not name:
            continue
        try:
            limit = time_limit_seconds(fields.get("MaxTime"))
        except ValueError as e:
            log.warning("scontrol show partition: %s: MaxTime not read: %s", name, e)
            continue
        if limit is not None:
            out[name] = limit
    return out


class SlurmAdapter:
    """The ResourceManager protocol over Slurm's command-line tools.

    cfg, rm_name: RMCFG[rm_name] gives TIMEOUT (seconds per command, default 30),
    CONFIGFILE (passed to every command as SLURM_CONF; else the environment's) and the four
    settings below, each of which a keyword given here overrides:
    hold_all (HOLDALL): jobs enter held by our job_submit.lua (JobHeldUser is the gate, not a hold).
    verify_timeout (VERIFYTIMEOUT): seconds to wait after releasing for the jobs to run (0: don't wait).
    mirror_reservations (MIRRORRESERVATIONS): mirror Reserve decisions as Slurm reservations `maui.<job>`.
    read_reservations (READRESERVATIONS): put Slurm's own reservations into the snapshot.
    """

    def __init__(self, cfg: Any, rm_name: str, *, runner: Runner = run,
                 clock: Callable[[], float] = time.time, sleep: Callable[[float], None] = time.sleep,
                 hold_all: bool | None = None, verify_timeout: float | None = None,
                 mirror_reservations: bool | None = None, read_reservations: bool | None = None,
                 slurm_conf: str | None = None, poll_interval: float = 0.2,
                 partition_refresh: float = 60.0):
        attrs = cfg.object("RMCFG", rm_name) if cfg is not None else {}
        self._cfg = cfg
        self.name = rm_name
        self.timeout = float(attrs.get("TIMEOUT") or DEFAULT_TIMEOUT)
        conf = slurm_conf or attrs.get("CONFIGFILE")
        self._env = {**os.environ, "SLURM_CONF": str(conf)} if conf else None
        self._runner, self._clock, self._sleep = runner, clock, sleep
        self.hold_all = _setting(hold_all, cfg, rm_name, "HOLDALL")
        self.verify_timeout = float(_setting(verify_timeout, cfg, rm_name, "VERIFYTIMEOUT"))
        self.mirror_reservations = _setting(mirror_reservations, cfg, rm_name, "MIRRORRESERVATIONS")
        self.read_reservations = _setting(read_reservations, cfg, rm_name, "READRESERVATIONS")
        self.poll_interval = poll_interval
        self.json: bool | None = None          # None until the first snapshot finds out
        self.bad_constraints: frozenset[str] = frozenset()
        self._holds: dict[str, HoldType] = {}   # holds this adapter set, by job id
        self._pins: dict[str, Pin] = {}         # what this adapter pushed, by job id
        self._mirrors: dict[str, Mirror] = {}
        self._last = SlurmJobs()
        self._seq = 0
        self._closed = False
        self.partition_refresh = partition_refresh
        self.max_times: dict[str, int] = {}     # partition -> MaxTime (s), limited ones only
        self._partitions_read: float | None = None
        self._last_nodes = 0                    # nodes in the last good answer
        self._defaults: dict[str, int] = {}     # waiting job -> DEFAULT.WCLIMIT it was given
        self._class_defaults: dict[str, int | None] = {}

    # ------------------------------------------------------------------ commands
    def _run(self, argv: list[str], stdin: str | None = None) -> Result:
        if self._closed:
            raise RMError("adapter closed")
        return self._runner(argv, input=stdin, timeout=self.timeout, env=self._env)

    def _ok(self, argv: list[str]) -> str:
        """stdout of argv; RMError when it fails as a whole."""
        r = self._run(argv)
        if r.returncode != 0:
            first = (r.stderr.strip().splitlines() or ["no message"])[0]
            raise RMError(f"{' '.join(argv)}: exit {r.returncode}: {first}")
        return r.stdout

    def _json_or_none(self, argv: list[str]) -> str | None:
        """stdout of a `--json` command, or None when this Slurm has no --json (found out
        once, on the first call, and remembered)."""
        if self.json is False:
            return None
        r = self._run(argv)
        if r.returncode != 0 and self.json is None and _NO_JSON.search(r.stderr):
            log.info("%s: no --json here; using scontrol show -o", argv[0])
            self.json = False
            return None
        if r.returncode != 0:
            first = (r.stderr.strip().splitlines() or ["no message"])[0]
            raise RMError(f"{' '.join(argv)}: exit {r.returncode}: {first}")
        self.json = True
        return r.stdout

    # ------------------------------------------------------------------ reading
    def _read_nodes(self) -> list[Node]:
        out = self._json_or_none(["sinfo", "--all", "--json"])
        try:
            if out is not None:
                return parse_sinfo_json(out)
            return parse_scontrol_nodes(self._ok(["scontrol", "--all", "show", "node", "-o"]))
        except ValueError as e:
            raise RMError(str(e)) from e

    def _read_jobs(self) -> SlurmJobs:
        pins = self._pins
        out = self._json_or_none(["squeue", "--all", "--json"])
        try:
            if out is not None:
                return parse_squeue_json(out, hold_all=self.hold_all, pins=pins)
            ids = parse_job_ids(self._ok(["squeue", "--all", "-h", "-t", "all", "-o", "%A"]))
            text = self._ok(["scontrol", "--all", "show", "job", "-o"])
            return parse_scontrol_jobs(text, hold_all=self.hold_all, pins=pins, known_ids=ids)
        except ValueError as e:
            raise RMError(str(e)) from e

    def _read_reservations(self, nodes: list[Node], jobs: Sequence[Job]) -> list[Reservation]:
        if not (self.read_reservations or self.mirror_reservations):
            return []
        text = self._ok(["scontrol", "show", "reservation", "-o"])
        if self.mirror_reservations:
            self._mirrors = parse_scontrol_mirrors(text)
        return parse_scontrol_reservations(text, nodes, jobs) if self.read_reservations else []

    def _with_our_holds(self, jobs: SlurmJobs) -> tuple[Job, ...]:
        """Holds this adapter set show with the type it was asked for (Slurm only has
        "admin hold"); forget holds and pins of jobs that are no longer waiting."""
        waiting = {j.id for j in jobs.jobs if j.state in (JobState.IDLE, JobState.STARTING)}
        self._pins = {k: v for k, v in self._pins.items() if k in waiting}
        out = []
        for j in jobs.jobs:
            ours = self._holds.get(j.id)
            if ours is not None and HoldType.SYSTEM in j.holds:
                j = replace(j, holds=(j.holds - {HoldType.SYSTEM}) | {ours})
            elif ours is not None:
                del self._holds[j.id]
            out.append(j)
        for gone in set(self._holds) - {j.id for j in out}:
            del self._holds[gone]
        return tuple(out)

    def _read_partitions(self) -> None:
        """Partition MaxTimes, read again when `partition_refresh` seconds have passed."""
        now = self._clock()
        if self._partitions_read is not None and now - self._partitions_read < self.partition_refresh:
            return
        self.max_times = parse_partition_max_times(self._ok(["scontrol", "show", "partition", "-o"]))
        self._partitions_read = now

    def _class_default(self, job_class: str) -> int | None:
        """CLASSCFG[class] DEFAULT.WCLIMIT, else CLASSCFG[DEFAULT]'s (seconds), or None."""
        if job_class not in self._class_defaults:
            found = None
            if self._cfg is not None:
                for name in ((job_class, "DEFAULT") if job_class else ("DEFAULT",)):
                    v = self._cfg.object("CLASSCFG", name).get("DEFAULT.WCLIMIT")
                    if isinstance(v, int) and v > 0:
                        found = v
                        break
            self._class_defaults[job_class] = found
        return self._class_defaults[job_class]

    def _with_defaults(self, jobs: tuple[Job, ...]) -> tuple[Job, ...]:
        """A waiting job with no time limit is planned with its class's DEFAULT.WCLIMIT
        (and gets it as TimeLimit when started). O(jobs)."""
        self._defaults = {}
        out = []
        for j in jobs:
            if j.state is JobState.IDLE and j.wallclock >= UNLIMITED_WALLCLOCK:
                default = self._class_default(j.class_)
                if default is not None:
                    self._defaults[j.id] = default
                    j = replace(j, wallclock=default)
            out.append(j)
        return tuple(out)

    def snapshot(self) -> ClusterSnapshot:
        """The cluster now (finished jobs left out). RMError when a command fails, RMOutage
        when Slurm answers with errors or with no node although it had some."""
        nodes = self._read_nodes()
        check_answer("sinfo", len(nodes), self._last_nodes)
        jobs = self._read_jobs().active()
        self._read_partitions()
        self._last = jobs
        self.bad_constraints = jobs.bad_constraints
        job_list = self._with_defaults(self._with_our_holds(jobs))
        reservations = self._read_reservations(nodes, job_list)
        self._last_nodes = len(nodes)
        self._seq += 1
        return ClusterSnapshot(now=int(self._clock()), nodes=tuple(nodes), jobs=job_list,
                               reservations=tuple(reservations), seq=self._seq)

    # ------------------------------------------------------------------ writing
    def _scontrol(self, batch: Batch) -> dict[Hashable, str]:
        """Run the batch through one scontrol; {key: error} for the commands that failed."""
        if not batch:
            return {}
        r = self._run(["scontrol"], stdin=batch.script())
        failed, outside = batch.outcome(r.stderr)
        if MARK not in r.stderr:
            raise RMError(f"scontrol did not read its commands (exit {r.returncode}): "
                          f"{'; '.join(outside) or 'no message'}")
        if outside:
            log.warning("scontrol: %s", "; ".join(outside))
        return failed

    def _start_line(self, s: Start) -> str:
        """The update command for a start, or raise ValueError with the refusal."""
        if not JOB_ID.match(s.job_id):
            raise ValueError(f"refused: {s.job_id!r} is not a Slurm job id")
        nodes = list(dict.fromkeys(s.nodes))
        if not nodes:
            raise ValueError("refused: no nodes in the allocation")
        bad = [n for n in nodes if not NODE_NAME.match(n)]
        if bad:
            raise ValueError(f"refused: {bad[0]!r} is not a node name")
        last = self._last_job(s.job_id)
        if last is not None and last.state in (JobState.RUNNING, JobState.SUSPENDED):
            raise ValueError("refused: the job is already running")
        line = f"update JobId={s.job_id} NodeList={hostlist.compress(nodes)} NumNodes={len(nodes)}-{len(nodes)}"
        default = self._defaults.get(s.job_id)
        if default is not None:
            line += f" TimeLimit={math.ceil(default / 60)}"
        return line

    def over_max_time(self, job_id: str) -> str | None:
        """Why Slurm would never run this job (its time limit over its partition's
        MaxTime), or None."""
        last = self._last_job(job_id)
        if last is None:
            return None
        limit = self.max_times.get(last.class_)
        wall = self._defaults.get(job_id, last.wallclock)
        if limit is None or wall <= limit:
            return None
        return (f"time limit {duration(wall)} over partition {last.class_} MaxTime "
                f"{duration(limit)}: Slurm would never run it")

    def _last_job(self, job_id: str) -> Job | None:
        for j in self._last.jobs:
            if j.id == job_id:
                return j
        return None

    def _remember_pin(self, s: Start) -> None:
        last = self._last_job(s.job_id)
        if last is not None:
            self._pins[s.job_id] = Pin(frozenset(s.nodes), last.request.hostlist, last.request.nodes)

    def _released_waiting(self, job_id: str) -> bool:
        """Slurm shows the job waiting but released (not at the gate, not admin-held)."""
        last = self._last_job(job_id)
        return (last is not None and last.state in (JobState.IDLE, JobState.STARTING)
                and self._last.reasons.get(job_id, "") not in GATE_REASONS)

    def _hold_lines(self, decisions: Sequence[Decision], batch: Batch) -> None:
        for d in decisions:
            if isinstance(d, Defer) and self.hold_all and JOB_ID.match(d.job_id) \
                    and self._released_waiting(d.job_id):
                # a push Slurm did not carry out: back to the gate, or Slurm may start the
                # job later on its pinned nodes behind maui-py's back
                batch.add(("regate", d.job_id), f"uhold {d.job_id}")
                continue
            if not isinstance(d, (HoldDecision, ReleaseHold)) or d.hold is HoldType.DEFER:
                continue
            if not JOB_ID.match(d.job_id):
                log.warning("hold/release of %r refused: not a Slurm job id", d.job_id)
            elif isinstance(d, HoldDecision):
                batch.add(("hold", d.job_id, d.hold), f"hold {d.job_id}")
            elif self.hold_all:
                # back to the gate: never lets the job start
                batch.add(("unhold", d.job_id, d.hold), f"uhold {d.job_id}")
            elif d.job_id in self._holds:
                batch.add(("unhold", d.job_id, d.hold), f"release {d.job_id}")
            else:
                log.warning("release of job %s refused: maui-py did not hold it", d.job_id)

    def apply(self, decisions: Sequence[Decision]) -> list[StartFailure]:
        """Carry out Start, Hold and ReleaseHold (and mirror Reserve when asked).

        Returns the starts that failed. RMError when scontrol could not run at all."""
        failures: list[StartFailure] = []
        starts: dict[str, Start] = {}
        phase1 = Batch()
        for d in decisions:
            if isinstance(d, Start) and d.job_id not in starts:
                never = self.over_max_time(d.job_id) if JOB_ID.match(d.job_id) else None
                if never is not None:      # never pushed; held so it stays off Slurm's queue
                    log.warning("job %s not started and held: %s", d.job_id, never)
                    phase1.add(("hold", d.job_id, HoldType.BATCH), f"hold {d.job_id}")
                    failures.append(StartFailure(d.job_id, f"refused and held: {never}"))
                    continue
                try:
                    phase1.add(("start", d.job_id), self._start_line(d))
                    starts[d.job_id] = d
                except ValueError as e:
                    failures.append(StartFailure(d.job_id, str(e)))
        self._hold_lines(decisions, phase1)
        mirror_changes: dict[str, Mirror | None] = {}
        if self.mirror_reservations:
            reserves = [d for d in decisions if isinstance(d, Reserve) and d.job_id not in starts]
            mirror_changes = plan(self._mirrors, reserves, int(self._clock()), phase1)
        failed1 = self._scontrol(phase1)
        self._record(phase1, failed1, mirror_changes)

        phase2 = Batch()
        for job_id in starts:
            if ("start", job_id) in failed1:
                failures.append(StartFailure(job_id, failed1[("start", job_id)]))
            else:
                phase2.add(("release", job_id), f"release {job_id}")
        failed2 = self._scontrol(phase2)
        released = []
        for (_, job_id), _cmd in phase2.commands:
            if ("release", job_id) in failed2:
                failures.append(StartFailure(job_id, failed2[("release", job_id)]))
            else:
                released.append(job_id)
                self._holds.pop(job_id, None)
                self._remember_pin(starts[job_id])
        if self.verify_timeout > 0 and released:
            failures += self._verify(released)
        return failures

    def _record(self, batch: Batch, failed: dict[Hashable, str],
                mirror_changes: dict[str, Mirror | None]) -> None:
        """Remember the holds and mirrors scontrol accepted."""
        for key, _ in batch.commands:
            if key in failed:
                if key[0] != "start":
                    log.warning("scontrol %s %s: %s", key[0], key[1], failed[key])
                continue
            if key[0] == "hold":
                self._holds[key[1]] = key[2]
            elif key[0] == "unhold":
                self._holds.pop(key[1], None)
            elif key[0] == "regate":
                self._pins.pop(key[1], None)
            elif key[0] == "resv":
                change = mirror_changes.get(key[1])
                if change is None:
                    self._mirrors.pop(key[1], None)
                else:
                    self._mirrors[key[1]] = change

    def _verify(self, released: list[str]) -> list[StartFailure]:
        """Wait up to verify_timeout for released jobs to leave PENDING. BadConstraints ->
        failure at once; still pending at the end -> failure, and the job goes back to
        the gate so Slurm does not start it later behind maui-py's back."""
        deadline = self._clock() + self.verify_timeout
        waiting = set(released)
        failures: list[StartFailure] = []
        reasons: dict[str, str] = {}
        while waiting:
            self._sleep(min(self.poll_interval, max(0.0, deadline - self._clock())))
            jobs = self._read_jobs()
            state = {j.id: j.state for j in jobs.jobs}
            for job_id in sorted(waiting):
                if job_id in jobs.bad_constraints:
                    failures.append(StartFailure(job_id, "Slurm: BadConstraints (the nodes cannot run this job)"))
                    waiting.discard(job_id)
                elif state.get(job_id) not in (JobState.IDLE, JobState.STARTING):
                    waiting.discard(job_id)
                else:
                    reasons[job_id] = jobs.reasons.get(job_id, "")
            if self._clock() >= deadline:
                break
        regate = Batch()
        for job_id in sorted(waiting):
            failures.append(StartFailure(job_id, f"still pending after {self.verify_timeout:g} s "
                                                 f"(Reason={reasons.get(job_id) or 'None'})"))
            if self.hold_all:
                regate.add(("regate", job_id), f"uhold {job_id}")
        for key, error in self._scontrol(regate).items():
            log.warning("could not put job %s back to the gate: %s", key[1], error)
        return failures

    def close(self) -> None:
        """Nothing to release: every command is its own process. Further calls fail."""
        self._closed = True
