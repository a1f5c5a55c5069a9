"""A seeded site and its month of Slurm accounting, for the site benchmark (issue 33).

Writes `cluster.txt` (`sinfo -N -h -o '%N|%c|%m|%f|%G|%P'`, one row per node and partition)
and `sacct.txt` (`sacct -a -X -P --format=<maui_py's SACCT_FIELDS>` with its header, plus a
few step rows as `sacct` without -X prints them). At --scale 1: 800 nodes of 64 cores /
256 GB (partition std), 150 of 128 cores / 512 GB (bigmem), 50 of 64 cores / 512 GB / 4 GPUs
(gpu); ~148k rows a month (~143k replayable: ~2 % cancelled while queued, a few running at
the end, ~1 % step rows); 55 % one-core jobs (most in arrays), ~6 % MPI jobs of 2-64 whole
nodes, ~5 % GPU jobs; memory asked per cpu (`ReqMem 4000Mc`, as before Slurm 21.08) or per
node; 200 users (Zipf activity) in 40 accounts; lognormal (heavy-tailed) runtimes scaled so
each partition's busiest resource is offered a load of --load; arrivals follow the day and
the week (calm nights, deep-queue mornings). stdlib only, no maui_py: the benchmark's input
must not depend on the code it measures. Usage: generate.py OUTDIR [--days D] [--scale S]
[--seed N] [--load X]
"""

import argparse
import math
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

FIELDS = ("JobID|JobIDRaw|JobName|User|Group|Account|Partition|QOS|Submit|Eligible|Start|End|"
          "Timelimit|NNodes|NCPUS|ReqMem|ReqTRES|AllocTRES|NodeList|State|ExitCode|Constraints")
EPOCH = datetime(2026, 10, 1, tzinfo=timezone.utc)
JOBS_PER_DAY = 146_500 / 30          # allocation rows per day at scale 1
PARTITIONS = {  # name: (nodes at scale 1, cores, memory MB, gpus, prefix, features)
    "std": (800, 64, 256_000, 0, "c", "ib,avx512"),
    "bigmem": (150, 128, 512_000, 0, "m", "ib,bigmem"),
    "gpu": (50, 64, 512_000, 4, "g", "ib,a100"),
}
LIMITS = (1800, 3600, 7200, 14400, 28800, 43200, 86400, 172800)
MAX_RUN = LIMITS[-1]


def cluster(scale):
    """{partition: [node names]}, at least one node each."""
    return {p: [f"{pre}{i:04d}" for i in range(1, max(1, round(n * scale)) + 1)]
            for p, (n, _c, _m, _g, pre, _f) in PARTITIONS.items()}


def sinfo_text(nodes):
    rows = []
    for p, names in nodes.items():
        _n, cores, mem, gpus, _pre, feats = PARTITIONS[p]
        gres = f"gpu:a100:{gpus}" if gpus else "(null)"
        rows += [f"{n}|{cores}|{mem}|{feats}|{gres}|{p}{'*' if p == 'std' else ''}" for n in names]
    return "\n".join(rows) + "\n"


KINDS = {"serial": 0.55, "mpi": 0.060, "gpu": 0.0525, "bigmem": 0.08, "smp": 0.2575}
"""Share of the jobs of each kind (serial: one core; mpi: 2-64 whole std nodes)."""


def _shape(rng, kind, nodes):
    """(partition, nodes, cores, memory MB, gpus, memory asked per cpu) of one job."""
    if kind == "serial":                            # one core, a little memory per cpu
        return "std", 1, 1, rng.choice((1000, 2000, 2000, 4000, 8000)), 0, True
    if kind == "mpi":                               # whole nodes, memory per node
        n = min(len(nodes["std"]), max(2, int(2 ** rng.uniform(1, 6.02))))
        return "std", n, 64 * n, 250_000 * n, 0, False
    if kind == "gpu":                               # 1-4 GPUs, sometimes two nodes
        n = 2 if rng.random() < 0.08 and len(nodes["gpu"]) >= 2 else 1
        g = rng.choice((1, 1, 2, 4)) if n == 1 else 4
        return "gpu", n, 16 * g * n, 120_000 * g * n, g * n, False
    if kind == "bigmem":                            # lots of memory on one node
        c = rng.choice((16, 32, 64, 64, 128, 128))
        return "bigmem", 1, c, rng.choice((100_000, 200_000, 400_000, 500_000)), 0, False
    c = rng.choice((2, 4, 8, 8, 16, 16, 32, 64))    # smp: one node, several cores
    return "std", 1, c, c * rng.choice((2000, 3000, 4000)), 0, True


def _arrival(rng, days):
    """A time in [0, days) with twice the rate at 08-18 on weekdays as at night/weekends."""
    while True:
        t = rng.uniform(0, days * 86400)
        d = EPOCH + timedelta(seconds=t)
        busy = d.weekday() < 5 and 8 <= d.hour < 18
        if rng.random() < (1.0 if busy else 0.4):
            return int(t)


def _jobs(rng, days, scale, nodes):
    """Job dicts (one per allocation, arrays expanded: 60 % of one-core jobs are array tasks),
    each kind up to its share, before runtimes are calibrated."""
    want = max(1, round(JOBS_PER_DAY * days * scale))
    users = [f"u{k:03d}" for k in range(200)]
    weight = [1 / (k + 1) ** 0.9 for k in range(200)]
    jobs = []
    for kind, share in KINDS.items():
        quota = len(jobs) + max(1, round(want * share))
        while len(jobs) < quota:
            user = rng.choices(users, weight)[0]
            part, n, cores, mem, gpus, per_cpu = _shape(rng, kind, nodes)
            tasks = 1
            if kind == "serial" and rng.random() < 0.032:            # 60 % of one-core jobs in arrays
                tasks = rng.choice((10, 20, 50, 100))
            t, base = _arrival(rng, days), rng.lognormvariate(7.0, 1.8)
            for k in range(min(tasks, quota - len(jobs))):
                jobs.append(dict(user=user, part=part, nodes=n, cores=cores, mem=mem, gpus=gpus,
                                 per_cpu=per_cpu, kind=kind, submit=t,
                                 array=k if tasks > 1 else None, cancel=rng.random() < 0.022,
                                 base=base * rng.uniform(0.7, 1.3)))
    return jobs


