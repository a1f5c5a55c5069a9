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
from .workload import MAX_PROCS, LineWarnings, Workload, WorkloadJob, bounded, log_lines, whole

RECORD_TYPES = frozenset("QSEDAR")
"""Record types read; others (C checkpoint, T restart, and site additions) are ignored."""


def _fields(text: str) -> dict[str, str]:
    """`user=alice jobname=run x queue=batch` -> dict; a token without `=` continues the value
    before it (job names may hold blanks).

    The job name is the one field a user chooses, and Torque writes it raw between the
    fields it sets (`user= group= [account=] jobname= queue= ctime= ...`): a name such as
    `x user=victim group=victim queue=vip` must not override them. So the name runs from
    `jobname=` to the last `queue=` after it (Torque writes queue= right after the name),
    and otherwise a key given twice keeps its first value (user, group and account come
    before the name)."""
    tokens = text.split(" ")
    start = next((k for k, tok in enumerate(tokens) if tok.startswith("jobname=")), None)
    name = None
    if start is not None:
        end = next((k for k in range(len(tokens) - 1, start, -1)
                    if tokens[k].startswith("queue=")), None)
        if end is not None:
            name = " ".join(tokens[start:end])[len("jobname="):]
            tokens = tokens[:start] + tokens[end:]
    out: dict[str, str] = {}
    last = None
    for token in tokens:
        if not token:
            continue
        key, eq, value = token.partition("=")
        if eq and key and "=" not in key and key.replace(".", "").replace("_", "").isalnum():
            if key in out:
                last = None     # a repeated key is text of the name: keep the first value
                continue
            out[key] = value
            last = key
        elif last is not None:
            out[last] = f"{out[last]} {token}"
    if name is not None:
        out["jobname"] = name
    return out


def _job(jid: str, f: dict[str, str], state: str, queued_at: int | None) -> WorkloadJob:
    res = {k[len("Resource_List."):]: v for k, v in f.items() if k.startswith("Resource_List.")}
    request = job_request(res)
    slots = f.get("total_execution_slots", "").strip()
    procs = whole(slots, "processors") if slots else bounded(request.procs, 0, MAX_PROCS, "processors")
    nodes_txt = f.get("unique_node_count", "").strip()
    nodes = whole(nodes_txt, "nodes") if nodes_txt else bounded(request.nodes or 0, 0, MAX_PROCS, "nodes")
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
        for lineno, line in enumerate(log_lines(text), 1):
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
