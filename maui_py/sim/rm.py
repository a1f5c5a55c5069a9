"""The simulated resource manager: an ordinary adapter with a virtual clock.

It knows the jobs submitted so far, runs the ones the scheduler starts for their actual
runtime (a job is killed at its wallclock limit), and keeps its own account of every
node's resources, independent of the scheduler's planner: a start that would over-allocate
a node, start a job before its submission or start it twice is refused and counted as a
schedule violation. The snapshot carries a delta, so the cycle updates its reservation
table in O(changes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from ..model import (ClusterSnapshot, Decision, Hold, Job, JobState, Node, ReleaseHold,
                     Reserve, Resources, Start, StartKind)
from ..model.job import copier
from ..model.snapshot import build_delta, build_snapshot
from ..rm.protocol import StartFailure

_NONE: frozenset[str] = frozenset()
_run_on = copier("state", "start_time", "allocation")
"""(job, state, start time, allocation) -> the job started: evolve without its keywords."""
_without_allocation = copier("allocation")


@dataclass(slots=True)
class SimRecord:
    """One job's life in the simulation."""

    job: Job
    runtime: int
    start: int | None = None
    end: int | None = None
    kind: StartKind | None = None
    runs: tuple[int, ...] = ()
    """The nodes it ran on, in allocation order, as (first index, count) pairs into
    `cluster`: a job on a thousand nodes keeps a few ints, not a name per node."""
    killed: bool = False
    cluster: tuple[str, ...] = ()
    """Every node name, shared by all records."""
    estimate: int | None = None
    """The runtime predicted for it when it started (PREDICTIONPOLICY), else None."""
    corrections: int = 0
    """How often its planned end passed while it still ran (predict.correctors.corrections_needed)."""

    @property
    def nodes(self) -> tuple[str, ...]:
        """The names of the nodes it ran on, in allocation order. O(nodes)."""
        names, runs = self.cluster, self.runs
        return tuple(names[i] for k in range(0, len(runs), 2)
                     for i in range(runs[k], runs[k] + runs[k + 1]))


@dataclass
class ScheduleCheck:
    """What the simulated resource manager verified about the schedule it was given."""

    starts_checked: int = 0
    violations: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations


