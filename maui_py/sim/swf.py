"""Standard Workload Format (SWF) traces: read, write, clean, and turn into simulator jobs.

SWF (Parallel Workloads Archive, Feitelson et al., JPDC 2014) has one job per line, 18
whitespace-separated numbers, -1 for unknown; lines starting with `;` are comments, and
`; Key: value` comments form the header (MaxProcs, UnixStartTime, Acknowledge...).
The cleaning is the archive's usual one (see ../shared/traces/README.md) so that results
compare with the literature.
"""

from __future__ import annotations

import gzip
import io
import math
import os
import re
import warnings
import zlib
from dataclasses import dataclass, field, replace
from operator import attrgetter
from pathlib import Path
from typing import IO, Iterable, Mapping, Union

from maui_py.core import gcpause
from maui_py.model import Job, JobRequest, Resources

from .outfile import replacing

PathOrFile = Union[str, "os.PathLike[str]", IO[str], IO[bytes]]

_GZIP_MAGIC = b"\x1f\x8b"
_FIELD_RE = re.compile(r"^;\s*([A-Z][A-Za-z0-9_]*)\s*:\s*(.*?)\s*$")
_LEADING_INT_RE = re.compile(r"^\s*(-?[0-9]{1,18})(?![0-9])")  # ASCII, bounded: no 5000-digit int()
_MAX_LINE_WARNINGS = 20


class SwfFormatWarning(UserWarning):
    """A line of an SWF file was skipped."""


class SwfError(ValueError):
    """A trace that cannot be read at all (corrupt or truncated gzip data): one line naming the
    file and what is wrong. A ValueError, so callers that report bad input already catch it."""


@dataclass(frozen=True, slots=True)
class SwfRecord:
    """One job line; field order and meaning as in the SWF definition, -1 = unknown.

    Times are seconds (submit relative to the header's UnixStartTime), memory is KB per
    processor; avg_cpu and used_mem are averages and may be fractional.
    """

    job_id: int
    submit: int
    wait: int
    runtime: int
    alloc_procs: int
    avg_cpu: float
    used_mem: float
    req_procs: int
    req_time: int
    req_mem: int
    status: int
    user: int
    group: int
    executable: int
    queue: int
    partition: int
    preceding_job: int
    think_time: int

    @property
    def procs(self) -> int:
        """Processors by the usual rule: allocated when known, else requested."""
        return self.alloc_procs if self.alloc_procs > 0 else self.req_procs


_FIELDS = SwfRecord.__slots__
_FLOAT_FIELDS = frozenset({5, 6})


def _compile_builder():
    """A function tokens -> SwfRecord, about 3x faster than the dataclass __init__.

    It fills the slots of a mutable twin class with the same slot layout, then switches
    the instance's class to SwfRecord (CPython allows this between layout-compatible
    classes). Raises ValueError on a non-numeric or non-finite token.
    """
    twin = type("_SwfRecordTwin", (), {"__slots__": _FIELDS})
    lines = ["def build(t, _new=object.__new__, _twin=_twin, _cls=_cls,"
             " _set=object.__setattr__, int=int, float=float):",
             f" {', '.join(_FIELDS)} = t", " o = _new(_twin)"]
    for k, name in enumerate(_FIELDS):
        if k in _FLOAT_FIELDS:
            lines += [f" v = float({name})",
                      " if v - v != 0.0: raise ValueError('not finite')",
                      f" o.{name} = v"]
        else:
            lines.append(f" o.{name} = int({name})")
    lines += [" _set(o, '__class__', _cls)", " return o"]
    namespace = {"_twin": twin, "_cls": SwfRecord}
    exec("\n".join(lines), namespace)  # noqa: S102 - generated from the field list only
    return namespace["build"]


_build_record = _compile_builder()


def _lenient_record(tokens: list[str]) -> SwfRecord | None:
    """Parse tokens allowing fractional values in integer fields (rounded); None if bad."""
    values: list[int | float] = []
    for k, tok in enumerate(tokens):
        try:
            num = float(tok)
        except ValueError:
            return None
        if not math.isfinite(num):
            return None
        values.append(num if k in _FLOAT_FIELDS else round(num))
    return SwfRecord(*values)


