"""Standard Workload Format (SWF) traces: read, write, clean, and turn into simulator jobs.

SWF (Parallel Workloads Archive, Feitelson et al., JPDC 2014) has one job per line, 18
whitespace-separated numbers, -1 for unknown; lines starting with `;` are comments, and
`; Key: value` comments form the header (MaxProcs, UnixStartTime, Acknowledge...).
The cleaning is the archive's usual one (see ../shared/traces/README.md) so that results
compare with the literature.
"""

from __future__ import annotations

import gzip
from array import array
import io
import math
import os
import re
import warnings
import zlib
from dataclasses import dataclass, field, replace
from operator import attrgetter
from pathlib import Path
from typing import IO, Iterable, Mapping, Sequence, Union

from maui_py.core import gcpause
from maui_py.model import Job, JobRequest, Resources

from .outfile import replacing

PathOrFile = Union[str, "os.PathLike[str]", IO[str], IO[bytes]]

_GZIP_MAGIC = b"\x1f\x8b"
HEADER_BOUNDS = {"MaxProcs": (1, 10_000_000), "MaxNodes": (1, 10_000_000),
                 "UnixStartTime": (0, 4_102_444_800), "TimeZone": (-86_400, 86_400)}
"""Header numbers out of these bounds are ignored with a warning."""
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
MAX_NUMBER = 10 ** 13
BOUNDS = {name: MAX_NUMBER for k, name in enumerate(SwfRecord.__slots__) if k not in (5, 6)}
"""Magnitude bound of an SWF record's integer fields when read: a number past 10^13 (300,000
years in seconds, more processors than exist) is damage, and its record is skipped with
file:line (a submit time of 10^15 s would be day 11574074075 of a replay)."""
MAX_SECONDS = 100 * 366 * 86400
"""A replay's bound on times (submit, runtime, requested time): clean() drops a job past it."""


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
    lines.append(" if not (" + " and ".join(f"{-b} <= o.{name} <= {b}" for name, b in BOUNDS.items())
                 + "): raise ValueError('out of range')")
    lines += [" _set(o, '__class__', _cls)", " return o"]
    namespace = {"_twin": twin, "_cls": SwfRecord}
    exec("\n".join(lines), namespace)  # noqa: S102 - generated from the field list only
    return namespace["build"]


_build_record = _compile_builder()


def _lenient_record(tokens: list[str]) -> tuple[SwfRecord | None, str]:
    """Parse tokens allowing fractional values in integer fields (rounded): (record, "") or
    (None, why). ASCII numbers only (float() also reads `３００`, `٣` and `1_0`), bounded."""
    values: list[int | float] = []
    for k, tok in enumerate(tokens):
        name = _FIELDS[k]
        if not tok.isascii() or "_" in tok:
            return None, f"{name} {tok[:20]!r} is not an ASCII number"
        try:
            num = float(tok)
        except ValueError:
            return None, f"{name} {tok[:20]!r} is not a number"
        if not math.isfinite(num):
            return None, f"{name} {tok[:20]!r} is not finite"
        if name in BOUNDS and abs(num) > BOUNDS[name]:
            return None, f"{name} {tok[:20]} out of range (at most {BOUNDS[name]:,} in size)"
        values.append(num if k in _FLOAT_FIELDS else round(num))
    return SwfRecord(*values), ""


