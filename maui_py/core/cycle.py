"""One Maui scheduling iteration: run_cycle(snapshot, config, state) -> CycleResult.

No I/O. The daemon and the simulator call this same function; only the adapter and the
clock differ. The steps follow Maui 3.3.1's MSchedProcessJobs (spec §3.1):

1. sync the reservation table with the snapshot; settle last cycle's starts (a job still
   idle after its start was pushed is a failed start: DEFERSTARTCOUNT, retry hold);
   expired defers are released;
2. eligibility: holds, dependencies, defers, system per-job limits, jobs the cluster can
   never run (deferred, then batch-held after DEFERCOUNT defers);
3. priority order (ties: priority, submit time, job id, shorter ids first so that numeric
   ids sort as numbers); idle-job limits (MAXI*);
4. jobs holding a reservation from an earlier cycle (HIGHEST keeps and slides them; a
   retry hold keeps one on the same resources for RESERVATIONRETRYTIME);
5. the priority pass: in order, each job starts now if it fits without touching any
   reservation, else gets a priority reservation while its RESERVATIONDEPTH group has room;
   the first job that can do neither ends the pass (MQueueScheduleIJobs);
6. backfill (BACKFILLPOLICY) over the rest, soft throttling limits first, then hard: a job
   starts only where it fits for its whole wallclock around every reservation.

EASY, hybrid and conservative backfill are this one loop with RESERVATIONDEPTH 1, N and
unlimited. A start that jumps a waiting higher-priority job is a BACKFILL start and adds
one to the bypass count of every job it jumped (spec §3.5.4).
"""

from __future__ import annotations

from operator import attrgetter, itemgetter
from dataclasses import replace
from typing import Any, Callable

from ..cfg import SchedulerConfig
from ..model import (ClusterSnapshot, Decision, Hold, HoldType, Job, NodeState,
                     Reservation, ReservationKind, Reserve, Start, StartKind)
from ..model.report import ReportStatus
from ..model.times import duration
from ..planning.applies import counting_applies, counts_request
from ..planning.memo import VectorShrinkMemo
from ..planning.reservations import as_reservations, sync_reservations
from ..planning import memo, owners
from ..planning.sync import sync_table
from ..planning.api import FOREVER, Compiled, NoPlacement, Placement, Planner
from ..policy import deferral, prediction, standing
from ..policy.limits import Limits, Usage, Violation, job_amounts
from ..policy.nodecfg import apply_nodecfg
from ..policy.priority_pass import NO_ROOM
from ..policy.reservation import ReservationGroups
from ..priority.engine import Breakdown, JobContext, PriorityEngine, order_key
from ..priority.policy import (Arrangement, FairShareHost, MauiFairShare, MauiOrder,
                               PolicyView)
from ..priority.queues import make_queue_policy
from . import changes, jobsets, parked, selection
from .caches import CountingCache, EngineCache, NodecfgCache, StandingCache, engine_for
from .context import Settings
from .passes import run_passes
from .result import CycleResult, JobReport, nodes_text, order_ids as lazy_ids
from .state import PendingStart, SchedulerState


_NO_FLAGS: frozenset[str] = frozenset()
_REQUEST = attrgetter("wallclock")
_ID, _ENTRY_JOB = attrgetter("id"), itemgetter(0)
MAX_RUNNOW = 1_000_000_000
"""The system priority a runjob request gives (the top of setspri's range)."""


def run_cycle(snapshot: ClusterSnapshot, config: SchedulerConfig,
              state: SchedulerState | None = None, *, explain: bool = True,
              reserves: bool = True) -> CycleResult:
    """Decide what starts now and what is reserved. `explain` adds one report line and a
    priority breakdown per job (the daemon wants them; a long simulation does not).
    `reserves`: end the decisions with a Reserve per priority reservation held (the daemon
    mirrors and journals them; a replay on the count table reads none, and listing them
    costs a walk of every reservation per cycle)."""
    return Cycle(snapshot, config, state if state is not None else SchedulerState(),
                 explain, reserves).run()