@dataclass(frozen=True, slots=True)
class SwfHeader:
    """The comment lines of a trace, with the `; Key: value` pairs parsed out.

    comments: every comment line as read (with its `;`), so a report can quote the site's
    acknowledgement and write_swf can reproduce the header. fields: key -> value; a key
    that occurs several times (Note, Queue, Partition) has its values joined by newlines.
    malformed: how many job lines read_swf skipped.
    """

    comments: tuple[str, ...] = ()
    malformed: int = 0
    source: str = ""
    fields: dict[str, str] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        parsed: dict[str, str] = {}
        for line in self.comments:
            m = _FIELD_RE.match(line.lstrip())
            if m:
                key, value = m.groups()
                parsed[key] = f"{parsed[key]}\n{value}" if key in parsed else value
        object.__setattr__(self, "fields", parsed)

    @classmethod
    def build(cls, pairs: Mapping[str, object] | Iterable[tuple[str, object]],
              source: str = "") -> "SwfHeader":
        """A header made of `; Key: value` lines, in the order given; a multi-line value
        becomes one line per part (read back joined by newlines, like a repeated key)."""
        items = pairs.items() if isinstance(pairs, Mapping) else pairs
        return cls(tuple(f"; {k}: {part}" for k, v in items
                         for part in str(v).splitlines() or [""]), source=source)

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.fields.get(key, default)

    def _int(self, key: str) -> int | None:
        m = _LEADING_INT_RE.match(self.fields.get(key, ""))
        return int(m.group(1)) if m else None

    @property
    def max_nodes(self) -> int | None:
        return self._int("MaxNodes")

    @property
    def max_procs(self) -> int | None:
        return self._int("MaxProcs")

    @property
    def unix_start_time(self) -> int | None:
        return self._int("UnixStartTime")

    @property
    def time_zone(self) -> str | None:
        """TimeZoneString: the site's IANA zone name (Europe/Stockholm), None if absent."""
        name = self.fields.get("TimeZoneString", "").split("\n")[0].strip()
        return name or None

    @property
    def time_zone_offset(self) -> int | None:
        """TimeZone: the deprecated offset from UTC in seconds, None if absent."""
        return self._int("TimeZone")

    @property
    def computer(self) -> str:
        """Installation and Computer, for a report's title ("" if absent)."""
        parts = [self.fields.get(k, "").split("\n")[0].strip() for k in ("Installation", "Computer")]
        return ", ".join(p for p in parts if p)


def _read_text(src: PathOrFile) -> tuple[str, str]:
    """(text, name) of a path or file object, gunzipped when it starts with the gzip magic."""
    if isinstance(src, (str, os.PathLike)):
        name = os.fspath(src)
        data: bytes | str = Path(name).read_bytes()
    else:
        name = str(getattr(src, "name", "<stream>"))
        data = src.read()
    if isinstance(data, str):
        return data, name
    if data[:2] == _GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except EOFError:
            raise SwfError(f"{name}: truncated gzip data (the file ends before its gzip stream does)") from None
        except (OSError, zlib.error) as e:      # BadGzipFile is an OSError
            raise SwfError(f"{name}: corrupt gzip data ({e})") from None
    return data.decode("utf-8", errors="replace"), name


def read_swf(src: PathOrFile) -> tuple[SwfHeader, list[SwfRecord]]:
    """Read an SWF trace (plain or gzip, detected by magic bytes), records in file order.

    A line that is neither a comment, blank, nor 18 numbers is skipped with a
    SwfFormatWarning naming the file and line (the first 20, then a count), and counted in
    header.malformed. O(lines).
    """
    text, name = _read_text(src)
    records: list[SwfRecord] = []
    comments: list[str] = []
    bad: list[tuple[int, int]] = []
    append, build = records.append, _build_record
    with gcpause.paused():   # many objects that stay alive
        for lineno, line in enumerate(text.splitlines(), 1):
            tokens = line.split()
            if len(tokens) == 18:
                try:
                    append(build(tokens))
                    continue
                except ValueError:
                    pass
            if not tokens:
                continue
            if tokens[0].startswith(";"):
                comments.append(line)
                continue
            record = _lenient_record(tokens) if len(tokens) == 18 else None
            if record is None:
                bad.append((lineno, len(tokens)))
            else:
                append(record)
    _warn_malformed(name, bad)
    return SwfHeader(tuple(comments), malformed=len(bad), source=name), records


