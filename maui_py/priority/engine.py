"""Maui's job start priority (spec §3.3): weighted components of weighted subfactors.

    Priority = sum_c CW[c] * capC(sum_s SW[s] * capS(SF[s]))   over CRED FS ATTR SERV TARG RES USAGE

A cap <= 0 means no cap. Then, as Maui 3.3.1: clip to >= 1 unless REJECTNEGPRIOJOBS or
ENABLENEGJOBPRIORITY, clip to <= MAX_PRIO_VAL, and a system priority (setspri) puts the job
above every other. Queue order is by the exact (unclipped, untruncated) value, then submit
time, then job id, so ties Maui left to an unstable qsort are broken the same way every time
(docs/compatibility.md).

The part of a job's priority that does not move with time (credentials, requested
resources) is computed once per job and cached; a cycle adds the service, target and fair-
share parts. When only the service part moves (queue time, expansion factor, bypass: the
FIFO default and most sites), `serv_priority` gives the value in O(1) from the cached fixed
part, with the same arithmetic in the same order as the full breakdown, so that a cycle
with explain off orders jobs exactly as one with explain on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count
from operator import attrgetter
from typing import Mapping

from ..cfg import SchedulerConfig
from ..model import Job

MAX_PRIO_VAL = 1_000_000_000
_CRED_KEY = attrgetter("user", "group", "account", "qos", "class_")
_SHAPED_KEY = attrgetter("user", "group", "account", "qos", "class_", "request.nodes",
                         "request.tasks", "request.per_task.procs", "request.per_task.mem",
                         "wallclock")
"""_new_static's key of a job (without and with a weighted RES), built in C."""

STATIC_CONST = True
"""static_sums: when no credential object carries a PRIORITY and no RES subfactor is
weighted (_static_const), every job's static part is the same float (CRED: cw x 0.0, each
term a weight times a zero subfactor; RES: cw x 0.0), so it is worked out once for the
queue instead of keyed per job (False: keyed per credential set, the
definition tests/property/test_cyc55_static_const.py compares against)."""
XF_BATCH = True
"""serv_priorities works SERV out from a cached per-job tuple when QUEUETIME and XFACTOR
are its weighted subfactors, uncapped (config/easy.cfg): False, one serv_priority call per
job (the definition tests/property/test_xf_priorities.py compares against)."""

COMPONENTS = ("CRED", "FS", "ATTR", "SERV", "TARG", "RES", "USAGE")
SUBFACTORS: dict[str, tuple[str, ...]] = {
    "CRED": ("USER", "GROUP", "ACCOUNT", "QOS", "CLASS"),
    "FS": ("FSUSER", "FSGROUP", "FSACCOUNT", "FSQOS", "FSCLASS"),
    "ATTR": (),
    "SERV": ("QUEUETIME", "XFACTOR", "SPVIOLATION", "BYPASS"),
    "TARG": ("TARGETQUEUETIME", "TARGETXFACTOR"),
    "RES": ("NODE", "PROC", "MEM", "SWAP", "DISK", "PS", "PE", "WALLTIME", "UPROC", "UJOB"),
    "USAGE": ("CONSUMED", "REMAINING", "PERCENT", "USAGEEXECUTIONTIME"),
}
COMPONENT_WEIGHTS = {"CRED": "CREDWEIGHT", "FS": "FSWEIGHT", "ATTR": "ATTRWEIGHT", "SERV": "SERVICEWEIGHT",
                     "TARG": "TARGETWEIGHT", "RES": "RESWEIGHT", "USAGE": "USAGEWEIGHT"}
COMPONENT_CAPS = {"CRED": "CREDCAP", "FS": "FSCAP", "ATTR": "ATTRCAP", "SERV": "SERVICECAP",
                  "TARG": "TARGETCAP", "RES": "RESCAP", "USAGE": "USAGECAP"}