def order_ids(order) -> list[str]:
    """The job ids of (job, compiled, priority) entries, in order; in C (200,000 of them)."""
    return list(map(_ID, map(_ENTRY_JOB, order)))


def _engine(state: SchedulerState, cfg: SchedulerConfig, nodes) -> EngineCache:
    """The engine cache for `cfg` and `nodes` (core/caches.engine_for); a new configuration
    also makes a new queue policy, keeping its usage. O(1) when cached."""
    eng, new_cfg = engine_for(state.caches, cfg, nodes)
    if new_cfg:
        policy = make_queue_policy(cfg)
        if state.queue_policy is not None:
            policy.restore(state.queue_policy.dump())   # usage survives a policy change
        state.queue_policy = policy
    return eng


class Cycle:
    """One cycle's working context, which the passes (policy/) read and extend: every
    attribute is declared and typed below (tests/unit/test_cycle_context.py)."""

    # what the cycle works on (set in __init__ and run)
    snap: ClusterSnapshot
    cfg: SchedulerConfig
    settings: Settings
    """The configuration's parameters, typed, read once (core/context.py)."""
    state: SchedulerState
    explain: bool
    list_reserves: bool
    now: int
    span: Callable[[Job], int]
    """The seconds the planner gives a queued job: its prediction (PREDICTIONPOLICY), else
    its request. O(1)."""
    engine: PriorityEngine
    limits: Limits
    groups: ReservationGroups
    table: Planner
    """The planner (planning/api.py: the node table or the count planner)."""
    by_id: dict[str, Job]
    running: list[Job]
    held: dict[str, tuple[Reservation, Any, tuple]]
    """owner -> (non-job reservation, its access rule, nodes held)."""
    access: dict[str, Any]
    _ign_cache: dict[str, tuple[str, ...]]
    """job id -> the reservations it may use (ignore), this cycle."""
    policy: Any
    """The queue policy (priority/policy.py)."""
    passive_policy: bool
    # what it has decided and learnt so far (the passes extend these)
    decisions: list[Decision]
    reports: dict[str, JobReport]
    started: set[str]
    positions: list[int]
    """Where each job started this cycle stands in the order the passes were given
    (changes.remember takes them out by place)."""
    bf_positions: list[int]
    blocked_soft: dict[str, Violation]
    """Jobs a soft limit held back in the priority pass, with that limit (formatted only
    by the reports: a deep queue behind one limit meets it every cycle)."""
    no_reservation: dict[str, str]
    settled: set[str]
    """Jobs deferred or held during this cycle: their report stands."""
    priorities: dict[str, Breakdown]
    usage: Usage
    shrink: VectorShrinkMemo
    """Start-now failures while table.freed stays (fits_now, priority_pass)."""
    carried: memo.Carried | None    # the last cycle's `shrink` (fits_now): CycleCaches.carry
    reserve_decisions: list[Reserve]
    in_passes: bool
    """Past eligibility: a defer from here on changes the order's fate (changes.py)."""
    pass_defers: bool
    res_started: bool
    pass_end: tuple | None
    stop_reason: str | None
    kept_head: bool
    """The priority reservations are known to head the order, in order, with no retry hold
    and each as long as its job's request: set by changes.run, whose last cycle checked
    this (remember) and which runs only when nothing since could change it (no job changed,
    no start failed, the order kept, no prediction). kept._unmoved then skips its check."""

    parked: Any                 # core/parked.View: jobs a limit stops, out of the passes' order
    parked_at: Callable | None  # entry -> does one of them rank before it

    def __init__(self, snap: ClusterSnapshot, cfg: SchedulerConfig, state: SchedulerState,
                 explain: bool, reserves: bool = True):
        self.snap, self.cfg, self.state, self.explain = snap, cfg, state, explain
        self.list_reserves = reserves
        self.now = snap.now
        self.decisions = []
        self.reports = {}
        eng = _engine(state, cfg, snap.nodes)
        self.engine, self.limits, self.groups = eng.engine, eng.limits, eng.groups
        self.settings = eng.settings
        self.span = self._predicted_span if self.settings.predicting.on else _REQUEST
        self.started = set()
        self.bf_positions = []
        self.positions = []
        self.blocked_soft = {}
        self.no_reservation = {}
        self.settled = set()
        self.priorities = {}
        self.usage = Usage()
        self.shrink = VectorShrinkMemo()
        self.carried = state.caches.carry(self.shrink, self.now)
        self.reserve_decisions = []
        self.in_passes = self.pass_defers = self.res_started = self.kept_head = False
        self.pass_end = self.stop_reason = self.parked = self.parked_at = None

    # ------------------------------------------------------------------ driver
    def run(self) -> CycleResult:
        st = self.state
        last_selection, st.caches.selection = st.caches.selection, None
        if st.caches.changes is not None:
            fast = changes.run(self)
            if fast is not None:
                st.caches.selection = last_selection    # for the next full cycle's _reuse
                return fast
        st.iteration += 1
        snap, now = self.snap, self.now
        running, queued, by_id, st.caches.jobsets, moves = jobsets.split(snap,
                                                                         st.caches.jobsets)
        if st.system_priority or st.run_now:
            queued = [self._override(j) for j in queued]
            by_id = dict(by_id)             # the kept sets' dictionary stays the snapshot's
            by_id.update((j.id, j) for j in queued)
        self.by_id = by_id
        self.running = running
        sync_span = None
        if self.settings.predicting.on:
            prediction.observe(self, now, [k for k in st.predictions if k not in by_id],
                               running, queued)
            sync_span = prediction.planned_span(self.cfg, st.predictions)
        if self.settings.nodecfg:
            nc = st.caches.nodecfg
            if nc is None or nc.nodes is not snap.nodes or nc.cfg is not self.cfg:
                nc = st.caches.nodecfg = NodecfgCache(snap.nodes, self.cfg,
                                                      apply_nodecfg(self.cfg, snap.nodes))
            snap = self.snap = replace(snap, nodes=nc.applied)
        self.table = sync_table(st.caches.plan, snap, running, by_id, self.settings.overrun,
                                self._counting(queued),
                                **({"span": sync_span} if sync_span else {}))
        self.held = self._sync_reservations()
        self.access = {o: a for o, (_r, a, _n) in self.held.items()}
        self._ign_cache: dict[str, tuple[str, ...]] = {}
        self.policy = st.queue_policy
        self.passive_policy = type(self.policy) is MauiOrder
        if isinstance(self.policy, FairShareHost):      # ours: told what moved
            self.policy.charge(now, running, moves)
        else:
            self.policy.charge(now, running)
        if self.limits.any_active:
            self.usage = self.limits.active.usage(now, running, moves)
        self._forget_gone(by_id)
        deferral.settle_starts(self)
        deferral.release_defers(self)
        order = selection.select(self, queued, last_selection)
        order = self._arrange(order)
        order = self._idle_limits(order)
        run_passes(self, order, running)
        if self.started and not self.passive_policy:
            self.policy.observe([by_id[j] for j in order_ids(order) if j in self.started],
                                self._view())
        st.last_now = now
        st.caches.changes = changes.remember(self, order)
        ids = lazy_ids(order) if self.parked is None else parked.FullOrder(order, self.parked)
        return CycleResult(now, st.iteration, self.decisions, self.reports, st,
                           ids, self.priorities, self._held_view(),
                           len(self.reserve_decisions))

    def _counting(self, queued: list[Job]) -> bool:
        """Plan with processor counts (planning/counts.py): identical nodes, only job
        reservations, the MAUI queue policy, no GREEDY windows, and every queued request
        plain one-processor tasks. O(queued) dictionary look-ups: the cache of answers by
        request keeps twice the queue (a bound of 10,000 emptied it every 10,000 requests
        of a 200,000-job queue, each cycle asking every request again)."""
        if not self.settings.count_policy or type(self.state.queue_policy) is not MauiOrder:
            return False
        snap, cache = self.snap, self.state.caches.counting
        if cache is None or cache.nodes is not snap.nodes:
            cache = self.state.caches.counting = CountingCache(snap.nodes,
                                                                counting_applies(snap.nodes))
        if not cache.applies or self.state.caches.plan.external:
            return False
        for r in snap.reservations:
            if r.kind is not ReservationKind.JOB:
                return False
        known = cache.requests
        for j in queued:
            req = j.request
            ok = known.get(id(req))
            if ok is None or ok[0] is not req:
                if len(known) > 2 * len(queued) + 10_000:
                    known.clear()
                ok = known[id(req)] = (req, counts_request(req))
            if not ok[1]:
                return False
        return True

    def _override(self, job: Job) -> Job:
        """setspri and runjob: a run-now job ranks above every other."""
        sp = MAX_RUNNOW if job.id in self.state.run_now else self.state.system_priority.get(job.id)
        if sp is None or sp == job.system_priority:
            return job
        return replace(job, system_priority=sp)

    # ------------------------------------------------------------- bookkeeping
    def report(self, job_id: str, status: ReportStatus, reason: str, **kw: Any) -> None:
        if self.explain:
            self.reports[job_id] = JobReport(job_id, status, reason, **kw)

    def _forget_gone(self, by_id: dict[str, Job]) -> None:
        """Drop what the state keeps for jobs no longer in the snapshot. The compiled
        requests, a cache whose hits are checked by job identity and which holds an entry
        per queued job, are swept only once they outnumber twice the jobs: a sweep a cycle
        would walk every queued job. O(the maps' sizes): each map is walked, not the
        snapshot's jobs (`keys() - by_id.keys()` would walk those)."""
        st = self.state
        if st.run_now:
            st.run_now.difference_update([k for k in st.run_now if k not in by_id])
        bound = 2 * len(by_id) + 64
        compiled = st.caches.compiled
        for d in (*st.by_job(), compiled):
            if d and (d is not compiled or len(d) > bound):
                for k in [k for k in d if k not in by_id]:
                    if d is st.reservations:
                        self.table.release(owners.priority(k))
                    del d[k]
        if len(self.engine._static) > bound:
            for k in [k for k in self.engine._static if k not in by_id]:
                self.engine.forget(k)

    # -------------------------------------------------------------- eligibility
    def select(self, queued: list[Job]) -> list[tuple[Job, Compiled, float]]:
        """The eligible jobs of `queued` as (job, compiled request, priority), in priority
        order; the others are reported, deferred or held. O(queued log queued)."""
        st, now = self.state, self.now
        out: list[tuple[Job, Compiled, float]] = []
        keys: list[tuple] = []
        unknown: bool | None = None      # any node whose state the RM does not know yet
        serv = self.serv()
        bypass, queue_time = st.bypass, st.queue_time     # often empty: no look-ups then
        batch_holds, deferred, compiled = st.batch_holds, st.deferred, st.caches.compiled
        table, cfg, passive = self.table, self.cfg, self.passive_policy
        for job in queued:
            jid = job.id
            if job.holds:
                deferral.reset_accrual(self, jid, "hold")
                self.report(jid, ReportStatus.HELD, "job has hold in place ("
                             + ",".join(sorted(h.value for h in job.holds)) + ")")
                continue
            if batch_holds and jid in batch_holds:
                self.report(jid, ReportStatus.HELD, f"batch hold: {batch_holds[jid]}")
                continue
            if deferred:
                rec = deferred.get(jid)
                if rec is not None and rec.until > now:
                    self.report(jid, ReportStatus.DEFERRED,
                                f"deferred until {rec.until}: {rec.reason}")
                    continue
            if not job.depends_satisfied:
                deferral.reset_accrual(self, jid, "dependency")
                self.report(jid, ReportStatus.BLOCKED, "dependency not satisfied")
                continue
            hit = compiled.get(jid)
            if hit is not None and hit[0] is job and hit[1] is table and hit[3] is cfg:
                cr, why = hit[2], hit[4]
            else:
                cr = table.compile(job.request, job.class_)
                why = self.limits.system_violation(job)
                compiled[jid] = (job, table, cr, cfg, why)
            if why:
                if getattr(why, "hold", False):   # can never run as submitted: batch hold now
                    batch_holds[jid] = str(why)
                    self.decisions.append(Hold(jid, HoldType.BATCH, str(why)))
                    self.report(jid, ReportStatus.HELD, f"batch hold: {why}")
                else:
                    deferral.defer(self, job, why)
                continue
            if not passive:
                why = self.policy.cap_violation(job)
                if why:
                    deferral.reset_accrual(self, jid, "limit")
                    self.report(jid, ReportStatus.BLOCKED, f"blocked: {why}")
                    continue
            if isinstance(cr, NoPlacement):
                if unknown is None:
                    unknown = any(n.state is NodeState.UNKNOWN for n in self.snap.nodes)
                if unknown:   # e.g. just after an RM restart: the job waits, no DEFERTIME
                    self.report(jid, ReportStatus.BLOCKED,
                                f"waiting: {cr.reason} (some node states not known yet)")
                    continue
                deferral.defer(self, job, f"cannot run: {cr.reason}")
                continue
            if serv and not job.system_priority:
                prio = serv(job, now, queue_time.get(jid, job.submit_time) if queue_time
                            else job.submit_time, bypass.get(jid, 0) if bypass else 0)
            else:
                prio = self._priority(job)
            out.append((job, cr, prio))
            keys.append(order_key(job, prio))
        if len(out) > 1:        # keys are unique (job ids): any sort gives this order
            out = [out[k] for k in sorted(range(len(out)), key=keys.__getitem__)]
        return out

    def serv(self):
        """engine.serv_priority when it gives a job's priority (no system priority set):
        explain off, only the service part moving, QUEUEPOLICY MAUI without fair share;
        else None. O(1)."""
        return (self.engine.serv_priority if not self.explain and self.engine.serv_only
                and self.passive_policy and not self.policy.fs.enabled else None)

    def _priority(self, job: Job) -> float:
        st = self.state
        fs = self.policy.subfactors(job)
        if not self.explain and not job.system_priority and self.engine.serv_only:
            return selection.fast_priority(self, job, fs)    # the same float, no breakdown
        ctx = JobContext(st.queue_time.get(job.id, job.submit_time), st.bypass.get(job.id, 0),
                         False, fs)
        if self.explain:
            b = self.engine.breakdown(job, self.now, ctx)
            self.priorities[job.id] = b
            return float(b.clipped) if job.system_priority > 0 else b.priority
        return self.engine.priority(job, self.now, ctx)

    def _view(self) -> PolicyView:
        """The queue policy's view: the usable nodes' totals (kept in the caches while the
        table and its usable nodes stay), their free resources measured only if asked."""
        t, cached = self.table, self.state.caches.view_totals
        if cached is None or cached[0] is not t or cached[1] != t.usable:
            cached = self.state.caches.view_totals = (t, t.usable, self._sums(False))
        return PolicyView(self.now, self.running, None, dict(cached[2]), self.cfg,
                          measure=lambda: self._sums(True))

    def _sums(self, free: bool) -> dict[str, int]:
        """Free (else total) resources of the usable nodes. O(nodes x dimensions)."""
        t = self.table
        out: dict[str, int] = {}
        for i in range(len(t.nodes)):
            if (t.usable >> i) & 1:
                for d, c, u in zip(t.dims, t.cap[i], t._U[i][0]):
                    out[d] = out.get(d, 0) + (c - u if free else c)
        return out

    def _arrange(self, order):
        """Let the queue policy reorder the queue and hold jobs back for this cycle."""
        if self.passive_policy:
            return order
        if type(self.policy) is MauiFairShare:  # keeps the order: only notes the totals
            self.policy.arrange([], self._view())
            return order
        by_job = {job.id: (job, cr, prio) for job, cr, prio in order}
        arr: Arrangement = self.policy.arrange([job for job, _cr, _p in order], self._view())
        for jid, why in arr.held.items():
            if jid in by_job:
                self.report(jid, ReportStatus.BLOCKED,
                            f"held this cycle by QUEUEPOLICY {self.policy.name}: {why}")
        return [by_job[j.id] for j in arr.order if j.id in by_job and j.id not in arr.held]

    def _idle_limits(self, order):
        if not self.settings.reject_neg and not self.limits.any_idle:
            return order
        out = []
        idle_usage = Usage() if self.limits.any_idle else None
        for job, cr, prio in order:
            if self.settings.reject_neg and prio < 0:
                self.report(job.id, ReportStatus.BLOCKED,
                            f"negative priority {prio:.0f} (REJECTNEGPRIOJOBS)")
                continue
            if idle_usage is not None:
                v = self.limits.idle_violation(job, idle_usage)
                if v:
                    deferral.reset_accrual(self, job.id, "limit")
                    self.report(job.id, ReportStatus.BLOCKED, f"blocked: {v}")
                    continue
                idle_usage.add(job, job_amounts(job))
            out.append((job, cr, prio))
        return out

    # ------------------------------------------------------------------ starts
    def start(self, job: Job, p: Placement, kind: StartKind, pos: int) -> None:
        st, now = self.state, self.now
        self.table.release(owners.priority(job.id))
        st.reservations.pop(job.id, None)
        ign = self.ignore(job)
        w = max(self.span(job), 1)
        if p.start == now and p.end == now + w:
            self.table.reserve_placement(owners.job(job.id), p, kind="job", inside=ign)
        else:
            self.table.reserve(owners.job(job.id), now, now + w, p.allocation, kind="job", inside=ign)
        st.caches.plan.running[job.id] = (now, w, p.allocation)
        if st.predictions:
            pred = st.predictions.get(job.id)
            if pred is not None:
                prediction.note_start(st.predictions, job, pred, now)
        if self.limits.any_active:
            self.usage.add(job, job_amounts(job))
        self.decisions.append(Start(job.id, p.allocation, kind))
        st.run_now.discard(job.id)
        st.pending[job.id] = PendingStart(job.id, p.allocation, kind, now, job.wallclock)
        self.started.add(job.id)
        self.positions.append(pos)
        if kind is StartKind.BACKFILL:
            self.bf_positions.append(pos)
        if self.explain:
            nodes = p.nodes
            self.report(job.id, ReportStatus.STARTED, f"started ({kind.value.lower()}) on "
                        + nodes_text(nodes), start=now, nodes=nodes)

    def fits_now(self, job: Job, cr: Compiled) -> Placement | NoPlacement:
        """Can the job start now, around every hold? Until table.freed moves a failure of
        n tasks of vector d for w seconds answers for every request of its shape asking as
        much, or more nodes (memo.VectorShrinkMemo's ceilings; shared with the priority pass),
        and the last cycle's where nothing given back since helps (memo.Carried; no non-job
        reservation held). The free count does not bound a job that may use reservations."""
        ign = self.ignore(job)
        if job.procs > self.table.free_now and not ign:
            return NO_ROOM
        epoch = memo.epoch(self.table)
        shape = (cr.eligible, cr.mode, cr.per_node, cr.nodes_needed, cr.exclusive, ign)
        w, n = self.span(job), cr.tasks
        if self.shrink.fails(epoch, shape, n, w, cr.d) or self.shrink.above_most(epoch, cr, ign) or (
                self.carried and not self.held and self.carried.fails(self.table, shape, n, w, cr, epoch)):
            return NO_ROOM
        p = self.table.earliest_start(cr, w, until=self.now, policy=self.settings.nap, ignore=ign)
        if not p:
            self.shrink.note(epoch, shape, n, w, cr.d)
            self.shrink.note_most(epoch, self.table, cr, ign, self.now)
        return p

    # ---------------------------------------------------- non-job reservations
    def _standing(self):
        """SRCFG instances, recomputed when the config or nodes change, at local midnight
        and when an instance ends."""
        st, now = self.state, self.now
        cache = st.caches.standing
        if (cache is None or cache.cfg is not self.cfg or cache.nodes is not self.snap.nodes
                or now >= cache.until):
            items = standing.instances(self.cfg, self.snap.nodes, now)
            until = min([standing.day_start(now, 1, self.cfg.zone)] + [r.end for r, _a in items])
            cache = st.caches.standing = StandingCache(self.cfg, self.snap.nodes, until, items)
        return cache.items

    def past_standing(self, job: Job, cr: Compiled, p: Placement) -> str | None:
        """Why a job can never run, when a standing reservation it may not use recurs every
        period (PERIOD DAY or WEEK, no DAYS subset) and leaves it no gap: its earliest start
        is at or after the last instance planned and it would overlap the next one, one
        period later, while it would start earlier without those reservations. Without this
        the job is pushed back one period at every cycle, for ever. O(instances) plus one
        earliest-start question when a reservation lands past the planned instances."""
        if not self.settings.has_standing:
            return None
        starts: dict[str, list[int]] = {}
        for r, _a in self._standing():
            if r.end < FOREVER:
                starts.setdefault(r.name.rsplit(".", 1)[0], []).append(r.start)
        ign = self.ignore(job)
        blockers = [o for o, (r, _a, _n) in self.held.items()
                    if r.kind is ReservationKind.STANDING and o not in ign]
        names = {self.held[o][0].name.rsplit(".", 1)[0] for o in blockers}
        hit = []
        periods = self.settings.standing_periods
        for name in sorted(names & starts.keys()):
            period = periods.get(name)
            if period is None:
                continue                # instances not evenly spaced: no next one to predict
            last = max(starts[name])
            if p.start >= last and p.end > last + period:
                hit.append(name)
        if not hit:
            return None
        q = self.table.earliest_start(cr, self.span(job), self.now, policy=self.settings.nap,
                                      ignore=ign + tuple(blockers))
        if not q or q.start >= p.start:
            return None
        return (f"cannot run: no window of {duration(job.wallclock)} between the instances of "
                f"standing reservation(s) {', '.join(hit)}, which it may not use")

    def _sync_reservations(self):
        wanted = [(r, standing.Access(r.acl)) for r in self.snap.reservations
                  if r.kind is not ReservationKind.JOB]
        if self.settings.has_standing:
            wanted += self._standing()
        if not wanted and not self.state.caches.plan.external:
            return {}
        return sync_reservations(self.table, self.state.caches.plan, wanted)

    def ignore(self, job: Job) -> tuple[str, ...]:
        """The reservations this job may use: it plans as if they held nothing."""
        if not self.access:
            return ()
        got = self._ign_cache.get(job.id)
        if got is None:
            got = self._ign_cache[job.id] = tuple(o for o, a in self.access.items()
                                                  if a.admits(job))
        return got

    def blocked_by(self, job: Job, cr: Compiled, p: NoPlacement) -> str:
        """Why a job can never be placed: name the reservations it may not use when it
        would fit without them."""
        blockers = [o for o in self.access if o not in self.ignore(job)]
        if blockers and self.table.earliest_start(cr, self.span(job), self.now,
                                                  policy=self.settings.nap,
                                                  ignore=tuple(self.access)):
            names = ", ".join(sorted(self.held[o][0].name for o in blockers))
            return f"can only run inside reservation(s) {names}, which it may not use"
        return p.reason

    def _held_view(self) -> list[Reservation]:
        out = as_reservations(self.held)
        if not self.explain:
            return out
        for jid, kr in self.state.reservations.items():
            out.append(Reservation(jid, ReservationKind.JOB, kr.start, kr.end, kr.allocation,
                                   job_id=jid))
        return out

    def _predicted_span(self, job: Job) -> int:
        p = self.state.predictions.get(job.id)
        return p.estimate if p is not None else job.wallclock

    def flags_of(self, job: Job) -> frozenset[str]:
        return self.settings.qos_flags.get(job.qos, _NO_FLAGS) if job.qos else _NO_FLAGS
