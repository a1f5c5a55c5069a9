"""Importers of real accounting: a site's own log becomes a workload the simulator replays.

    from maui_py.sim.importers import load_workload
    workload = load_workload(["sacct.txt"], "sacct")       # or "jobcomp", "torque", "swf"

slurm.py (sacct -P, jobcomp/filetxt), torque.py (accounting E/Q/S records), nodes.py (sinfo,
pbsnodes -x), workload.py (the WorkloadJob record and its conversions). Each module's
docstring says what its source cannot tell and how that is handled.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Sequence

from .workload import Workload

FORMATS = ("sacct", "jobcomp", "torque", "swf")


def sniff(path: str | Path) -> str:
    """The format of a log by its content: sacct header, jobcomp `JobId=`, Torque `;E;`, SWF."""
    p = Path(path)
    if p.name.endswith((".swf", ".swf.gz")):
        return "swf"
    with open(p, "rb") as f:
        head = f.read(4096).decode("utf-8", errors="replace")
    first = next((line for line in head.split("\n") if line.strip()), "")
    if first.startswith("JobID|") or first.count("|") >= 5:
        return "sacct"
    if first.startswith("JobId="):
        return "jobcomp"
    if first.count(";") >= 2 and first[:2].isdigit():
        return "torque"
    if first.startswith(";") or first.split()[:1] and first.split()[0].isdigit():
        return "swf"
    raise ValueError(f"{path}: cannot tell the log format; give --format ({', '.join(FORMATS)})")


def load_workload(paths: Sequence[str | Path], fmt: str | None = None) -> Workload:
    """One workload from one or more files of one format (sniffed from the first when None)."""
    from . import slurm, torque
    from .swfsource import read_swf_workload
    if not paths:
        raise ValueError("no log file given")
    fmt = fmt or sniff(paths[0])
    if fmt == "torque":
        return torque.read_accounting(paths)
    reader = {"sacct": slurm.read_sacct, "jobcomp": slurm.read_jobcomp,
              "swf": read_swf_workload}.get(fmt)
    if reader is None:
        raise ValueError(f"unknown format {fmt!r}: one of {', '.join(FORMATS)}")
    parts = [reader(p) for p in paths]
    out = parts[0]
    for w in parts[1:]:
        out.jobs += w.jobs
        out.source += f", {w.source}"
        for k, v in w.skipped.items():
            out.count(k, v)
    if len(parts) > 1:
        out.jobs = _one_per_id(out.jobs, out, fmt)
    return out


def _one_per_id(jobs: list, workload: Workload, fmt: str) -> list:
    """Jobs of several files, one per id: accounting dumps of one cluster may overlap (the
    last record of a job is kept, as within a file); SWF traces number their jobs from 1
    each, so a later trace's job gets its id suffixed `.N` (N: the copy). Two jobs with one
    id would be one job to the replay and its reports."""
    if fmt != "swf":
        last = {j.id: j for j in jobs}
        if len(last) < len(jobs):
            workload.count("record of a job also in a later file (the last is kept)",
                           len(jobs) - len(last))
            order = {}
            for j in jobs:
                order.setdefault(j.id, j)
            return [last[i] for i in order]
        return jobs
    seen: set[str] = set()
    out = []
    for j in jobs:
        new, n = j.id, 1
        while new in seen:
            n += 1
            new = f"{j.id}.{n}"
        if new != j.id:
            j = replace(j, id=new)
            workload.count("job id also in an earlier trace (renamed ID.N)")
        seen.add(new)
        out.append(j)
    return out
