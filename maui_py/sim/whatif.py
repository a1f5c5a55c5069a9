"""What-if on a site's own log: one workload, several maui.cfg variants, each replayed on K
shaken copies of the input, and every change against the current config with a confidence
interval.

A *plan* (a JSON-able dict: the replayable jobs, the cluster, the config texts, the shaking)
describes every run; run i replays config i // K on shake i % K. run_one(plan, i) is all a
worker needs (a local process, a Slurm array task), and returns a JSON-able *measure*:
per user, account, QOS and job-size class the mean wait, bounded slowdown, expansion factor
and delivered share, plus the totals, the backfill share and utilisation over time.
compare() pairs the runs of two configs shake by shake (same input, different policy) and
gives each difference a Student-t interval over the K paired differences.

Definitions (docs/whatif.md): wait = start - arrival; bounded slowdown = max(1, (wait + run)
/ max(run, 10)); expansion factor = (wait + wallclock) / wallclock, as Maui's XFactor;
delivered share = the group's processor-seconds delivered between the first and the last
arrival of the log, over everyone's (after the last arrival every policy delivers the rest).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import time
from dataclasses import dataclass
from statistics import mean, stdev
from typing import Any, Iterable, Sequence

from ..cfg import ConfigError, SchedulerConfig, parse_config
from ..model import Node
from .engine import SimOptions, Simulation
from .metrics import BSLD_THRESHOLD, figures, size_bucket
from .shake import ShakeSpec, shake
from .swf import SimJob
from .importers.replay import replay_input
from .importers.workload import (Workload, WorkloadJob, job_from_dict, job_to_dict, node_from_dict,
                                 node_to_dict, to_sim_jobs)

KINDS = ("user", "account", "qos", "size")
METRICS = ("wait", "bsld", "xf", "share")
TIMELINE_BINS = 48
_FS_OBJECT = {"user": "USERCFG", "account": "ACCOUNTCFG", "qos": "QOSCFG"}

_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
"""Two-sided 95 % Student-t quantiles for 1..30 degrees of freedom (then 1.96)."""


def size_class(procs: int) -> str:
    """A job's size group: the simulator report's (1, 2, 3-4, 5-8, ... powers of two), so the
    two reports' per-size tables line up."""
    return size_bucket(procs)[1]


def group_order(kind: str, names) -> list[str]:
    """The groups of a kind in the order a person reads them: sizes by number (1, 2, 3-4,
    ..., 65-128), the others by name."""
    if kind == "size":
        return sorted(names, key=lambda g: int(g.split("-")[0].lstrip(">") or 0))
    return sorted(names)


# ------------------------------------------------------------------ configs
@dataclass(frozen=True)
class ConfigVariant:
    """One config of a what-if: its label, its text, and the --set values that made it."""

    name: str
    text: str
    settings: tuple[tuple[str, str], ...] = ()


def parse_variant(v: ConfigVariant) -> SchedulerConfig:
    return parse_config(v.text, v.name)


def parse_sets(items: Sequence[str]) -> list[tuple[str, list[str]]]:
    """`PARAM=v1,v2` -> [(PARAM, [v1, v2])]; ValueError naming the bad item."""
    axes = []
    for item in items:
        name, eq, values = item.partition("=")
        vals = [v.strip() for v in values.split(",") if v.strip()]
        if not eq or not name.strip() or not vals:
            raise ValueError(f"--set {item!r}: expected PARAM=value1,value2,...")
        axes.append((name.strip(), vals))
    return axes


def sweep_variants(base_name: str, base_text: str, axes: Sequence[tuple[str, list[str]]]
                   ) -> list[ConfigVariant]:
    """The base config, then one variant per combination of the axes' values (each a
    `PARAM value` line appended to the base: the last line wins). A value maui.cfg does not
    accept raises ValueError with the config's own message."""
    out = [ConfigVariant(base_name, base_text)]
    names = [a for a, _ in axes]
    for combo in itertools.product(*(vals for _, vals in axes)):
        lines = "".join(f"{n} {v}\n" for n, v in zip(names, combo))
        check = parse_config(lines, "--set")
        bad = [str(w) for w in check.warnings]
        if bad:
            raise ValueError("; ".join(bad))
        label = " ".join(f"{n}={v}" for n, v in zip(names, combo))
        out.append(ConfigVariant(label, f"{base_text}\n# --set\n{lines}", tuple(zip(names, combo))))
    return out


