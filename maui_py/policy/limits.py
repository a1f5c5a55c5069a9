"""Throttling policies (spec §2.6): MAXJOB, MAXPROC, MAXNODE, MAXPS, MAXMEM, MAXWC per user,
group, account, class and QOS, with soft and hard values; idle (eligible) limits MAXI*;
QOS override limits OMAX*.

A credential's limit comes from its own *CFG entry, else from the *CFG[DEFAULT] entry.
A QOS override OMAX<X> replaces every other credential's MAX<X> for that QOS's jobs.
Usage counts active jobs (and, for idle limits, the eligible jobs admitted so far this
cycle); it grows as the cycle starts jobs, so a limit reached mid-cycle blocks the rest.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Iterable

from ..cfg import Limit, SchedulerConfig
from ..model import Job
from ..model.times import duration

CREDS = (("USERCFG", "user"), ("GROUPCFG", "group"), ("ACCOUNTCFG", "account"),
         ("CLASSCFG", "class"), ("QOSCFG", "qos"))
ACTIVE = ("JOB", "PROC", "NODE", "PS", "MEM", "WC")
IDLE = ("JOB", "PROC", "NODE", "PS", "MEM", "WC")


class Level(StrEnum):
    """Which value of a `[<SOFT>,]<HARD>` limit applies: backfill tries soft limits first."""

    SOFT = "SOFT"
    HARD = "HARD"


SOFT, HARD = Level.SOFT, Level.HARD

LIMIT_ATTRS: dict[tuple[str, str], str] = {
    ("MAX", "JOB"): "MAXJOB", ("MAX", "PROC"): "MAXPROC", ("MAX", "NODE"): "MAXNODE", ("MAX", "PS"): "MAXPS",
    ("MAX", "MEM"): "MAXMEM", ("MAX", "WC"): "MAXWC",
    ("MAXI", "JOB"): "MAXIJOB", ("MAXI", "PROC"): "MAXIPROC", ("MAXI", "NODE"): "MAXINODE",
    ("MAXI", "PS"): "MAXIPS", ("MAXI", "MEM"): "MAXIMEM", ("MAXI", "WC"): "MAXIWC",
    ("OMAX", "JOB"): "OMAXJOB", ("OMAX", "PROC"): "OMAXPROC", ("OMAX", "NODE"): "OMAXNODE",
    ("OMAX", "PS"): "OMAXPS", ("OMAX", "MEM"): "OMAXMEM", ("OMAX", "WC"): "OMAXWC",
    ("OMAXI", "JOB"): "OMAXIJOB", ("OMAXI", "PROC"): "OMAXIPROC", ("OMAXI", "NODE"): "OMAXINODE",
    ("OMAXI", "PS"): "OMAXIPS", ("OMAXI", "MEM"): "OMAXIMEM", ("OMAXI", "WC"): "OMAXIWC",
}
"""(kind of limit, counter) -> the *CFG attribute that sets it: MAX (active jobs), MAXI (idle
jobs), OMAX/OMAXI (a QOS's override of every other credential's limit)."""


def cred_name(job: Job, kind: str) -> str:
    return {"user": job.user, "group": job.group, "account": job.account,
            "class": job.class_, "qos": job.qos}[kind]


def job_amounts(job: Job, remaining: int | None = None) -> dict[str, int]:
    """What one job adds to each usage counter."""
    wc = job.wallclock if remaining is None else max(remaining, 0)
    nodes = len(job.allocation) or job.request.nodes or 1
    return {"JOB": 1, "PROC": job.procs, "NODE": nodes, "PS": job.procs * wc,
            "MEM": job.request.total.mem, "WC": wc}


@dataclass
class Usage:
    """Per (credential kind, name) totals of the counters in ACTIVE."""

    totals: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)
    adds = 0
    """How many add() calls changed it (Limits.active_violation's memo of verdicts)."""

    def add(self, job: Job, amounts: dict[str, int]) -> None:
        self.adds += 1
        for _param, kind in CREDS:
            name = cred_name(job, kind)
            if not name:
                continue
            t = self.totals.setdefault((kind, name), dict.fromkeys(ACTIVE, 0))
            for k, v in amounts.items():
                t[k] += v

    def get(self, kind: str, name: str, counter: str) -> int:
        t = self.totals.get((kind, name))
        return t[counter] if t else 0


class LiveUsage(Usage):
    """The Usage ActiveUsage.usage hands a cycle: a credential's row is read from the
    running jobs' sums the first time the cycle asks for it or adds to it (a cycle asks
    for the few credentials its candidates carry; building every row cost a tenth of a
    fair-share cycle). Valid until the next ActiveUsage.usage call: a later read raises
    instead of reading moved sums. `totals` gives every row (the from-scratch Usage)."""

    def __init__(self, src: ActiveUsage, now: int):     # noqa: D107 (no dataclass init)
        self._src, self._gen, self._now = src, src._gen, now
        self._rows: dict[tuple[str, str], dict[str, int] | None] = {}

    def _row(self, key: tuple[str, str]) -> dict[str, int] | None:
        rows = self._rows
        if key in rows:
            return rows[key]
        if self._src._gen != self._gen:
            raise RuntimeError("a LiveUsage read after the next cycle's usage()")
        t = rows[key] = self._src.row(key, self._now)
        return t

    @property
    def totals(self) -> dict[tuple[str, str], dict[str, int]]:     # type: ignore[override]
        for key in self._src._sums:
            self._row(key)
        return {k: t for k, t in self._rows.items() if t is not None}

    def add(self, job: Job, amounts: dict[str, int]) -> None:
        self.adds += 1
        for _param, kind in CREDS:
            name = cred_name(job, kind)
            if not name:
                continue
            t = self._row((kind, name))
            if t is None:
                t = self._rows[kind, name] = dict.fromkeys(ACTIVE, 0)
            for k, v in amounts.items():
                t[k] += v

    def get(self, kind: str, name: str, counter: str) -> int:
        t = self._row((kind, name))
        return t[counter] if t else 0


class ActiveUsage:
    """The usage of the running jobs as of a cycle's `now`, kept per job start and end
    instead of re-added every cycle.

    Per credential: JOB, PROC, NODE and MEM are sums that change only when a job starts or
    ends; PS and WC count each job's remaining time `max(start + wallclock - now, 0)`
    (the whole wallclock when its start is unknown), so the jobs not yet past their end
    are kept as sums of procs x end, procs, end and their number, and a heap of ends moves
    a job out of them once `now` passes its end. Integers: exactly what adding every
    running job's job_amounts from scratch gives. O(credentials + jobs started, ended or
    past their end) per cycle, plus an identity check per running job unless the cycle
    hands it the moves of its running set (core/jobsets.py); a clock that goes back
    rebuilds from scratch."""

    __slots__ = ("_jobs", "_sums", "_heap", "_now", "_seq", "_gen", "_synced")

    def __init__(self):
        self._jobs: dict[str, list] = {}
        """jid -> [job, credential keys, procs, end or None (unknown start), seq, live]."""
        self._sums: dict[tuple[str, str], list[int]] = {}
        """(kind, name) -> [JOB, PROC, NODE, MEM, PS and WC of unknown starts,
        procs x end, procs, end and count of the live jobs]."""
        self._heap: list[tuple[int, int, str]] = []
        self._now: int | None = None
        self._seq = 0
        self._gen = getattr(self, "_gen", 0) + 1
        self._synced: int | None = None
        """The running set (core/jobsets token) the last usage() synced to; None: none."""

    def usage(self, now: int, running: Iterable[Job], moves=None) -> Usage:
        """A fresh Usage of `running` at `now` (the cycle adds its own starts to it).
        `moves` (core/jobsets.Moves): when they start from the running set this usage
        last synced to, only the jobs they name are looked at."""
        if self._now is not None and now < self._now:
            self.__init__()
        self._now = now
        jobs = self._jobs
        if moves is not None and self._synced is not None and moves.prev == self._synced:
            cur = {job.id: job for job in moves.jobs}
            for jid in moves.left:
                rec = jobs.pop(jid, None)
                if rec is not None:
                    self._remove(rec)
        else:
            cur = {job.id: job for job in running}
            if not cur.keys() >= jobs.keys():
                for jid in [j for j in jobs if j not in cur]:
                    self._remove(jobs.pop(jid))
        self._synced = moves.cur if moves is not None else None
        for jid, job in cur.items():
            rec = jobs.get(jid)
            if rec is not None:
                if rec[0] is job:
                    continue
                self._remove(rec)
            self._insert(job, now)
        heap = self._heap
        while heap and heap[0][0] <= now:
            _end, seq, jid = heapq.heappop(heap)
            rec = jobs.get(jid)
            if rec is not None and rec[4] == seq and rec[5]:
                rec[5] = False
                self._live(rec, -1)
        self._gen += 1
        return LiveUsage(self, now)

    def row(self, key: tuple[str, str], now: int) -> dict[str, int] | None:
        """The ACTIVE counters of one credential at `now` (None: no running job). O(1)."""
        t = self._sums.get(key)
        if t is None:
            return None
        n, procs, nodes, mem, ps0, wc0, pe, p, e, live = t
        return {"JOB": n, "PROC": procs, "NODE": nodes, "PS": ps0 + pe - now * p,
                "MEM": mem, "WC": wc0 + e - now * live}

    def _insert(self, job: Job, now: int) -> None:
        procs, wallclock = job.procs, job.wallclock
        keys = tuple((kind, name) for _param, kind in CREDS if (name := cred_name(job, kind)))
        end = None if job.start_time is None else job.start_time + wallclock
        self._seq += 1
        rec = [job, keys, procs, end, self._seq, end is not None and end > now]
        self._jobs[job.id] = rec
        nodes = len(job.allocation) or job.request.nodes or 1
        mem = job.request.total.mem
        ps0, wc0 = (procs * max(wallclock, 0), max(wallclock, 0)) if end is None else (0, 0)
        sums = self._sums
        for key in keys:
            t = sums.get(key)
            if t is None:
                t = sums[key] = [0] * 10
            t[0] += 1
            t[1] += procs
            t[2] += nodes
            t[3] += mem
            t[4] += ps0
            t[5] += wc0
        if rec[5]:
            self._live(rec, 1)
            heapq.heappush(self._heap, (end, self._seq, job.id))

    def _remove(self, rec: list) -> None:
        if rec[5]:
            self._live(rec, -1)
        job, keys, procs, end = rec[0], rec[1], rec[2], rec[3]
        nodes = len(job.allocation) or job.request.nodes or 1
        mem = job.request.total.mem
        ps0, wc0 = (procs * max(job.wallclock, 0), max(job.wallclock, 0)) if end is None else (0, 0)
        sums = self._sums
        for key in keys:
            t = sums[key]
            if t[0] == 1:
                del sums[key]
                continue
            t[0] -= 1
            t[1] -= procs
            t[2] -= nodes
            t[3] -= mem
            t[4] -= ps0
            t[5] -= wc0

    def _live(self, rec: list, sign: int) -> None:
        """Add (1) or take out (-1) a job's end from its credentials' live sums."""
        procs, end = rec[2], rec[3]
        for key in rec[1]:
            t = self._sums[key]
            t[6] += sign * procs * end
            t[7] += sign * procs
            t[8] += sign * end
            t[9] += sign


@dataclass(frozen=True, slots=True)
class Violation:
    limit: str       # e.g. "MAXJOB"
    value: int
    kind: str        # credential kind
    name: str

    def __str__(self) -> str:
        return f"{self.limit} {self.value} reached for {self.kind} {self.name}"


class Refusal(str):
    """A reason a job can never run as submitted (over its class's MAX.WCLIMIT): the cycle
    puts a batch hold on it at once, with this reason, instead of deferring it again every
    DEFERTIME (Maui: "job violates class configuration", MJobSetHold(mhBatch))."""

    hold = True


class Limits:
    """The throttling limits of one config, resolved per credential on demand."""

    def __init__(self, cfg: SchedulerConfig):
        self.cfg = cfg
        self._cache: dict[tuple[str, str, str], Limit | None] = {}
        self.any_active = self._any(LIMIT_ATTRS[k, c] for k in ("MAX", "OMAX") for c in ACTIVE)
        self.any_idle = self._any(LIMIT_ATTRS[k, c] for k in ("MAXI", "OMAXI") for c in IDLE)
        wall = cfg.get("SYSTEMMAXJOBWALLTIME")
        procs = cfg.get("SYSTEMMAXPROCPERJOB")
        self.sys_wallclock = wall if isinstance(wall, int) and wall > 0 else None
        self.sys_procs = procs if isinstance(procs, int) and procs > 0 else None
        self.class_wallclock: dict[str, tuple[int, str] | None] = {}
        self.active = ActiveUsage()
        """The running jobs' usage, kept from cycle to cycle (a Limits lives as long as its
        state's engine cache)."""
        self.plans: dict[str, tuple[Job, tuple]] = {}
        """job id -> (job, active_plan(job)): checked by identity before use."""
        self._interned: dict[tuple, tuple] = {}
        """Each distinct plan once, so that equal plans are one object (keys of _verdicts)."""
        self._verdicts: tuple = (None, -1, {})
        """(usage, usage.adds, {(id(plan), level): Violation or None}): the verdicts asked
        of one usage as it stood after that many adds (see active_violation)."""
        self.walks = 0
        """How many plans active_violation checked against usage (not from _verdicts)."""

    def class_max_wallclock(self, job_class: str) -> tuple[int, str] | None:
        """(CLASSCFG[class] MAX.WCLIMIT, "class"), else CLASSCFG[DEFAULT]'s with "DEFAULT";
        None when neither sets one. Cached per class: O(1) after the first job of a class."""
        if job_class not in self.class_wallclock:
            found = None
            for name in ((job_class, "DEFAULT") if job_class else ("DEFAULT",)):
                v = self.cfg.object("CLASSCFG", name).get("MAX.WCLIMIT")
                if isinstance(v, int) and v > 0:
                    found = (v, name)
                    break
            self.class_wallclock[job_class] = found
        return self.class_wallclock[job_class]

    def _any(self, attrs: Iterable[str]) -> bool:
        attrs = set(attrs)
        for param, _kind in CREDS:
            for obj in self.cfg.objects(param).values():
                if attrs & set(obj):
                    return True
        return False

    def _limit(self, param: str, name: str, attr: str) -> Limit | None:
        key = (param, name, attr)
        if key not in self._cache:
            v = self.cfg.object(param, name).get(attr) if name else None
            if v is None:
                v = self.cfg.object(param, "DEFAULT").get(attr)
            if isinstance(v, int):
                v = Limit(v, v)
            self._cache[key] = v if isinstance(v, Limit) else None
        return self._cache[key]

    def system_violation(self, job: Job) -> str | None:
        """Per-job system limits: a job over them is deferred (Maui MPolicy.c); a job over
        its class's MAX.WCLIMIT gets a Refusal (held: it can never run as submitted)."""
        cmax = self.class_max_wallclock(job.class_)
        if cmax is not None and job.wallclock > cmax[0]:
            return Refusal(f"job violates class configuration: wallclock {duration(job.wallclock)} "
                           f"over CLASSCFG[{cmax[1]}] MAX.WCLIMIT {duration(cmax[0])}")
        if self.sys_procs is not None and job.procs > self.sys_procs:
            return f"exceeds system proc/job limit ({job.procs} > {self.sys_procs})"
        if self.sys_wallclock is not None and job.wallclock > self.sys_wallclock:
            return f"exceeds system max job walltime ({job.wallclock} > {self.sys_wallclock} s)"
        return None

    def _first_violation(self, job: Job, usage: Usage, amounts: dict[str, int], prefix: str,
                          counters: Iterable[str], level: Level) -> Violation | None:
        for counter in counters:
            attr = LIMIT_ATTRS[prefix, counter]
            override = self._limit("QOSCFG", job.qos, LIMIT_ATTRS["O" + prefix, counter]) if job.qos else None
            for param, kind in CREDS:
                name = cred_name(job, kind)
                if not name:
                    continue
                lim = override if override is not None else self._limit(param, name, attr)
                if lim is None:
                    continue
                value = lim.soft if level == SOFT else lim.hard
                if value is None or value < 0:
                    continue
                if usage.get(kind, name, counter) + amounts[counter] > value:
                    return Violation(attr, value, kind, name)
                if override is not None:
                    break
        return None

    def active_violation(self, job: Job, usage: Usage, level: Level = HARD) -> Violation | None:
        """Would starting `job` now exceed an active-job limit at `level`? The answer of
        _first_violation(job, usage, job_amounts(job), "MAX", ACTIVE, level), from the
        job's kept plan (active_plan): O(limits that apply to the job), none for most.
        A verdict is a function of the plan, `usage` and `level` alone, and equal plans
        are one object: jobs with the same plan asked of the same usage (not added to
        since) share one walk. A deep queue held back by one limit (QOS MAXJOB) thus
        costs a look-up per job and cycle, not a walk (tests/unit/test_fs_counts.py)."""
        if not self.any_active:
            return None
        hit = self.plans.get(job.id)
        plan = hit[1] if hit is not None and hit[0] is job else self.active_plan(job)
        if not plan:
            return None
        memo = self._verdicts
        if memo[0] is not usage or memo[1] != usage.adds:
            memo = self._verdicts = (usage, usage.adds, {})
        key = (id(plan), level)
        verdicts = memo[2]
        if key in verdicts:
            return verdicts[key]
        v = verdicts[key] = self._walk(plan, usage, level)
        return v

    def _walk(self, plan: tuple, usage: Usage, level: Level) -> Violation | None:
        """The first limit of `plan` that `usage` plus the job's amounts would cross at
        `level`. O(limits in the plan)."""
        self.walks += 1
        for attr, counter, amount, checks, override in plan:
            for kind, name, lim in checks:
                value = lim.soft if level == SOFT else lim.hard
                if value is None or value < 0:
                    continue
                if usage.get(kind, name, counter) + amount > value:
                    return Violation(attr, value, kind, name)
                if override:
                    break
        return None

    def active_plan(self, job: Job) -> tuple:
        """The active-job limits that can apply to `job`, in _first_violation's order:
        ((MAX attribute, counter, the job's amount, ((kind, name, limit), ...), QOS
        override), ...), leaving out limits unset at both levels (which _first_violation
        passes over). A function of the job and the configuration only, so kept per Job
        object in `plans` (swept when it passes 200,000 entries). O(counters x creds)."""
        if len(self.plans) > 200_000:
            self.plans.clear()
            self._interned.clear()
            self._verdicts = (None, -1, {})     # keyed by ids of plans no longer held
        plan = self._plan(job)
        plan = self._interned.setdefault(plan, plan)
        self.plans[job.id] = (job, plan)
        return plan

    def check_plans(self) -> None:
        """Raise AssertionError unless every kept plan equals one made from scratch."""
        for jid, (job, plan) in self.plans.items():
            assert jid == job.id and plan == self._plan(job), jid

    def _plan(self, job: Job) -> tuple:
        """active_plan(job) made from scratch, not kept."""
        amounts = job_amounts(job)
        plan = []
        for counter in ACTIVE:
            attr = LIMIT_ATTRS["MAX", counter]
            override = (self._limit("QOSCFG", job.qos, LIMIT_ATTRS["OMAX", counter])
                        if job.qos else None)
            checks = []
            for param, kind in CREDS:
                name = cred_name(job, kind)
                if not name:
                    continue
                lim = override if override is not None else self._limit(param, name, attr)
                if lim is None or all(v is None or v < 0 for v in (lim.soft, lim.hard)):
                    continue
                checks.append((kind, name, lim))
            if checks:
                plan.append((attr, counter, amounts[counter], tuple(checks), override is not None))
        return tuple(plan)

    def idle_violation(self, job: Job, usage: Usage) -> Violation | None:
        """Would admitting `job` to the eligible queue exceed an idle limit (hard only)?"""
        if not self.any_idle:
            return None
        return self._first_violation(job, usage, job_amounts(job), "MAXI", IDLE, HARD)