@dataclass(frozen=True, slots=True)
class SwfHeader:
    """The comment lines of a trace, with the `; Key: value` pairs parsed out.

    comments: every comment line as read (with its `;`), so a report can quote the site's
    acknowledgement and write_swf can reproduce the header. fields: key -> value; a key
    that occurs several times (Note, Queue, Partition) has its values joined by newlines.
    malformed: how many job lines read_swf skipped; duplicates: how many job lines repeat an
    earlier line's job id (unique_ids renumbers them). A MaxProcs, MaxNodes or UnixStartTime out of
    HEADER_BOUNDS reads as absent (MaxProcs: -5 would otherwise drop every job as too wide).
    """

    comments: tuple[str, ...] = ()
    malformed: int = 0
    source: str = ""
    duplicates: int = 0
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

    def raw_int(self, key: str) -> int | None:
        """The leading integer of a field as written (ASCII digits), None if absent."""
        m = _LEADING_INT_RE.match(self.fields.get(key, ""))
        return int(m.group(1)) if m else None

    def _int(self, key: str) -> int | None:
        """raw_int, None when out of HEADER_BOUNDS (read_swf warns about it)."""
        value = self.raw_int(key)
        low, high = HEADER_BOUNDS.get(key, (-MAX_NUMBER, MAX_NUMBER))
        return value if value is not None and low <= value <= high else None

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

    A line that is neither a comment, blank, nor 18 ASCII numbers within BOUNDS is skipped
    with a SwfFormatWarning naming the file, the line and why (the first 20, then a count),
    and counted in header.malformed. Lines end at "\\n" only. A job id an earlier line
    already used is warned about (file:line) and counted in header.duplicates; the records
    are returned as written, and unique_ids() renumbers them for a replay. A header
    MaxProcs, MaxNodes or UnixStartTime out of range is warned about and ignored. O(lines).
    """
    text, name = _read_text(src)
    records: list[SwfRecord] = []
    comments: list[str] = []
    comment_lines: list[int] = []
    bad: list[tuple[int, str]] = []
    lines = array("L")          # the line of each record: 8 bytes a job, for the warnings
    append, build, add_line = records.append, _build_record, lines.append
    with gcpause.paused():   # many objects that stay alive
        for lineno, line in enumerate(text.split("\n"), 1):
            tokens = line.split()
            if len(tokens) == 18 and line.isascii() and "_" not in line:
                try:
                    append(build(tokens))
                    add_line(lineno)
                    continue
                except ValueError:
                    pass
            if not tokens:
                continue
            if tokens[0].startswith(";"):
                comments.append(line)
                comment_lines.append(lineno)
                continue
            if len(tokens) != 18:
                bad.append((lineno, f"{len(tokens)} fields; expected 18 numbers"))
                continue
            record, why = _lenient_record(tokens)
            if record is None:
                bad.append((lineno, why))
            else:
                append(record)
                add_line(lineno)
    _warn_malformed(name, bad)
    duplicates = _warn_duplicates(records, lines, name)
    header = SwfHeader(tuple(comments), malformed=len(bad), source=name, duplicates=duplicates)
    _warn_header(header, name, comment_lines)
    return header, records


def _duplicates(records: Sequence[SwfRecord]) -> list[tuple[int, int]]:
    """(index, new id) of each record whose job id an earlier record has: new ids run past
    the largest id, in file order. O(n) while ids increase (the usual order)."""
    top, seen, dups = -1, None, []
    for k, r in enumerate(records):
        jid = r.job_id
        if seen is None and jid > top:
            top = jid
            continue
        if seen is None:
            seen = {x.job_id for x in records[:k]}
        if jid in seen:
            dups.append(k)
        else:
            seen.add(jid)
            top = max(top, jid)
    return [(k, top + 1 + n) for n, k in enumerate(dups)]


def unique_ids(records: list[SwfRecord]) -> list[SwfRecord]:
    """The records with each repeated job id renumbered (see _duplicates; read_swf warned
    about each with its line). Two jobs with one id would be one job to a replay: the later
    never ends, its nodes look over-allocated, its reports count it once. A new list only
    when something changed."""
    dups = _duplicates(records)
    if not dups:
        return records
    out = list(records)
    for k, new_id in dups:
        out[k] = replace(out[k], job_id=new_id)
    return out


def _warn_duplicates(records: Sequence[SwfRecord], lines: Sequence[int], name: str) -> int:
    dups = _duplicates(records)
    for k, new_id in dups[:_MAX_LINE_WARNINGS]:
        warnings.warn(f"{name}:{lines[k]}: job id {records[k].job_id} is used by an earlier line: "
                      f"replayed as job {new_id}", SwfFormatWarning, stacklevel=3)
    if len(dups) > _MAX_LINE_WARNINGS:
        warnings.warn(f"{name}: {len(dups) - _MAX_LINE_WARNINGS} more repeated job ids "
                      f"({len(dups)} in all), each replayed under a new id", SwfFormatWarning,
                      stacklevel=3)
    return len(dups)


def _warn_header(header: SwfHeader, name: str, comment_lines: list[int]) -> None:
    """One warning per header number out of range (SwfHeader ignores them)."""
    for key, (low, high) in HEADER_BOUNDS.items():
        value = header.raw_int(key)
        if value is None or low <= value <= high:
            continue
        lineno = next((n for line, n in zip(header.comments, comment_lines)
                       if (m := _FIELD_RE.match(line.lstrip())) and m.group(1) == key), 0)
        warnings.warn(f"{name}:{lineno}: header {key}: {value} is out of range "
                      f"[{low}, {high}]: ignored", SwfFormatWarning, stacklevel=3)


def _warn_malformed(name: str, bad: list[tuple[int, str]]) -> None:
    for lineno, why in bad[:_MAX_LINE_WARNINGS]:
        warnings.warn(f"{name}:{lineno}: skipped malformed SWF line ({why})",
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
    out_of_range: int = 0

    @property
    def dropped(self) -> int:
        return self.no_procs + self.too_wide + self.no_runtime + self.no_estimate + self.out_of_range

    def summary(self) -> str:
        text = (f"{self.total} jobs, {self.kept} kept, {self.dropped} dropped "
                f"(no processors {self.no_procs}, wider than {self.machine_procs} procs "
                f"{self.too_wide}, no runtime {self.no_runtime}, no requested time "
                f"{self.no_estimate}); runtime clipped to the requested time: {self.clipped}")
        if self.estimate_from_runtime:
            text += f"; requested time set to the runtime: {self.estimate_from_runtime}"
        if self.out_of_range:
            text += (f"; dropped with a time past {MAX_SECONDS // (366 * 86400)} years (submit, "
                     f"runtime or requested time): {self.out_of_range}")
        return text


ESTIMATE_RULES = ("requested", "max")
PROCESSOR_RULES = ("allocated", "requested")


def clean(records: Iterable[SwfRecord], machine_procs: int, *,
          keep_no_estimate: bool = False, estimates: str = "requested",
          processors: str = "allocated") -> tuple[list[SwfRecord], CleaningReport]:
    """The usual cleaning; kept records sorted by (submit, job_id).

    processors = allocated if > 0 else requested (written back into alloc_procs); drop
    processors <= 0 or > machine_procs, runtime <= 0, requested time <= 0, or a submit,
    runtime or requested time past MAX_SECONDS (the first reason that applies is counted);
    runtime = min(runtime, requested time).
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
                            "estimate_from_runtime", "out_of_range"), 0)
    total = 0
    with gcpause.paused():   # many objects that stay alive
        for r in records:
            total += 1
            if requested_first and r.req_procs > 0:
                procs = r.req_procs
            else:
                procs = r.alloc_procs if r.alloc_procs > 0 else r.req_procs
            req_time = r.req_time
            if not (abs(r.submit) <= MAX_SECONDS and r.runtime <= MAX_SECONDS
                    and req_time <= MAX_SECONDS):
                counts["out_of_range"] += 1
            elif procs <= 0:
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