# ------------------------------------------------------------------ the plan
def make_plan(workload: Workload, variants: Sequence[ConfigVariant], *, shakes: int = 10,
              seed: int = 1, spec: ShakeSpec = ShakeSpec(), poll: int = 0,
              eligible_arrival: bool = True) -> dict[str, Any]:
    """Everything a worker needs, JSON-able. The workload is cut to its replayable jobs here
    (the counts of the others go into the plan's notes)."""
    if shakes < 1:
        raise ValueError("shakes must be >= 1")
    if not workload.nodes:
        raise ValueError("no cluster: give --cluster (sinfo / pbsnodes -x output) or --nodes")
    for v in variants:
        parse_variant(v)                       # a config error shows before any run
    cut = replay_input(workload, eligible_arrival)     # as `maui-sim LOG --format` cuts it
    jobs, left_out = cut.jobs, cut.left_out
    if not jobs:
        raise ValueError(f"{workload.source}: no job both started and ended: nothing to replay")
    return {"version": 1, "source": workload.source, "dates": workload.dates,
            "skipped": dict(workload.skipped),
            "left_out": left_out, "nodes": [node_to_dict(n) for n in workload.nodes],
            "jobs": [job_to_dict(j) for j in jobs],
            "configs": [{"name": v.name, "text": v.text, "settings": [list(s) for s in v.settings]}
                        for v in variants],
            "shakes": shakes, "seed": seed,
            "shake": {"submit_jitter": spec.submit_jitter, "runtime_jitter": spec.runtime_jitter},
            "poll": poll, "eligible_arrival": eligible_arrival}


def run_count(plan: dict[str, Any]) -> int:
    return len(plan["configs"]) * plan["shakes"]


@dataclass(frozen=True)
class Inputs:
    """A plan's inputs as the replays take them, converted once per process and shared by
    every run made there (a forked worker inherits them from the parent): the cluster, the
    workload's jobs by id, and the unshaken simulator jobs in plan order. Jobs and requests
    are frozen, and shake() copies what it changes, so no run sees another's."""

    nodes: tuple[Node, ...]
    meta: dict[str, WorkloadJob]
    sims: tuple[SimJob, ...]
    machine_procs: int


def prepare(plan: dict[str, Any]) -> Inputs:
    """The plan's nodes and jobs converted as run_one converts them, once. O(jobs)."""
    nodes = tuple(node_from_dict(n) for n in plan["nodes"])
    wjobs = [job_from_dict(j) for j in plan["jobs"]]
    sims = tuple(to_sim_jobs(wjobs, eligible_arrival=plan["eligible_arrival"]))
    return Inputs(nodes, {j.id: j for j in wjobs}, sims,
                  sum(n.resources.procs for n in nodes if n.state.usable))


def run_one(plan: dict[str, Any], index: int) -> dict[str, Any]:
    """Replay run `index` of the plan and measure it. Pure but for the times it reports."""
    return run_prepared(plan, prepare(plan), index)


def run_prepared(plan: dict[str, Any], inputs: Inputs, index: int) -> dict[str, Any]:
    """run_one with the plan's inputs already converted (prepare(plan)): what a worker that
    makes several runs of one plan calls, so it converts them once."""
    if not 0 <= index < run_count(plan):
        raise ValueError(f"run {index} is not in the plan (0..{run_count(plan) - 1})")
    c, k = divmod(index, plan["shakes"])
    t0, cpu0 = time.perf_counter(), time.process_time()
    variant = plan["configs"][c]
    cfg = parse_config(variant["text"], variant["name"])
    jobs = shake(list(inputs.sims), ShakeSpec(**plan["shake"]), plan["seed"], k)
    result = Simulation(inputs.nodes, jobs, cfg, SimOptions(poll_interval=plan["poll"]),
                        variant["name"]).run()
    arrivals = sorted(sj.job.submit_time for sj in jobs)
    m = measure(result.records, inputs.meta, inputs.machine_procs, (arrivals[0], arrivals[-1]))
    m["violations"] = len(result.check.violations)
    return {"index": index, "config": c, "shake": k, "measure": m,
            "schedule": schedule_digest(result.records),
            "wall_seconds": round(time.perf_counter() - t0, 3),
            "cpu_seconds": round(time.process_time() - cpu0, 3)}


def schedule_digest(records: dict) -> str:
    """SHA-256 of the run's schedule (each job's id, start and end, by id): two runs, two
    checkouts or two orders of running them made the same schedule iff the digests match."""
    h = hashlib.sha256()
    for jid in sorted(records):
        r = records[jid]
        h.update(f"{jid},{r.start},{r.end}\n".encode())
    return h.hexdigest()


# ------------------------------------------------------------------ measuring one run
def _key(kind: str, j: WorkloadJob, procs: int) -> str:
    if kind == "size":
        return size_class(procs)
    return (getattr(j, kind) if kind != "qos" else j.qos) or "-"