class SimulatedRM:
    """ResourceManager over a virtual clock; the Simulation drives submit/finish."""

    name = "sim"

    def __init__(self, nodes: Sequence[Node], clock: Callable[[], int]):
        self.nodes = tuple(nodes)
        self.clock = clock
        self._free = {n.name: n.resources for n in self.nodes}
        self._names = tuple(n.name for n in self.nodes)
        self._index = {name: i for i, name in enumerate(self._names)}
        self._procs_only = all(not n.resources.mem and not n.resources.gres for n in self.nodes)
        """Nodes with processors only: the account is kept in plain ints (_free_procs)."""
        self._free_procs = {n.name: n.resources.procs for n in self.nodes}
        self._up = {n.name for n in self.nodes if n.state.usable}
        self.records: dict[str, SimRecord] = {}
        self._jobs: dict[str, Job] = {}
        self._seq = 0
        self._started: set[str] = set()
        self._ended: set[str] = set()
        self._arrived: list[str] = []
        self.check = ScheduleCheck()
        self.holds_seen = 0

    # ------------------------------------------------------------ the world
    def submit(self, job: Job, runtime: int) -> None:
        self.records[job.id] = SimRecord(job, runtime)
        self._jobs[job.id] = job
        self._arrived.append(job.id)

    def resume(self, job: Job, runtime: int) -> None:
        """Take in a job already in the system (a replay started from a moment of another):
        queued, it is as if submitted; running (active, with its start and allocation), it
        holds its nodes on the account from now on. O(its nodes)."""
        if not job.state.active:
            self.submit(job, runtime)
            return
        self.records[job.id] = rec = SimRecord(job, runtime, start=job.start_time)
        self._jobs[job.id] = job
        for name, res in job.allocation:
            if self._procs_only:
                self._free_procs[name] -= res.procs
            else:
                self._free[name] = self._free[name] - res
        rec.runs, rec.cluster = self._runs(job.allocation), self._names
        self._started.add(job.id)

    def live(self) -> tuple[Job, ...]:
        """Every job in the system now, running (with its start and allocation) or queued."""
        return tuple(self._jobs.values())

    def finish(self, job_id: str, now: int) -> int:
        """End a running job; the processors its allocation held (a node held whole for an
        exclusive job counts all of its processors). O(its nodes)."""
        rec = self.records[job_id]
        job = self._jobs.pop(job_id)
        held = 0
        if self._procs_only:
            fp = self._free_procs
            for name, res in job.allocation:
                fp[name] += res.procs
                held += res.procs
        else:
            for name, res in job.allocation:
                self._free[name] = self._free[name] + res
                held += res.procs
        rec.job = _without_allocation(job, ())  # rec.runs names them: keep one compact copy
        rec.end = now
        self._ended.add(job_id)
        self._started.discard(job_id)
        return held

    # ------------------------------------------------------------ protocol
    def snapshot(self) -> ClusterSnapshot:
        """O(jobs in the system) in C (a tuple of the live jobs), O(changes) in Python."""
        prev = self._seq
        self._seq = seq = prev + 1
        live = self._jobs
        started, ended, arrived = self._started, self._ended, self._arrived
        changed = {j: live[j] for j in started if j in live} if started else {}
        new: tuple[str, ...] = ()
        if arrived:
            new = tuple([j for j in arrived if j in live])
            for j in new:
                changed[j] = live[j]
            self._arrived = []
        if started:
            self._started = set()
        if ended:
            self._ended = set()
        delta = build_delta(prev, frozenset(started), frozenset(ended), _NONE, False,
                            new, changed)
        return build_snapshot(self.clock(), self.nodes, tuple(live.values()), (), seq, delta)

    def apply(self, decisions: Iterable[Decision]) -> list[StartFailure]:
        failures = []
        now = self.clock()
        for d in decisions:
            if type(d) is Reserve:
                continue
            if isinstance(d, Start):
                why = self._start(d, now)
                if why:
                    self.check.violations.append(f"t={now} job {d.job_id}: {why}")
                    failures.append(StartFailure(d.job_id, why))
            elif isinstance(d, (Hold, ReleaseHold)):
                self.holds_seen += 1
        return failures

    def close(self) -> None:
        pass

    def _start(self, d: Start, now: int) -> str | None:
        self.check.starts_checked += 1
        job = self._jobs.get(d.job_id)
        rec = self.records.get(d.job_id)
        if job is None or rec is None:
            return "unknown or finished job"
        if job.state.active:
            return "started twice"
        if now < job.submit_time:
            return f"started before its submission at {job.submit_time}"
        alloc = d.allocation
        if self._procs_only:
            runs = self._take_procs(alloc, job.procs)
            if runs is None:
                return self._why_not_procs(alloc, job.procs) or "does not fit"
        else:
            why = self._take(alloc, job.procs)
            if why:
                return why
            runs = self._runs(alloc)
        running = _run_on(job, JobState.RUNNING, now, alloc)
        self._jobs[d.job_id] = running
        rec.job = running
        rec.start, rec.kind = now, d.kind
        rec.runs, rec.cluster = runs, self._names
        self._started.add(d.job_id)
        return None

    def _runs(self, allocation) -> tuple[int, ...]:
        """(first index, count) pairs of consecutive nodes, in allocation order. O(nodes)."""
        index = self._index
        runs: list[int] = []
        prev = -2
        for name, _res in allocation:
            i = index[name]
            if i == prev + 1:
                runs[-1] += 1
            else:
                runs += (i, 1)
            prev = i
        return tuple(runs)

    def _take(self, allocation, procs_asked: int) -> str | None:
        """Check and take an allocation on the resource account; why not, or None."""
        need: dict[str, Resources] = {}
        for name, res in allocation:
            need[name] = need[name] + res if name in need else res
        for name, res in need.items():
            if name not in self._up:
                return f"node {name} is not up"
            if not res.fits_in(self._free[name]):
                return f"node {name} over-allocated: needs {res}, has {self._free[name]}"
        procs = sum(r.procs for r in need.values())
        if procs < procs_asked:
            return f"given {procs} procs, asked {procs_asked}"
        for name, res in need.items():
            self._free[name] = self._free[name] - res
        return None

    def _take_procs(self, allocation, procs_asked: int) -> tuple[int, ...] | None:
        """_take on processors-only nodes, with ints (an allocation asking memory or gres
        there cannot fit: none exists): the allocation's _runs, or None with the account
        as it was when it does not fit (_why_not_procs says why). O(nodes)."""
        fp, up = self._free_procs, self._up
        done = got = 0
        for name, res in allocation:
            p = res.procs
            if res.mem or res.gres or name not in up or p > fp[name]:
                break
            fp[name] -= p
            got += p
            done += 1
        else:
            if got >= procs_asked:
                return self._runs(allocation)
        for name, res in allocation[:done]:
            fp[name] += res.procs
        return None

    def _why_not_procs(self, allocation, procs_asked: int) -> str | None:
        """Why an allocation does not fit on processors-only nodes, or None (the account
        is not changed)."""
        need: dict[str, int] = {}
        for name, res in allocation:
            if res.mem or res.gres:
                return f"node {name} over-allocated: needs {res}, has only processors"
            need[name] = need.get(name, 0) + res.procs
        fp, up = self._free_procs, self._up
        for name, p in need.items():
            if name not in up:
                return f"node {name} is not up"
            if p > fp[name]:
                return f"node {name} over-allocated: needs {p} procs, has {fp[name]}"
        procs = sum(need.values())
        if procs < procs_asked:
            return f"given {procs} procs, asked {procs_asked}"
        return None

    # ------------------------------------------------------------ views
    def running(self) -> int:
        return sum(1 for j in self._jobs.values() if j.state.active)

    def queued(self) -> int:
        return sum(1 for j in self._jobs.values() if not j.state.active)

    def busy_procs(self) -> int:
        if self._procs_only:
            return sum(n.resources.procs - self._free_procs[n.name] for n in self.nodes)
        return sum(n.resources.procs - self._free[n.name].procs for n in self.nodes)