SUBFACTOR_WEIGHTS = {
    "USER": "USERWEIGHT", "GROUP": "GROUPWEIGHT", "ACCOUNT": "ACCOUNTWEIGHT", "QOS": "QOSWEIGHT",
    "CLASS": "CLASSWEIGHT",
    "FSUSER": "FSUSERWEIGHT", "FSGROUP": "FSGROUPWEIGHT", "FSACCOUNT": "FSACCOUNTWEIGHT", "FSQOS": "FSQOSWEIGHT",
    "FSCLASS": "FSCLASSWEIGHT",
    "QUEUETIME": "QUEUETIMEWEIGHT", "XFACTOR": "XFACTORWEIGHT", "SPVIOLATION": "SPVIOLATIONWEIGHT",
    "BYPASS": "BYPASSWEIGHT",
    "TARGETQUEUETIME": "TARGETQUEUETIMEWEIGHT", "TARGETXFACTOR": "TARGETXFACTORWEIGHT",
    "NODE": "NODEWEIGHT", "PROC": "PROCWEIGHT", "MEM": "MEMWEIGHT", "SWAP": "SWAPWEIGHT", "DISK": "DISKWEIGHT",
    "PS": "PSWEIGHT", "PE": "PEWEIGHT", "WALLTIME": "WALLTIMEWEIGHT", "UPROC": "UPROCWEIGHT", "UJOB": "UJOBWEIGHT",
    "CONSUMED": "CONSUMEDWEIGHT", "REMAINING": "REMAININGWEIGHT", "PERCENT": "PERCENTWEIGHT",
    "USAGEEXECUTIONTIME": "USAGEEXECUTIONTIMEWEIGHT",
}
SUBFACTOR_CAPS = {
    "USER": "USERCAP", "GROUP": "GROUPCAP", "ACCOUNT": "ACCOUNTCAP", "QOS": "QOSCAP", "CLASS": "CLASSCAP",
    "FSUSER": "FSUSERCAP", "FSGROUP": "FSGROUPCAP", "FSACCOUNT": "FSACCOUNTCAP", "FSQOS": "FSQOSCAP",
    "FSCLASS": "FSCLASSCAP",
    "QUEUETIME": "QUEUETIMECAP", "XFACTOR": "XFACTORCAP", "SPVIOLATION": "SPVIOLATIONCAP", "BYPASS": "BYPASSCAP",
    "TARGETQUEUETIME": "TARGETQUEUETIMECAP", "TARGETXFACTOR": "TARGETXFACTORCAP",
    "NODE": "NODECAP", "PROC": "PROCCAP", "MEM": "MEMCAP", "SWAP": "SWAPCAP", "DISK": "DISKCAP", "PS": "PSCAP",
    "PE": "PECAP", "WALLTIME": "WALLTIMECAP",
    "CONSUMED": "CONSUMEDCAP", "REMAINING": "REMAININGCAP", "PERCENT": "PERCENTCAP",
    "USAGEEXECUTIONTIME": "USAGEEXECUTIONTIMECAP",
}
"""The maui.cfg parameter of each component's and subfactor's weight and cap, spelled out
(UPROC and UJOB have no cap: 0, no cap)."""


def _param(cfg: SchedulerConfig, name: str | None, default: float = 0.0) -> float:
    v = cfg.get(name) if name else None
    return float(v) if v is not None else default


@dataclass(frozen=True, slots=True)
class Breakdown:
    """A job's priority and where it came from, for checkjob and diagnose -p.

    `components[c]` is CW[c] * capC(...) (its contribution), `subfactors[s]` the raw
    subfactor value SF[s], `weighted[s]` the value SW[s] * capS(SF[s]).
    """

    priority: float
    clipped: int
    components: Mapping[str, float] = field(default_factory=dict)
    subfactors: Mapping[str, float] = field(default_factory=dict)
    weighted: Mapping[str, float] = field(default_factory=dict)
    system: bool = False


@dataclass(frozen=True, slots=True)
class JobContext:
    """What a job's priority depends on besides the job and the clock."""

    eff_queue_time: int
    bypass: int = 0
    spviolation: bool = False
    fairshare: Mapping[str, float] = field(default_factory=dict)
    user_procs: int = 0
    user_jobs: int = 0



_UNKNOWN = object()
"""A credential set not in fs_priorities' tails yet."""


def order_key(job: Job, priority: float) -> tuple:
    """The queue's order: priority, then submit time, then job id, shorter ids first so that
    numeric ids sort as numbers."""
    return (-priority, job.submit_time, len(job.id), job.id)


