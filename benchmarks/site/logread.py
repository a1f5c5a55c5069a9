"""The site benchmark's own readers of its cluster and log (no maui_py: the reference and
the feasibility checker must not share code with what they judge).

Reads what generate.py writes: `sinfo -N -h -o '%N|%c|%m|%f|%G|%P'` and `sacct -P` with a
header, memory in MB (`mem=NM` in ReqTRES, else ReqMem `N`, `NMc` per cpu, `NMn` per node).
A job is replayable when it started and ended; it arrives at its submit time, or, when it
became eligible later, at min(eligible, start) (the job could not start before it was
eligible, and did start then). Its request per node: NCPUS / NNodes cores, memory and GPUs
split evenly (rounded up) over exactly NNodes nodes.
"""

from datetime import datetime, timezone


def read_cluster(path):
    """[node dict: name, cores, mem, gpus, parts (set), feats (set)] in file order."""
    nodes = {}
    for line in open(path):
        if not line.strip():
            continue
        name, cores, mem, feats, gres, part = line.rstrip("\n").split("|")
        gpus = int(gres.split(":")[-1]) if gres.startswith("gpu") else 0
        node = nodes.setdefault(name, dict(name=name, cores=int(cores), mem=int(mem), gpus=gpus,
                                           parts=set(), feats=set(feats.split(","))))
        node["parts"].add(part.rstrip("*"))
    return list(nodes.values())


def _epoch(text):
    if text in ("", "Unknown", "None"):
        return None
    return int(datetime.strptime(text, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc).timestamp())


def _seconds(limit):
    days, _, hms = limit.rpartition("-")
    h, m, s = (int(x) for x in hms.split(":"))
    return int(days or 0) * 86400 + h * 3600 + m * 60 + s


def _mb(text):
    if not text.endswith("M"):
        raise ValueError(f"memory {text!r}: the generator writes MB")
    return int(text[:-1])


def _memory(row, cpus, nnodes):
    tres = dict(kv.split("=") for kv in row["ReqTRES"].split(",") if "=" in kv)
    if "mem" in tres:
        return _mb(tres["mem"]), tres
    req = row["ReqMem"]
    if req[-1] in "cn":
        return _mb(req[:-1]) * (cpus if req[-1] == "c" else nnodes), tres
    return _mb(req), tres


def read_jobs(path):
    """Replayable jobs, dicts sorted by (arrival, id): id, arrival, run, wall, cpus, nnodes,
    mem, gpus (whole job), part, feats, and the per-node share cpn, mpn, gpn."""
    lines = open(path).read().split("\n")
    fields = lines[0].split("|")
    jobs = []
    for line in lines[1:]:
        if not line:
            continue
        row = dict(zip(fields, line.split("|")))
        if "." in row["JobID"]:
            continue                                     # a job step
        submit, start, end = _epoch(row["Submit"]), _epoch(row["Start"]), _epoch(row["End"])
        if start is None or end is None or row["NodeList"] == "None assigned":
            continue
        eligible = _epoch(row["Eligible"])
        arrival = min(eligible, start) if eligible is not None and eligible > submit else submit
        cpus, nnodes = int(row["NCPUS"]), int(row["NNodes"])
        mem, tres = _memory(row, cpus, nnodes)
        gpus = int(tres.get("gres/gpu", 0))
        run = end - start
        wall = _seconds(row["Timelimit"]) or max(run, 1)
        if cpus % nnodes:
            raise ValueError(f"job {row['JobID']}: {cpus} cpus over {nnodes} nodes")
        feats = set(row["Constraints"].split("&")) - {""}
        jobs.append(dict(id=row["JobID"], arrival=arrival, run=run, wall=wall, cpus=cpus,
                         nnodes=nnodes, mem=mem, gpus=gpus, part=row["Partition"], feats=feats,
                         cpn=cpus // nnodes, mpn=-(-mem // nnodes), gpn=-(-gpus // nnodes)))
    jobs.sort(key=lambda j: (j["arrival"], j["id"]))
    return jobs
