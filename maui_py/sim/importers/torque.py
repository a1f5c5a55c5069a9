"""Torque accounting logs (server_priv/accounting/YYYYMMDD) -> Workload.

Each line is `MM/DD/YYYY HH:MM:SS;TYPE;JOBID;key=value ...`. The importer reads the
records of type Q (queued), S (started), E (ended), D (deleted), A (aborted) and R (rerun)
and builds each job from its last E record, else from what Q and S said:
- submit = ctime (the job's creation), eligible = etime, start/end from the E record;
- the request (Resource_List.nodes / procs / ncpus, mem, pmem, walltime, gpus, node
  properties) is read with the Torque adapter's own rules (adapters/torque/nodespec.py);
  processors are total_execution_slots when given;
- Torque has no QOS: qos stays empty; account is `account=` when the job named one.

What the log cannot tell: a job deleted while queued (Q then D, no S) never ran and is left
out of the replay, counted; a job that has S but no E was running when the log ends; a
rerun job (R) is replayed as its last run only (counted), as with Slurm.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from ...adapters.torque.nodespec import job_request
from ...adapters.torque.values import duration_s
from .timefmt import bounded_seconds, epoch_field, torque_stamp
from .workload import MAX_PROCS, LineWarnings, Workload, WorkloadJob, bounded

RECORD_TYPES = frozenset("QSEDAR")
"""Record types read; others (C checkpoint, T restart, and site additions) are ignored."""


def _fields(text: str) -> dict[str, str]:
    """`user=alice jobname=run x queue=batch` -> dict; a token without `=` continues the value
    before it (job names may hold blanks)."""
    out: dict[str, str] = {}
    last = None
    for token in text.split(" "):
        if not token:
            continue
        key, eq, value = token.partition("=")
        if eq and key and "=" not in key and key.replace(".", "").replace("_", "").isalnum():
            out[key] = value
            last = key
        elif last is not None:
            out[last] = f"{out[last]} {token}"
    return out


def _job(jid: str, f: dict[str, str], state: str, queued_at: int | None) -> WorkloadJob:
    res = {k[len("Resource_List."):]: v for k, v in f.items() if k.startswith("Resource_List.")}
    request = job_request(res)
    slots = f.get("total_execution_slots", "").strip()
    procs = bounded(int(slots) if slots else request.procs, 0, MAX_PROCS, "processors")
    nodes_txt = f.get("unique_node_count", "").strip()
    nodes = int(nodes_txt) if nodes_txt else (request.nodes or 0)
    bounded(nodes, 0, MAX_PROCS, "nodes")
    submit = epoch_field(f.get("ctime", "")) or epoch_field(f.get("qtime", "")) or queued_at
    if submit is None:
        raise ValueError("no ctime, qtime or Q record")
    limit = duration_s(res["walltime"]) if res.get("walltime", "").strip() else None
    total = request.per_task.scaled(request.tasks)
    return WorkloadJob(
        id=jid, user=f.get("user", "").strip(), submit=submit,
        start=epoch_field(f.get("start", "")), end=epoch_field(f.get("end", "")),
        wallclock=bounded_seconds(limit, "walltime"), procs=procs, nodes=nodes,
        mem_mb=total.mem, group=f.get("group", "").strip(),
        account=f.get("account", "").strip(), class_=f.get("queue", "").strip(),
        gres=total.gres, features=tuple(sorted(request.features)),
        eligible=epoch_field(f.get("etime", "")), state=state,
        exit_code=f.get("Exit_status", "").strip(), dependency=res.get("depend", ""),
        name=f.get("jobname", "").strip())


def parse_accounting(sources: Iterable[tuple[str, str]]) -> Workload:
    """A Workload from (name, text) pairs of accounting files, read in the order given."""
    sources = list(sources)
    workload = Workload([], ", ".join(name for name, _ in sources))
    records: dict[str, list[tuple[str, dict[str, str], str, int, int]]] = {}
    for name, text in sources:
        bad = LineWarnings(name, "Torque accounting")
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            parts = line.split(";", 3)
            if len(parts) < 3:
                bad.skip(lineno, "expected DATE;TYPE;JOBID;fields")
                continue
            try:
                stamp = torque_stamp(parts[0])
            except ValueError as e:
                bad.skip(lineno, str(e))
                continue
            kind, jid = parts[1].strip(), parts[2].strip()
            if kind not in RECORD_TYPES:
                continue
            if not jid:
                bad.skip(lineno, "no job id")
                continue
            where = f"{name}:{lineno}"
            records.setdefault(jid, []).append((kind, _fields(parts[3] if len(parts) > 3 else ""),
                                                where, lineno, stamp))
        bad.finish(workload)
    for jid, recs in records.items():
        kinds = [k for k, *_ in recs]
        workload.count("rerun of a job (R record): earlier runs not replayed", kinds.count("R"))
        merged: dict[str, str] = {}
        for kind, fields, *_ in recs:
            if kind in "QSE":
                merged.update(fields)
        last = kinds[-1]
        state = {"E": "COMPLETED", "D": "DELETED", "A": "ABORTED", "S": "RUNNING",
                 "Q": "QUEUED", "R": "RERUN"}[last]
        if "D" in kinds and "E" in kinds:
            state = "DELETED"
        if "E" not in kinds:
            merged.pop("end", None)
            if "S" not in kinds or last in "DAR":
                merged.pop("start", None)
        elif state != "DELETED" and merged.get("Exit_status", "0").strip() not in ("", "0"):
            state = "FAILED"
        try:
            queued = next((r[4] for r in recs if r[0] == "Q"), recs[0][4])
            workload.jobs.append(_job(jid, merged, state, queued))
        except (ValueError, KeyError) as e:
            where = recs[-1][2]
            bad = LineWarnings(where.rsplit(":", 1)[0], "Torque accounting")
            bad.skip(recs[-1][3], f"job {jid}: {str(e)[:100]}")
            bad.finish(workload)
    for k in [k for k, v in workload.skipped.items() if not v]:
        del workload.skipped[k]
    return workload


def read_accounting(paths: Iterable[str | Path]) -> Workload:
    return parse_accounting((str(p), Path(p).read_text(errors="replace")) for p in paths)