def _warn_malformed(name: str, bad: list[tuple[int, int]]) -> None:
    for lineno, got in bad[:_MAX_LINE_WARNINGS]:
        warnings.warn(f"{name}:{lineno}: skipped malformed SWF line "
                      f"({got} fields; expected 18 finite numbers)",
                      SwfFormatWarning, stacklevel=3)
    if len(bad) > _MAX_LINE_WARNINGS:
        warnings.warn(f"{name}: {len(bad) - _MAX_LINE_WARNINGS} more malformed SWF lines "
                      f"skipped ({len(bad)} in all)", SwfFormatWarning, stacklevel=3)


def _fmt(value: int | float) -> str:
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def format_record(record: SwfRecord) -> str:
    """One SWF line, without the newline."""
    return " ".join(_fmt(getattr(record, name)) for name in _FIELDS)


def write_swf(records: Iterable[SwfRecord], dest: PathOrFile,
              header: SwfHeader | None = None) -> None:
    """Write header comments then one line per record; gzip when dest is a path ending .gz.

    Floats are written exactly (repr), so read_swf gives back equal records. O(records).
    """
    lines = list(header.comments) if header is not None else []
    lines += map(format_record, records)
    payload = "\n".join(lines) + "\n" if lines else ""
    if not isinstance(dest, (str, os.PathLike)):
        dest.write(payload if isinstance(dest, io.TextIOBase) else payload.encode())
        return
    path = Path(dest)
    with replacing(path, "wb") as fh:       # never through a planted link
        if path.suffix == ".gz":
            with gzip.GzipFile(path.name, "wb", fileobj=fh, mtime=0) as out:
                out.write(payload.encode())
        else:
            fh.write(payload.encode())


@dataclass(frozen=True, slots=True)
class CleaningReport:
    """What clean() did: every input record is kept or counted in exactly one drop reason."""

    machine_procs: int
    total: int
    kept: int
    no_procs: int = 0
    too_wide: int = 0
    no_runtime: int = 0
    no_estimate: int = 0
    clipped: int = 0
    estimate_from_runtime: int = 0

    @property
    def dropped(self) -> int:
        return self.no_procs + self.too_wide + self.no_runtime + self.no_estimate

    def summary(self) -> str:
        text = (f"{self.total} jobs, {self.kept} kept, {self.dropped} dropped "
                f"(no processors {self.no_procs}, wider than {self.machine_procs} procs "
                f"{self.too_wide}, no runtime {self.no_runtime}, no requested time "
                f"{self.no_estimate}); runtime clipped to the requested time: {self.clipped}")
        if self.estimate_from_runtime:
            text += f"; requested time set to the runtime: {self.estimate_from_runtime}"
        return text


ESTIMATE_RULES = ("requested", "max")
PROCESSOR_RULES = ("allocated", "requested")