def measure(records: dict, meta: dict[str, WorkloadJob], machine_procs: int,
            window: tuple[int, int]) -> dict[str, Any]:
    """Per-group means (finished jobs) and delivered shares of one replay, the totals, and the
    busy fraction of the machine in TIMELINE_BINS equal bins from the first arrival."""
    lo, hi = window
    acc: dict[str, dict[str, list[float]]] = {k: {} for k in KINDS}
    delivered: dict[str, dict[str, float]] = {k: {} for k in KINDS}
    total_delivered = 0.0
    done = []
    unfinished: dict[str, int] = {}
    for jid in sorted(records):
        r = records[jid]
        j = meta[jid]
        procs = r.job.procs
        if r.start is None or r.end is None:
            unfinished[j.user or "-"] = unfinished.get(j.user or "-", 0) + 1
            continue
        done.append(r)
        wait = r.start - r.job.submit_time
        run = r.end - r.start
        bsld = max(1.0, (wait + run) / max(run, BSLD_THRESHOLD))
        xf = (wait + r.job.wallclock) / max(r.job.wallclock, 1)
        inside = max(0, min(r.end, hi) - max(r.start, lo)) * procs
        total_delivered += inside
        for kind in KINDS:
            g = _key(kind, j, procs)
            row = acc[kind].setdefault(g, [0.0, 0.0, 0.0, 0.0])
            row[0] += 1
            row[1] += wait
            row[2] += bsld
            row[3] += xf
            delivered[kind][g] = delivered[kind].get(g, 0.0) + inside
    groups: dict[str, dict[str, dict[str, float]]] = {}
    for kind in KINDS:
        groups[kind] = {g: {"n": int(n), "wait": sw / n, "bsld": sb / n, "xf": sx / n,
                            "share": delivered[kind][g] / total_delivered if total_delivered else 0.0}
                        for g, (n, sw, sb, sx) in ((g, acc[kind][g]) for g in group_order(kind, acc[kind]))}
    f = figures(records.values(), machine_procs)
    end = max((r.end for r in done), default=lo)
    width = max(1, -(-(max(hi, lo + 1) - lo) // TIMELINE_BINS))
    nbins = max(1, -(-(end - lo) // width))
    busy = [0.0] * nbins
    for r in done:
        a, b = r.start, r.end
        first, last = (a - lo) // width, min(nbins - 1, (b - 1 - lo) // width) if b > a else -1
        for x in range(max(0, first), last + 1):
            s, e = lo + x * width, lo + (x + 1) * width
            busy[x] += (min(b, e) - max(a, s)) * r.job.procs
    timeline = [round(v / (width * machine_procs), 6) if machine_procs else 0.0 for v in busy]
    return {"groups": groups, "unfinished": unfinished,
            "total": {"jobs": f.jobs, "finished": f.finished, "wait": f.wait_mean,
                      "bsld": f.bsld_mean, "xf": mean([r_xf for r_xf in _xfs(done)]) if done else 0.0,
                      "utilization": f.utilization, "backfill_share": f.backfill_share,
                      "makespan": f.makespan},
            "timeline": {"start": lo, "width": width, "busy": timeline}}


def _xfs(done: Iterable) -> Iterable[float]:
    for r in done:
        yield (r.start - r.job.submit_time + r.job.wallclock) / max(r.job.wallclock, 1)


# ------------------------------------------------------------------ comparing configs
def t_quantile(df: int) -> float:
    return _T975[df - 1] if 1 <= df <= len(_T975) else 1.96


@dataclass(frozen=True)
class Diff:
    """A paired difference (proposed - current) over the shakes: mean and 95 % interval
    (None with a single run: no interval). within_noise: the interval contains 0."""

    current: float
    proposed: float
    diff: float
    lo: float | None
    hi: float | None

    @property
    def within_noise(self) -> bool:
        return self.lo is None or self.lo <= 0.0 <= self.hi

    def as_dict(self) -> dict[str, Any]:
        return {"current": self.current, "proposed": self.proposed, "diff": self.diff,
                "lo": self.lo, "hi": self.hi, "within_noise": self.within_noise}


def paired(a: Sequence[float], b: Sequence[float]) -> Diff:
    """The difference b - a of paired samples with its Student-t 95 % interval."""
    d = [y - x for x, y in zip(a, b)]
    m = mean(d)
    if len(d) < 2:
        return Diff(mean(a), mean(b), m, None, None)
    half = t_quantile(len(d) - 1) * stdev(d) / math.sqrt(len(d))
    return Diff(mean(a), mean(b), m, m - half, m + half)


def _by_shake(runs: Sequence[dict[str, Any]], config: int) -> list[dict[str, Any]]:
    return [r["measure"] for r in sorted((r for r in runs if r["config"] == config),
                                          key=lambda r: r["shake"])]


def compare(runs: Sequence[dict[str, Any]], base: int, other: int) -> dict[str, Any]:
    """Every metric of every group present in both configs' runs, and the totals, as Diffs."""
    a, b = _by_shake(runs, base), _by_shake(runs, other)
    if len(a) != len(b) or not a:
        raise ValueError("the two configs have different numbers of runs")
    out: dict[str, Any] = {"total": {}, "groups": {}}
    for metric in ("wait", "bsld", "xf", "utilization", "backfill_share"):
        out["total"][metric] = paired([m["total"][metric] for m in a], [m["total"][metric] for m in b])
    for kind in KINDS:
        common = set.intersection(*(set(m["groups"][kind]) for m in a + b))
        out["groups"][kind] = {
            g: {"n": a[0]["groups"][kind][g]["n"],
                **{metric: paired([m["groups"][kind][g][metric] for m in a],
                                  [m["groups"][kind][g][metric] for m in b]) for metric in METRICS}}
            for g in group_order(kind, common)}
    return out


def losers(cmp: dict[str, Any], top: int = 5) -> list[tuple[str, Diff]]:
    """The users whose mean wait grows most (beyond the noise first), worst first."""
    users = [(u, row["wait"]) for u, row in cmp["groups"]["user"].items() if row["wait"].diff > 0]
    users.sort(key=lambda x: (x[1].within_noise, -x[1].diff, x[0]))
    return users[:top]


def fs_targets(text: str, name: str) -> dict[str, dict[str, str]]:
    """FSTARGET of every user, account and QOS a config names, as text ("25.0", "10.0 floor")."""
    try:
        cfg = parse_config(text, name)
    except ConfigError:
        return {}
    out: dict[str, dict[str, str]] = {}
    for kind, obj in _FS_OBJECT.items():
        for cred, c in cfg.objects(obj).items():
            t = c.get("FSTARGET")
            if t is not None:
                out.setdefault(kind, {})[cred] = f"{t.value:g}" + ("" if t.mode == "target" else f" {t.mode}")
    return out


def unfinished_mean(ms: Sequence[dict[str, Any]]) -> float:
    """Jobs a config's replays never finished (held, or still queued when the replay ended),
    the mean over its shakes: every other figure covers finished jobs only, so a config that
    leaves jobs unrun compares other jobs than the current one (and must say so)."""
    return round(mean(sum(m["unfinished"].values()) for m in ms), 1) if ms else 0.0


def analyse(plan: dict[str, Any], runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The whole what-if as JSON-able data: each config against config 0 (the current one)."""
    runs = sorted(runs, key=lambda r: r["index"])
    if [r["index"] for r in runs] != list(range(run_count(plan))):
        raise ValueError("results are missing for some runs")
    configs = plan["configs"]
    comparisons = []
    for c in range(1, len(configs)):
        cmp = compare(runs, 0, c)
        comparisons.append({
            "config": c, "name": configs[c]["name"], "settings": configs[c]["settings"],
            "total": {k: d.as_dict() for k, d in cmp["total"].items()},
            "groups": {kind: {g: {"n": row["n"], **{m: row[m].as_dict() for m in METRICS}}
                              for g, row in rows.items()} for kind, rows in cmp["groups"].items()},
            "losers": [{"user": u, **d.as_dict()} for u, d in losers(cmp)],
        })
    timelines = []
    for c in range(len(configs)):
        ms = _by_shake(runs, c)
        n = min(len(m["timeline"]["busy"]) for m in ms)
        timelines.append({"config": c, "start": ms[0]["timeline"]["start"],
                          "width": ms[0]["timeline"]["width"],
                          "busy": [mean(m["timeline"]["busy"][x] for m in ms) for x in range(n)]})
    return {"source": plan["source"], "dates": plan.get("dates", "UTC"), "jobs": len(plan["jobs"]),
            "skipped": plan["skipped"],
            "left_out": plan["left_out"], "nodes": len(plan["nodes"]),
            "procs": sum(n["procs"] for n in plan["nodes"]),
            "shakes": plan["shakes"], "seed": plan["seed"], "shake": plan["shake"],
            "configs": [{"name": v["name"], "settings": v["settings"],
                         "fs_targets": fs_targets(v["text"], v["name"]),
                         "total": {k: mean(m["total"][k] for m in _by_shake(runs, i))
                                   for k in ("wait", "bsld", "xf", "utilization", "backfill_share")},
                         "violations": sum(m["violations"] for m in _by_shake(runs, i)),
                         "unfinished": unfinished_mean(_by_shake(runs, i))}
                        for i, v in enumerate(configs)],
            "comparisons": comparisons, "timelines": timelines,
            "run_seconds": [r["wall_seconds"] for r in runs],
            "run_cpu_seconds": [r.get("cpu_seconds") for r in runs],
            "run_schedules": [r.get("schedule") for r in runs]}