def _calibrate(jobs, nodes, days, load):
    """Runtimes scaled per partition so its busiest resource is offered `load`."""
    for p, names in nodes.items():
        _n, cores, mem, gpus, _pre, _f = PARTITIONS[p]
        mine = [j for j in jobs if j["part"] == p and not j["cancel"]]
        cap = [len(names) * cores * days * 86400, len(names) * mem * days * 86400,
               len(names) * gpus * days * 86400]

        def offered(f):
            work = [0.0, 0.0, 0.0]
            for j in mine:
                run = min(j["base"] * f, MAX_RUN)
                work[0] += j["cores"] * run
                work[1] += j["mem"] * run
                work[2] += j["gpus"] * run
            return max(w / c for w, c in zip(work, cap) if c)

        lo, hi = 1e-4, 1e4
        for _ in range(40):
            mid = math.sqrt(lo * hi)
            lo, hi = (mid, hi) if offered(mid) < load else (lo, mid)
        for j in jobs:
            if j["part"] == p:
                j["run"] = max(1, int(min(j["base"] * lo, MAX_RUN)))


def _stamp(t):
    return (EPOCH + timedelta(seconds=t)).strftime("%Y-%m-%dT%H:%M:%S")


def _hms(s):
    d, s = divmod(s, 86400)
    return (f"{d}-" if d else "") + f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _row(rng, j, jid, raw, nodes, days):
    """The allocation row of one job, and its state ("" when it ran)."""
    limit = next(x for x in LIMITS if x >= min(j["run"] * rng.uniform(1.2, 4), MAX_RUN))
    state = "COMPLETED" if rng.random() < 0.9 else "FAILED"
    if j["run"] >= limit:
        j["run"], state = limit, "TIMEOUT"
    eligible = j["submit"] + (rng.randint(60, 7200) if rng.random() < 0.03 else 0)
    start = eligible + int(rng.expovariate(1 / 1800))
    end = start + j["run"]
    hosts = ",".join(rng.sample(nodes[j["part"]], j["nodes"]))
    if j["cancel"]:
        state, start, end, hosts = "CANCELLED by 0", None, None, "None assigned"
    elif end > days * 86400 and rng.random() < 0.5:
        state, end = "RUNNING", None
    mem = j["mem"]
    tres = f"billing={j['cores']},cpu={j['cores']},node={j['nodes']}"
    if j["gpus"]:
        tres += f",gres/gpu={j['gpus']}"
    if rng.random() < 0.3:                          # an old record: ReqMem per cpu / per node
        req_mem = f"{mem // j['cores']}Mc" if j["per_cpu"] else f"{mem // j['nodes']}Mn"
        req_tres = tres
    else:
        req_mem, req_tres = f"{mem}M", tres + f",mem={mem}M"
    alloc = req_tres if start is not None else ""
    cons = "ib" if j["kind"] == "mpi" and rng.random() < 0.5 else ""
    return "|".join(map(str, (
        jid, raw, f"{j['kind']}-{raw % 97}", j["user"], "g" + j["user"][1:3], j["account"],
        j["part"], j["qos"], _stamp(j["submit"]), _stamp(eligible),
        _stamp(start) if start is not None else "Unknown",
        _stamp(end) if end is not None else "Unknown", _hms(limit), j["nodes"], j["cores"],
        req_mem, req_tres, alloc, hosts, state, "0:0", cons)))


def generate(out, days=30.0, scale=1.0, seed=1, load=0.9):
    """Write OUT/cluster.txt and OUT/sacct.txt; return their paths."""
    rng = random.Random(seed)
    nodes = cluster(scale)
    jobs = _jobs(rng, days, scale, nodes)
    _calibrate(jobs, nodes, days, load)
    for j in jobs:
        j["account"] = f"acct{int(j['user'][1:]) % 40:02d}"
        j["qos"] = ("debug" if j["run"] < 900 and rng.random() < 0.2 else
                    rng.choices(("normal", "high", "long"), (90, 5, 5))[0])
    jobs.sort(key=lambda j: j["submit"])
    rows, raw, master = [FIELDS], 1_000_000, None
    for j in jobs:
        raw += 1
        if j["array"] in (None, 0):
            master = raw
        jid = raw if j["array"] is None else f"{master}_{j['array']}"
        rows.append(_row(rng, j, jid, raw, nodes, days))
        if rng.random() < 0.01 and "|None assigned|" not in rows[-1]:
            cols = rows[-1].split("|")
            cols[0], cols[1], cols[2] = f"{jid}.batch", f"{raw}.batch", "batch"
            cols[3:8] = [""] * 5
            rows.append("|".join(cols))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "cluster.txt").write_text(sinfo_text(nodes))
    (out / "sacct.txt").write_text("\n".join(rows) + "\n")
    return out / "cluster.txt", out / "sacct.txt"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("--days", type=float, default=30.0)
    p.add_argument("--scale", type=float, default=1.0, help="nodes and jobs x this")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--load", type=float, default=0.9)
    a = p.parse_args(argv)
    for path in generate(a.out, a.days, a.scale, a.seed, a.load):
        print(f"wrote {path} ({sum(1 for _ in open(path))} lines)")


if __name__ == "__main__":
    main()