def clean(records: Iterable[SwfRecord], machine_procs: int, *,
          keep_no_estimate: bool = False, estimates: str = "requested",
          processors: str = "allocated") -> tuple[list[SwfRecord], CleaningReport]:
    """The usual cleaning; kept records sorted by (submit, job_id).

    processors = allocated if > 0 else requested (written back into alloc_procs); drop
    processors <= 0 or > machine_procs, runtime <= 0, requested time <= 0 (the first
    reason that applies is counted); runtime = min(runtime, requested time).
    estimates: what a job that ran past its requested time gets as its estimate (req_time):
    "requested" keeps the requested time (../shared/traces/README.md); "max" raises it to
    the runtime the log recorded, as the simulator behind the published EASY figures
    (pyss, Gaussier et al. SC'15) does: with it the replays match those figures
    (docs/simulator.md). The job still runs only its requested time.
    processors: "allocated" (the usual rule above) or "requested": the requested processors
    when > 0, else the allocated ones, as the simulator behind the published EASY, SJBF and
    EASY++ figures read its traces (Gaussier et al. SC'15; docs/simulator.md).
    keep_no_estimate: keep jobs without a requested time and use their runtime as the
    estimate (for synthetic logs that have none, e.g. lublin_256). O(n log n).
    """
    if estimates not in ESTIMATE_RULES:
        raise ValueError(f"estimates must be one of {', '.join(ESTIMATE_RULES)}")
    if processors not in PROCESSOR_RULES:
        raise ValueError(f"processors must be one of {', '.join(PROCESSOR_RULES)}")
    requested_first = processors == "requested"
    kept: list[SwfRecord] = []
    counts = dict.fromkeys(("no_procs", "too_wide", "no_runtime", "no_estimate", "clipped",
                            "estimate_from_runtime"), 0)
    total = 0
    with gcpause.paused():   # many objects that stay alive
        for r in records:
            total += 1
            if requested_first and r.req_procs > 0:
                procs = r.req_procs
            else:
                procs = r.alloc_procs if r.alloc_procs > 0 else r.req_procs
            req_time = r.req_time
            if procs <= 0:
                counts["no_procs"] += 1
            elif procs > machine_procs:
                counts["too_wide"] += 1
            elif r.runtime <= 0:
                counts["no_runtime"] += 1
            elif req_time <= 0 and not keep_no_estimate:
                counts["no_estimate"] += 1
            else:
                if req_time <= 0:
                    counts["estimate_from_runtime"] += 1
                    req_time = r.runtime
                elif r.runtime > req_time:
                    counts["clipped"] += 1
                run = min(r.runtime, req_time)
                if estimates == "max":
                    req_time = max(req_time, r.runtime)
                if procs != r.alloc_procs or req_time != r.req_time or run != r.runtime:
                    r = replace(r, alloc_procs=procs, req_time=req_time, runtime=run)
                kept.append(r)
        kept.sort(key=attrgetter("submit", "job_id"))
    return kept, CleaningReport(machine_procs, total, len(kept), **counts)


@dataclass(frozen=True, slots=True)
class SimJob:
    """A job to submit in a simulation and how long it really runs (seconds)."""

    job: Job
    runtime: int


def to_sim_jobs(records: Iterable[SwfRecord], procs_per_node: int = 1) -> list[SimJob]:
    """Simulator jobs from (cleaned) records, in the given order. O(n); jobs of the same
    size and memory share one (immutable) JobRequest.

    Each job asks for `processors` tasks of one processor (and the requested memory per
    processor, KB rounded up to MB), no node count: the scheduler packs the tasks, so
    procs_per_node (validated, >= 1) does not change the request. wallclock is the
    requested time. Raises ValueError for a record clean() would have dropped.
    """
    if procs_per_node < 1:
        raise ValueError(f"procs_per_node must be >= 1, not {procs_per_node}")
    requests: dict[tuple[int, int], JobRequest] = {}
    out = []
    with gcpause.paused():   # many objects that stay alive
        for r in records:
            procs = r.procs
            if procs <= 0 or r.req_time <= 0 or r.runtime < 0:
                raise ValueError(f"SWF job {r.job_id} is not runnable (processors {procs}, "
                                 f"requested time {r.req_time}, runtime {r.runtime}); "
                                 "clean() first")
            mem = -(-r.req_mem // 1024) if r.req_mem > 0 else 0
            request = requests.get((procs, mem))
            if request is None:
                request = requests[procs, mem] = JobRequest(
                    tasks=procs, per_task=Resources(procs=1, mem=mem))
            job = Job(id=str(r.job_id), user=f"user{r.user}", group=f"group{r.group}",
                      class_=f"queue{r.queue}" if r.queue >= 0 else "", qos="",
                      request=request, wallclock=r.req_time, submit_time=r.submit)
            out.append(SimJob(job, r.runtime))
    return out
