"""Slurm accounting -> Workload: `sacct --parsable2` output and the jobcomp/filetxt log.

sacct, recommended call (one row per job allocation, every user, a date range):

    sacct -a -X -P -S 2026-10-01 -E 2026-11-01 --state=<SACCT_STATES> --format=<SACCT_FORMAT>

The first line must be sacct's header (do not pass -n), so any field order or subset
works; without a header the columns are taken to be SACCT_FORMAT's. Rows of job steps
(`123.batch`, `123.0`, `123_4.extern`) are skipped: the allocation row holds the job.
Array tasks keep their `123_4` id (array_id "123").

What these sources cannot tell, and what the importer does (see also docs/whatif.md):
- a job cancelled while queued never ran: it is imported (state CANCELLED, no start) and
  left out of the replay, counted; whether the new policy would have started it is unknowable;
- a requeued job: sacct shows only its last run unless -D is given, jobcomp logs every run;
  the importer keeps the last record of each job id and counts the earlier ones dropped, so
  the machine time of an interrupted run is not replayed;
- dependencies and begin times: only their effect is recorded (Eligible later than Submit);
  the replay uses the eligible time as the arrival, so no job starts before it could have;
- `--constraint` with alternatives (`a|b`, `[a*2&b]`) is not kept (counted); plain `a&b` is;
- Partition_Limit / UNLIMITED time limits are unknown: the runtime becomes the limit.

Users choose their job names, and sacct escapes nothing: lines are split on `\\n` only (not
on the other line ends str.splitlines knows, U+2028, \\x0c, \\x1c, \\x85...), and a `|` inside a
job name or constraint is read as sacct_rows.split_row says (one reading that fits every
other column, else the row is skipped with file:line). A newline inside a job name cannot
be told from a truncated line: the fragments are skipped (short rows), and a fragment that
is a whole row is read as one; `sacct --json` output has no such ambiguity.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...adapters.slurm.records import JOB_KEYS, RecordError, parse_line
from ...adapters.slurm.values import mem_mb, time_limit_seconds
from .sacct_rows import split_row, step_id
from .timefmt import bounded_seconds, slurm_time
from .workload import LineWarnings, Workload, WorkloadJob, ascii_field, log_lines, whole

SACCT_FIELDS = ("JobID", "JobIDRaw", "JobName", "User", "Group", "Account", "Partition", "QOS",
                "Submit", "Eligible", "Start", "End", "Timelimit", "NNodes", "NCPUS", "ReqMem",
                "ReqTRES", "AllocTRES", "NodeList", "State", "ExitCode", "Constraints")
SACCT_FORMAT = ",".join(SACCT_FIELDS)
"""--format for sacct (Slurm 22.05 has every one; `Dependency` is not an sacct field before
23.x and is read when present)."""

SACCT_STATES = "BF,CA,CD,DL,F,NF,OOM,PD,PR,R,RQ,RV,S,TO"
"""--state for sacct: with -S/-E and no --state, sacct lists only jobs that were eligible or
ran in the window, so a job cancelled while held never appears; with every state it does."""

_FEATURE = re.compile(r"^[A-Za-z0-9_.-]+$")
_STEP = re.compile(r"^\d+(?:_\d+)?(?:\+\d+)?\.")
_ARRAY = re.compile(r"^(\d+)_(\d+|\[.*\])$")
_NOT_STARTED_NODES = frozenset({"None assigned", "(null)", ""})


def _tres(text: str) -> dict[str, str]:
    """`billing=2,cpu=2,mem=200M,node=1,gres/gpu=1` -> {key: value}."""
    out: dict[str, str] = {}
    for item in text.split(","):
        key, eq, value = item.partition("=")
        if eq:
            out[key.strip()] = value.strip()
    return out


def _gres(tres: dict[str, str]) -> tuple[tuple[str, int], ...]:
    """gres/NAME counts; a typed `gres/gpu:a100` adds to `gpu` only when no untyped count exists."""
    plain: dict[str, int] = {}
    typed: dict[str, int] = {}
    for key, value in tres.items():
        if not key.startswith("gres/"):
            continue
        name, colon, _type = key[5:].partition(":")
        n = whole(value, f"gres {name}")
        (typed if colon else plain)[name] = (typed if colon else plain).get(name, 0) + n
    for name, n in typed.items():
        plain.setdefault(name, n)
    return tuple(sorted((k, v) for k, v in plain.items() if v))


def _features(text: str, workload: Workload) -> tuple[str, ...]:
    t = text.strip()
    if t in ("", "(null)"):
        return ()
    names = t.split("&")
    if all(_FEATURE.match(n) for n in names):
        return tuple(sorted(set(names)))
    workload.count("constraint with alternatives not kept")
    return ()


def _memory(req_mem: str, tres: dict[str, str], procs: int, nodes: int) -> int:
    """Requested memory of the whole job in MB: ReqTRES mem=, else ReqMem (`4000Mc` per cpu,
    `4000Mn` per node, as before Slurm 21.08; no suffix: the job's)."""
    if "mem" in tres:
        return mem_mb(tres["mem"]) or 0
    t = req_mem.strip()
    if not t or t in ("0", "0n", "0c"):
        return 0
    scale = 1
    if t[-1] in "cn":
        scale = procs if t[-1] == "c" else max(nodes, 1)
        t = t[:-1]
    return (mem_mb(t) or 0) * scale


def _state(text: str) -> str:
    return text.strip().split(" ")[0].upper()


def _sacct_job(row: dict[str, str], workload: Workload) -> WorkloadJob:
    jid = row["JobID"].strip()
    req = _tres(row.get("ReqTRES", ""))
    alloc = _tres(row.get("AllocTRES", ""))
    procs = whole(row.get("NCPUS", "").strip() or alloc.get("cpu") or req.get("cpu") or 0, "NCPUS")
    nodes = whole(row.get("NNodes", "").strip() or alloc.get("node") or req.get("node") or 0, "NNodes")
    for key in ("ReqMem", "Timelimit", "ReqTRES", "AllocTRES"):
        ascii_field(row.get(key, ""), key)
    submit = slurm_time(row["Submit"])
    if submit is None:
        raise ValueError("no Submit time")
    start, end = slurm_time(row.get("Start", "")), slurm_time(row.get("End", ""))
    if row.get("NodeList", "x").strip() in _NOT_STARTED_NODES:
        start = end = None
    state = _state(row.get("State", ""))
    if state == "PENDING":
        start = end = None
    limit = time_limit_seconds(row.get("Timelimit", "")) if row.get("Timelimit", "").strip() else None
    m = _ARRAY.match(jid)
    return WorkloadJob(
        id=jid, user=row.get("User", "").strip(), submit=submit, start=start, end=end,
        wallclock=bounded_seconds(limit, "Timelimit"), procs=procs, nodes=nodes,
        mem_mb=_memory(row.get("ReqMem", ""), req, procs, nodes),
        group=row.get("Group", "").strip(), account=row.get("Account", "").strip(),
        class_=row.get("Partition", "").strip(), qos=row.get("QOS", "").strip(),
        gres=_gres(req or alloc), features=_features(row.get("Constraints", ""), workload),
        eligible=slurm_time(row.get("Eligible", "")), state=state,
        exit_code=row.get("ExitCode", "").strip(), dependency=row.get("Dependency", "").strip(),
        array_id=m.group(1) if m else "", name=row.get("JobName", "").strip())


def _keep_last(jobs: list[WorkloadJob], workload: Workload, why: str) -> list[WorkloadJob]:
    """One job per id, the last record (a requeued job's final run), in first-seen order."""
    last: dict[str, WorkloadJob] = {}
    for j in jobs:
        if j.id in last:
            workload.count(why)
        last[j.id] = j
    return list(last.values())


def parse_sacct(text: str, name: str = "<sacct>") -> Workload:
    """A Workload from `sacct -P` output (see the module docstring)."""
    workload = Workload([], name)
    bad = LineWarnings(name, "sacct")
    lines = log_lines(text)
    fields = list(SACCT_FIELDS)
    first = next((k for k, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].split("|")[0].strip() == "JobID":
        fields = [f.strip() for f in lines[first].split("|")]
        lines[first] = ""
    if "JobID" not in fields or "Submit" not in fields:
        raise ValueError(f"{name}: the sacct header has no JobID or Submit column")
    jobs = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        cols, why = split_row(fields, line)
        jid = cols[fields.index("JobID")] if cols else step_id(fields, line)
        if _STEP.match(jid.strip()):
            workload.count("job step row (the allocation row holds the job)")
            continue
        if cols is None:
            bad.skip(lineno, why)
            continue
        row = dict(zip(fields, cols))
        try:
            jobs.append(_sacct_job(row, workload))
        except (ValueError, KeyError) as e:
            bad.skip(lineno, str(e)[:120])
    bad.finish(workload)
    workload.jobs = _keep_last(jobs, workload, "earlier record of a requeued job (sacct -D)")
    return workload


JOBCOMP_KEYS = JOB_KEYS | frozenset("""JobId UserId GroupId Name JobState Partition TimeLimit
StartTime EndTime NodeList NodeCnt ProcCnt WorkDir ReservationName Tres Account QOS WcKey
Cluster SubmitTime EligibleTime ArrayJobId ArrayTaskId DerivedExitCode ExitCode""".split())
_CRED = re.compile(r"^(.*?)\(\d+\)$")


def _cred(text: str) -> str:
    m = _CRED.match(text.strip())
    return (m.group(1) if m else text).strip()


def _jobcomp_job(rec: dict[str, str], workload: Workload) -> WorkloadJob:
    jid = rec["JobId"].strip()
    array, task = rec.get("ArrayJobId", "").strip(), rec.get("ArrayTaskId", "").strip()
    if array and task and task.isdigit() and array != "0":
        jid = f"{array}_{task}"
    tres = _tres(rec.get("Tres", ""))
    procs = whole(rec.get("ProcCnt", "").strip() or tres.get("cpu") or 0, "ProcCnt")
    nodes = whole(rec.get("NodeCnt", "").strip() or tres.get("node") or 0, "NodeCnt")
    for key in ("TimeLimit", "Tres"):
        ascii_field(rec.get(key, ""), key)
    submit = slurm_time(rec.get("SubmitTime", "")) or slurm_time(rec.get("EligibleTime", ""))
    if submit is None:
        raise ValueError("no SubmitTime")
    start, end = slurm_time(rec.get("StartTime", "")), slurm_time(rec.get("EndTime", ""))
    if rec.get("NodeList", "").strip() in _NOT_STARTED_NODES:
        start = end = None
    limit = rec.get("TimeLimit", "").strip()
    return WorkloadJob(
        id=jid, user=_cred(rec.get("UserId", "")), submit=submit, start=start, end=end,
        wallclock=bounded_seconds(time_limit_seconds(limit) if limit else None, "TimeLimit"),
        procs=procs, nodes=nodes, mem_mb=mem_mb(tres["mem"]) or 0 if "mem" in tres else 0,
        group=_cred(rec.get("GroupId", "")), account=rec.get("Account", "").strip(),
        class_=rec.get("Partition", "").strip(), qos=rec.get("QOS", "").strip(),
        gres=_gres(tres), eligible=slurm_time(rec.get("EligibleTime", "")),
        state=_state(rec.get("JobState", "")), exit_code=rec.get("ExitCode", "").strip(),
        array_id=array if task.isdigit() and array not in ("", "0") else "",
        name=rec.get("JobName", "").strip())


def parse_jobcomp(text: str, name: str = "<jobcomp>") -> Workload:
    """A Workload from a jobcomp/filetxt log (JobCompLoc): one `Key=Value ...` line per job end."""
    workload = Workload([], name)
    bad = LineWarnings(name, "jobcomp")
    jobs = []
    for lineno, line in enumerate(log_lines(text), 1):
        if not line.strip():
            continue
        try:
            # jobcomp calls the job name `Name`; as `JobName` it is free text to parse_line
            rec = parse_line(line.strip().replace(" Name=", " JobName=", 1), JOBCOMP_KEYS)
            if "JobId" not in rec:
                raise ValueError("no JobId")
            jobs.append(_jobcomp_job(rec, workload))
        except (RecordError, ValueError, KeyError) as e:
            bad.skip(lineno, str(e)[:120])
    bad.finish(workload)
    workload.jobs = _keep_last(jobs, workload, "earlier run of a requeued job")
    return workload


def read_sacct(path: str | Path) -> Workload:
    return parse_sacct(Path(path).read_text(errors="replace"), str(path))


def read_jobcomp(path: str | Path) -> Workload:
    return parse_jobcomp(Path(path).read_text(errors="replace"), str(path))