def entry_key(entry: tuple) -> tuple:
    """order_key of a (job, compiled request, priority) entry, without the call."""
    job = entry[0]
    return (-entry[2], job.submit_time, len(job.id), job.id)


class PriorityEngine:
    """Weights and caps read once from a config; priority() per job and cycle."""

    def __init__(self, cfg: SchedulerConfig, cluster_procs: int = 1, cluster_mem: int = 0):
        self.cfg = cfg
        self.cw = {c: _param(cfg, COMPONENT_WEIGHTS[c], 1.0) for c in COMPONENTS}
        self.ccap = {c: _param(cfg, COMPONENT_CAPS[c]) for c in COMPONENTS}
        self.sw = {s: _param(cfg, SUBFACTOR_WEIGHTS[s]) for c in COMPONENTS for s in SUBFACTORS[c]}
        self.scap = {s: _param(cfg, SUBFACTOR_CAPS.get(s)) for c in COMPONENTS for s in SUBFACTORS[c]}
        self.xf_min = max(0, int(_param(cfg, "XFMINWCLIMIT", 0)))
        self.reject_neg = bool(cfg.get("REJECTNEGPRIOJOBS"))
        self.allow_neg = bool(cfg.get("ENABLENEGJOBPRIORITY"))
        self.cluster_procs = max(1, cluster_procs)
        self.cluster_mem = cluster_mem
        self._static: dict[str, tuple[Job, dict[str, float], dict[str, float],
                                      dict[str, float]]] = {}
        self._prefix: dict[str, tuple[Job, float]] = {}
        self._cred_cache: dict[tuple[str, str, bool], float] = {}
        self._class_weight: dict[str, float | None] = {}
        self._cred_comp: dict[tuple[str, str, str, str, str], float] = {}
        """(user, group, account, qos, class) -> CRED component (_static_total)."""
        self._res_comp: dict[tuple[int, int, int, int, int], float] = {}
        """(nodes, tasks, procs and mem per task, wallclock) -> static RES component."""
        self._shape_sum: dict[tuple, float] = {}
        """_shape_key(job) -> _static_total(job): one look-up per job (see _new_static)."""
        self._users = {k: cfg.object("USERCFG", k) for k in cfg.objects("USERCFG")}
        self._qos = {k: cfg.object("QOSCFG", k) for k in cfg.objects("QOSCFG")}
        res_dynamic = self.sw["UPROC"] or self.sw["UJOB"]
        self.active = {c for c in COMPONENTS if self.cw[c] and any(self.sw[s] for s in SUBFACTORS[c])}
        self._qos_weights = any(q.get("QTWEIGHT") or q.get("XFWEIGHT") or q.get("QTTARGET")
                                or q.get("XFTARGET") for q in self._qos.values())
        serv_linear = (not self.sw["XFACTOR"] and not self.sw["BYPASS"] and not self.sw["SPVIOLATION"]
                       and self.ccap["SERV"] <= 0 and self.scap["QUEUETIME"] <= 0)
        self.is_linear = (serv_linear and "TARG" not in self.active and "FS" not in self.active
                          and not res_dynamic and not self._qos_weights)
        self.order_fixed = self.is_linear and self.cw["SERV"] >= 0 and self.sw["QUEUETIME"] >= 0
        """Priority never falls as queue time grows, and nothing else moves with time: jobs
        with one static part and queue time from submission keep their (submit time, id)
        order at every instant (core/selection.py)."""
        self._res_static = not res_dynamic
        self._res_shaped = self._res_static and any(self.sw[s] for s in SUBFACTORS["RES"])
        self._static_const = not self._res_shaped and not any(
            o.get("PRIORITY") for k in ("USERCFG", "GROUPCFG", "ACCOUNTCFG", "QOSCFG", "CLASSCFG")
            for o in cfg.objects(k).values())
        """Every job's static part is one float (STATIC_CONST): _cred_priority gives 0.0 for
        every credential, so each weighted CRED term is a finite weight (the configuration
        takes integers) times 0.0, a zero, whatever the job's CLASS weight (GROUPCFG
        CLASSWEIGHT), and the sum 0.0; RES weighs nothing."""
        """RES's static component depends on the request: else it is cw x 0.0 for every job."""
        self.serv_only = not res_dynamic and not self._qos_weights
        """Only SERV moves with time (no fair share given, no targets, no per-user RES):
        serv_priority() gives priority() without building a breakdown."""
        self._serv_terms = tuple((s, self.sw[s], self.scap[s]) for s in SUBFACTORS["SERV"]
                                 if self.sw.get(s, 0.0))
        self._qt_only = [s for s, _w, _c in self._serv_terms] == ["QUEUETIME"]
        if self._qt_only:
            self.serv_priority = self._queue_time_only
            self._qt_terms = (*self._serv_terms[0][1:], self.ccap["SERV"], self.cw["SERV"])
            """(QUEUETIME weight and cap, SERV cap and weight): read once, not per job."""
        self.xf_terms = None
        """(QUEUETIME weight, XFACTOR weight, SERV weight, XFMINWCLIMIT) when SERV's weighted
        subfactors are QUEUETIME and XFACTOR, uncapped (serv_priorities); else None."""
        self._xf_const: dict[str, tuple[Job, float, int, int]] = {}
        """job id -> (job, static_sum, max(wallclock, 1), max(XFMINWCLIMIT, that))."""
        self.pair_dates: dict[str, tuple] = {}
        """job id -> (job, the job after it, the date up to which it stays before that one
        [, the kinetic list's generation]): priority/kinetic.until's memo of neighbours'
        dates, valid for this engine's terms."""
        self.kin = None
        """priority/kinlist.py's state (the pair dates' heap) for this engine's terms."""
        if ([s for s, _w, _c in self._serv_terms] == ["QUEUETIME", "XFACTOR"]
                and self.ccap["SERV"] <= 0 and all(c <= 0 for _s, _w, c in self._serv_terms)):
            self.xf_terms = (self.sw["QUEUETIME"], self.sw["XFACTOR"], self.cw["SERV"],
                              self.xf_min)

    # ------------------------------------------------------------------ helpers
    def _cred_priority(self, kind: str, name: str, fallback: bool = True) -> float:
        """PRIORITY of a credential (else of its DEFAULT object), cached per name."""
        key = (kind, name, fallback)
        got = self._cred_cache.get(key)
        if got is None:
            obj = self.cfg.object(kind, name) if name else {}
            p = obj.get("PRIORITY", 0) if obj else 0
            if not p and fallback:
                p = self.cfg.object(kind, "DEFAULT").get("PRIORITY", 0)
            got = self._cred_cache[key] = float(p or 0)
        return got

    def _component(self, c: str, sf: dict[str, float], out_w: dict[str, float],
                   weights: Mapping[str, float] | None = None) -> float:
        total = 0.0
        for s in SUBFACTORS[c]:
            w = (weights or self.sw).get(s, 0.0)
            if not w:
                continue
            v = sf.get(s, 0.0)
            cap = self.scap[s]
            if cap > 0 and v > cap:
                v = cap
            out_w[s] = w * v
            total += w * v
        cap = self.ccap[c]
        if cap > 0 and total > cap:
            total = cap
        return self.cw[c] * total

    def _cred_factors(self, job: Job) -> tuple[dict[str, float], Mapping[str, float]]:
        """CRED's subfactors of a job and the weights they take (GROUPCFG CLASSWEIGHT
        replaces CLASS's): functions of the job's credentials only."""
        sf: dict[str, float] = {
            "USER": self._cred_priority("USERCFG", job.user),
            "GROUP": self._cred_priority("GROUPCFG", job.group),
            "ACCOUNT": self._cred_priority("ACCOUNTCFG", job.account),
            "QOS": self._cred_priority("QOSCFG", job.qos, fallback=False),
            "CLASS": self._cred_priority("CLASSCFG", job.class_),
        }
        cred_w: Mapping[str, float] = self.sw
        if job.group not in self._class_weight:
            self._class_weight[job.group] = (self.cfg.object("GROUPCFG", job.group).get("CLASSWEIGHT")
                                             if job.group else None)
        gcw = self._class_weight[job.group]
        if gcw is not None:
            cred_w = dict(self.sw)
            cred_w["CLASS"] = float(gcw)
        return sf, cred_w

    def _res_factors(self, job: Job) -> dict[str, float]:
        """RES's static subfactors of a job: functions of its request and wallclock only."""
        req = job.request
        procs = req.procs
        mem = req.per_task.mem * req.tasks      # req.total.mem, without building a Resources
        pe = float(procs)
        if self.cluster_mem and mem:
            pe = max(pe, mem / self.cluster_mem * self.cluster_procs)
        return {"NODE": float(req.nodes), "PROC": float(procs), "MEM": float(mem),
                "SWAP": 0.0, "DISK": 0.0, "PS": float(procs * job.wallclock), "PE": pe,
                "WALLTIME": float(job.wallclock)}

    def _static_part(self, job: Job
                     ) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
        """CRED (and RES when it has no per-user subfactors): fixed for a job's life.
        Returns (subfactors, components, weighted subfactors); cached per job object."""
        got = self._static.get(job.id)
        if got is not None and got[0] is job:
            return got[1], got[2], got[3]
        sf, cred_w = self._cred_factors(job)
        sf.update(self._res_factors(job))
        comps: dict[str, float] = {}
        weighted: dict[str, float] = {}
        comps["CRED"] = self._component("CRED", sf, weighted, cred_w)
        if self._res_static:
            comps["RES"] = self._component("RES", sf, weighted)
        if len(self._static) > 200_000:
            self._static.clear()
            self._prefix.clear()
        self._static[job.id] = (job, sf, comps, weighted)
        return sf, comps, weighted

    def _static_total(self, job: Job) -> float:
        """sum(comps.values()) of _static_part(job): the same components, worked out by the
        same code and summed in the same order, so the same float; but CRED is cached per
        credential set and RES per request shape, and no dictionaries are kept per job (a
        cycle from a fresh state ranks every queued job: 50,000 of them cost 0.3 s
        through _static_part). O(1) for a credential set and shape seen before."""
        got = self._static.get(job.id)
        if got is not None and got[0] is job:
            return sum(got[2].values())
        ckey = (job.user, job.group, job.account, job.qos, job.class_)
        cred = self._cred_comp.get(ckey)
        if cred is None:
            sf, cred_w = self._cred_factors(job)
            if len(self._cred_comp) > 200_000:
                self._cred_comp.clear()
            cred = self._cred_comp[ckey] = self._component("CRED", sf, {}, cred_w)
        if not self._res_static:
            return sum((cred,))
        req = job.request
        rkey = (req.nodes, req.tasks, req.per_task.procs, req.per_task.mem, job.wallclock)
        res = self._res_comp.get(rkey)
        if res is None:
            if len(self._res_comp) > 200_000:
                self._res_comp.clear()
            res = self._res_comp[rkey] = self._component("RES", self._res_factors(job), {})
        return sum((cred, res))

    def forget(self, job_id: str) -> None:
        self._static.pop(job_id, None)
        self._prefix.pop(job_id, None)
        self._xf_const.pop(job_id, None)
        self.pair_dates.pop(job_id, None)

    # ------------------------------------------------------------------ API
    def breakdown(self, job: Job, now: int, ctx: JobContext) -> Breakdown:
        """Priority of `job` at `now` with every component and subfactor. O(subfactors)."""
        sf_static, comps_static, w_static = self._static_part(job)
        sf = dict(sf_static)
        weighted = dict(w_static)
        comps = dict(comps_static)
        qt_s = max(0, now - ctx.eff_queue_time)
        wc = max(job.wallclock, 1)
        sf["QUEUETIME"] = qt_s / 60.0
        sf["XFACTOR"] = (qt_s + wc) / max(self.xf_min, wc)
        sf["SPVIOLATION"] = 1.0 if ctx.spviolation else 0.0
        sf["BYPASS"] = float(ctx.bypass)
        qos = self._qos.get(job.qos, {}) if job.qos else {}
        serv_w = self.sw
        if qos and (qos.get("QTWEIGHT") or qos.get("XFWEIGHT")):
            serv_w = dict(self.sw)
            serv_w["QUEUETIME"] += float(qos.get("QTWEIGHT", 0) or 0)
            serv_w["XFACTOR"] += float(qos.get("XFWEIGHT", 0) or 0)
        comps["SERV"] = self._component("SERV", sf, weighted, serv_w)
        qtt, xft = qos.get("QTTARGET", 0) or 0, qos.get("XFTARGET", 0) or 0
        sf["TARGETQUEUETIME"] = (max(0.0001, qtt - qt_s) ** -2) if qtt > 0 else 0.0
        sf["TARGETXFACTOR"] = (max(0.0001, xft - sf["XFACTOR"]) ** -2) if xft > 0 else 0.0
        comps["TARG"] = self._component("TARG", sf, weighted)
        for k, v in ctx.fairshare.items():
            sf[k] = v
        comps["FS"] = self._component("FS", sf, weighted)
        if not self._res_static:
            sf["UPROC"] = float(ctx.user_procs)
            sf["UJOB"] = float(ctx.user_jobs)
            comps["RES"] = self._component("RES", sf, weighted)
        comps.setdefault("ATTR", 0.0)
        comps.setdefault("USAGE", 0.0)
        prio = sum(comps.values())
        return Breakdown(prio, self.clip(prio, job.system_priority), comps, sf, weighted,
                         system=job.system_priority > 0)

    def serv_priority(self, job: Job, now: int, eff_queue_time: int, bypass: int) -> float:
        """priority() when serv_only holds, no fair share is given and no system priority
        is set: the same arithmetic in the same order as breakdown() (the static components'
        sum, then SERV; the other components are zero), without the dictionaries. O(1)."""
        static = self.static_sum(job)
        qt_s = max(0, now - eff_queue_time)
        total = 0.0
        for s, w, cap in self._serv_terms:
            if s == "QUEUETIME":
                v = qt_s / 60.0
            elif s == "XFACTOR":
                wc = max(job.wallclock, 1)
                v = (qt_s + wc) / max(self.xf_min, wc)
            elif s == "BYPASS":
                v = float(bypass)
            else:
                v = 0.0
            if cap > 0 and v > cap:
                v = cap
            total += w * v
        cap = self.ccap["SERV"]
        if cap > 0 and total > cap:
            total = cap
        return static + self.cw["SERV"] * total

    def serv_priorities(self, jobs: list[Job], now: int, queue_time: Mapping[str, int],
                        bypass: Mapping[str, int]) -> list[float]:
        """serv_priority(job, now, queue_time.get(id, submit), bypass.get(id, 0)) of each of
        `jobs`, in order: the same floats. With SERV = QUEUETIME + XFACTOR uncapped
        (xf_terms) serv_priority computes static + cw x ((0.0 + wq x (q / 60.0)) +
        wx x ((q + wc) / max(XFMINWCLIMIT, wc))), q the wait clipped at 0, wc the
        wallclock at least 1; the job's static part, wc and the divisor do not move, so
        they are kept per job (checked by identity, dropped by forget) and the expression
        is written out with the same operations in the same order (bypass is not
        weighted). A cycle from what changed (core/changes.py) re-ranks the whole queue
        this way when the order moves with time. O(len(jobs)), a call per job saved."""
        terms = self.xf_terms
        if terms is None or not XF_BATCH:
            serv = self.serv_priority
            return [serv(j, now, queue_time.get(j.id, j.submit_time), bypass.get(j.id, 0))
                    for j in jobs]
        wq, wx, cw, _xm = terms
        get = self._xf_const.get
        out = []
        append = out.append
        for j in jobs:
            h = get(j.id)
            if h is None or h[0] is not j:
                h = self.xf_const(j)
            q = now - (queue_time.get(j.id, j.submit_time) if queue_time else j.submit_time)
            if q < 0:
                q = 0
            append(h[1] + cw * ((0.0 + wq * (q / 60.0)) + wx * ((q + h[2]) / h[3])))
        return out

    def xf_const(self, job: Job) -> tuple[Job, float, int, int]:
        """(job, static_sum, wc = max(wallclock, 1), max(XFMINWCLIMIT, wc)): what
        serv_priorities keeps per job when xf_terms is set. O(1) once cached."""
        h = self._xf_const.get(job.id)
        if h is None or h[0] is not job:
            if len(self._xf_const) > 200_000:
                self._xf_const.clear()
            wc = job.wallclock if job.wallclock > 1 else 1
            xm = self.xf_min
            h = self._xf_const[job.id] = (job, self.static_sum(job), wc, xm if xm > wc else wc)
        return h

    def fs_tail(self, fairshare: Mapping[str, float]) -> tuple[float, float]:
        """(TARG, FS) components as breakdown() makes them when serv_only holds (TARG's
        subfactors are then zero) for the fair-share subfactors `fairshare`: a function of
        the credentials' usage only, so a cycle works it out once per credential set.
        O(subfactors)."""
        zeros = {"TARGETQUEUETIME": 0.0, "TARGETXFACTOR": 0.0}
        return self._component("TARG", zeros, {}), self._component("FS", dict(fairshare), {})

    def fs_priority(self, job: Job, now: int, eff_queue_time: int, bypass: int,
                    tail: tuple[float, float]) -> float:
        """priority() when serv_only holds, no system priority is set and fair-share
        subfactors are given (`tail` = fs_tail of them): breakdown() sums the components in
        the order CRED, RES, SERV, TARG, FS, ATTR, USAGE; so does this, without building
        the dictionaries (the same floats). O(1)."""
        p = self.serv_priority(job, now, eff_queue_time, bypass) + tail[0]
        p = p + tail[1]
        p = p + 0.0
        return p + 0.0

    def fs_priorities(self, entries: list, now: int, queue_time: dict, bypass: dict,
                      tails: dict, miss) -> list:
        """`entries` (job, compiled request, priority), none with a system priority, with
        each priority fs_priority gives (serv_priority when the job's tail is None):
        `tails` maps (user, group, account, qos, class) to the tail (fs_tail of the
        credentials' subfactors, or None when they are empty); `miss(job)` gives, and
        records, one not there. The same operations in the same order as serv_priority
        and fs_priority, so the same floats, with one call per job instead of three.
        O(len(entries)) plus a miss per credential set."""
        out = []
        append, serv, unknown = out.append, self.serv_priority, _UNKNOWN
        for e in entries:
            j = e[0]
            t = tails.get((j.user, j.group, j.account, j.qos, j.class_), unknown)
            if t is unknown:
                t = miss(j)
            jid = j.id
            p = serv(j, now, queue_time.get(jid, j.submit_time) if queue_time else j.submit_time,
                     bypass.get(jid, 0) if bypass else 0)
            if t is not None:
                p = p + t[0]
                p = p + t[1]
                p = p + 0.0
                p = p + 0.0
            append((j, e[1], p))
        return out

    def _queue_time_only(self, job: Job, now: int, eff_queue_time: int, bypass: int) -> float:
        """serv_priority() when QUEUETIME is SERV's only weighted subfactor (FCFS and most
        sites): the same operations in the same order, so the same float. O(1)."""
        hit = self._prefix.get(job.id)
        static = hit[1] if hit is not None and hit[0] is job else self._new_static(job)
        w, cap, scap, cw = self._qt_terms
        qt_s = now - eff_queue_time
        v = (qt_s if qt_s > 0 else 0) / 60.0
        if cap > 0 and v > cap:
            v = cap
        total = 0.0 + w * v
        if scap > 0 and total > scap:
            total = scap
        return static + cw * total

    def fixed_priorities(self, entries: list, now: int, static: float) -> list[tuple]:
        """`entries` (job, compiled request, priority) with each priority replaced by
        serv_priority(job, now, job.submit_time, bypass), when order_fixed holds and every
        job's static part is `static`: the same operations in the same order (no caps:
        is_linear), so the same floats, without a call per job. O(len(entries))."""
        cw = self.cw["SERV"]
        if not self._serv_terms:
            v = static + cw * 0.0
            return [(j, cr, v) for j, cr, _p in entries]
        w = self._serv_terms[0][1]
        return [(j, cr, static + cw * (0.0 + w * ((q if (q := now - j.submit_time) > 0 else 0)
                                                   / 60.0)))
                for j, cr, _p in entries]

    def fixed_terms(self, submits: list[int], now: int) -> list[float]:
        """The SERV term fixed_priorities adds to a job's static part, for each submit time:
        fixed_priorities(entries, now, static)[k][2] == static + fixed_terms(...)[k] in
        every bit (Python adds the static part last: the same operations in the same
        order), so jobs of several static parts are ranked in one pass instead of a pass
        per part. O(len(submits))."""
        cw = self.cw["SERV"]
        if not self._serv_terms:
            return [cw * 0.0] * len(submits)
        w = self._serv_terms[0][1]
        return [cw * (0.0 + w * ((q if (q := now - s) > 0 else 0) / 60.0)) for s in submits]

    def static_sum(self, job: Job) -> float:
        """The sum of the components fixed for a job's life (CRED, static RES), cached per
        job object. O(1) once cached."""
        hit = self._prefix.get(job.id)
        if hit is None or hit[0] is not job:
            return self._new_static(job)
        return hit[1]

    def _new_static(self, job: Job) -> float:
        """static_sum() of a job not cached yet (or cached for another Job object): worked
        out and cached. O(1) for a credential set and request shape seen before.

        _shape_sum's invariant: an entry key -> value holds value == _static_total(job) for
        every job with that key, as _static_total reads only the key's fields: CRED the
        credentials; RES the request's nodes, tasks, per-task procs and mem and the
        wallclock, or nothing when no RES subfactor is weighted (_res_shaped: every term is
        skipped, RES is cw x 0.0). One tuple and one look-up per job instead of
        _static_total's three and a RES per request shape (a first cycle of 200,000 queued
        jobs works it out for each). tests/property/test_priority_fast_paths.py
        checks it against a fresh engine."""
        if len(self._prefix) > 200_000:
            self._prefix.clear()
        key: tuple = (job.user, job.group, job.account, job.qos, job.class_)
        if self._res_shaped:
            req = job.request
            key += (req.nodes, req.tasks, req.per_task.procs, req.per_task.mem, job.wallclock)
        value = self._shape_sum.get(key)
        if value is None:
            if len(self._shape_sum) > 200_000:
                self._shape_sum.clear()
            value = self._shape_sum[key] = self._static_total(job)
        self._prefix[job.id] = (job, value)
        return value

    def static_sums(self, jobs: list[Job]) -> list[float]:
        """static_sum() of each of `jobs`, in order: the same floats, worked out once per
        distinct _new_static key (one job of each key asked, the value depending on the key
        only: see _new_static) instead of once per job; the other jobs are not cached per
        job. A first cycle ranks every queued job: 200,000 jobs have some 400 credential
        sets. O(jobs) keys built and looked up in C, plus O(distinct keys) static_sum;
        O(1) plus the list when the part is one for every job (STATIC_CONST)."""
        if STATIC_CONST and self._static_const and jobs:
            return [self.static_sum(jobs[-1])] * len(jobs)
        keys = map(_SHAPED_KEY if self._res_shaped else _CRED_KEY, reversed(jobs))
        last: dict = {}         # key -> its last job's place from the end: one hash per job
        at = list(map(last.setdefault, keys, count()))
        n = len(jobs) - 1
        value = {r: self.static_sum(jobs[n - r]) for r in reversed(last.values())}
        out = list(map(value.__getitem__, at))
        out.reverse()
        return out

    def priority(self, job: Job, now: int, ctx: JobContext) -> float:
        """The exact value used for ordering (system priority included)."""
        b = self.breakdown(job, now, ctx)
        if job.system_priority > 0:
            return float(self.clip(b.priority, job.system_priority))
        return b.priority

    def clip(self, prio: float, system_priority: int = 0) -> int:
        """The value Maui shows: clipped to [1, MAX_PRIO_VAL], setspri on top, truncated."""
        if not self.reject_neg and not self.allow_neg:
            prio = max(prio, 1.0)
        prio = min(prio, float(MAX_PRIO_VAL))
        if 0 < system_priority <= MAX_PRIO_VAL:
            prio = MAX_PRIO_VAL + system_priority
        elif system_priority > MAX_PRIO_VAL:
            prio += system_priority - 2 * MAX_PRIO_VAL
        return int(prio)
