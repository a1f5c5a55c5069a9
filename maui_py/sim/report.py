"""What a replay prints and writes: the summary table, a side-by-side comparison, the per-job
CSV, report.json and one self-contained HTML report (inline SVG plots, inline style).

Durations print as `3d 04:12:00` and instants as the trace site's dates (timefmt). One
config or several, the report has the same shape: one column per configuration, and with
several the cells that differ from the first configuration are marked better or worse.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from itertools import islice
from html import escape
from pathlib import Path
from typing import Any, Callable, Sequence

from ..model.times import duration
from . import plots, settings
from .outfile import replacing, write_text
from .forecast_report import CSV_COLUMNS as FORECAST_COLUMNS, ForecastData, csv_cells, forecast_text, with_forecast
from .engine import SimOptions, SimResult
from .metrics import Figures, Summary, binned_series, slowdown_grid, smooth, summarize, wait_cdf
from .timefmt import TraceClock, human_duration

_D = "dur"
ROWS = (
    ("jobs", "jobs", "{:d}"),
    ("finished", "finished", "{:d}"),
    ("makespan", "makespan", _D),
    ("utilization", "utilization", "{:.4f}"),
    ("wait_mean", "wait mean", _D),
    ("wait_p50", "wait p50", _D),
    ("wait_p90", "wait p90", _D),
    ("wait_p99", "wait p99", _D),
    ("wait_max", "wait max", _D),
    ("bsld_mean", "bounded slowdown (10 s)", "{:.2f}"),
    ("bsld_max", "bounded slowdown max", "{:.1f}"),
    ("backfill_share", "backfill share", "{:.3f}"),
    ("killed", "killed at wallclock", "{:d}"),
    ("predicted", "jobs with a prediction", "{:d}"),
    ("pred_mae", "prediction error mean", _D),
    ("pred_under", "under-predicted share", "{:.3f}"),
    ("pred_over", "over-predicted share", "{:.3f}"),
    ("corrections", "corrections", "{:d}"),
)
PREDICTION_KEYS = ("predicted", "pred_mae", "pred_under", "pred_over", "corrections")
"""Rows shown only when some run predicted runtimes (PREDICTIONPOLICY)."""


def shown_rows(totals: Sequence[Figures]) -> tuple:
    """ROWS without the prediction rows when no run made predictions."""
    if any(f.predicted for f in totals):
        return ROWS
    return tuple(r for r in ROWS if r[0] not in PREDICTION_KEYS)
BETTER = {"makespan": -1, "utilization": 1, "wait_mean": -1, "wait_p50": -1, "wait_p90": -1,
          "wait_p99": -1, "wait_max": -1, "bsld_mean": -1, "bsld_max": -1, "killed": -1,
          "finished": 1}
"""Which way is better for a metric (1 higher, -1 lower); the others are only marked changed."""
GROUP_KEYS = ("jobs", "wait_mean", "bsld_mean", "backfill_share")
SERIES_BINS = 150
SMOOTHING = 9
"""The plots' time series: SERIES_BINS time-weighted slices, then a centred moving average
over SMOOTHING slices (6 % of the replay), so the trend reads at a glance."""
TOP_USERS = 15
"""Users shown in the HTML table (by processor-seconds); report.json has every user."""


def cell(key: str, value: float) -> str:
    fmt = next(f for k, _l, f in ROWS if k == key)
    return human_duration(value) if fmt == _D else fmt.format(value)


def machine_procs(result: SimResult) -> int:
    return sum(n.resources.procs for n in result.nodes if n.state.usable)


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain aligned text table: first column left, the others right."""
    widths = [max(len(str(r[k])) for r in [headers, *rows]) for k in range(len(headers))]
    out = []
    for k, r in enumerate([headers, *rows]):
        out.append("  ".join(str(c).ljust(widths[0]) if i == 0 else str(c).rjust(widths[i])
                             for i, c in enumerate(r)).rstrip())
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def period_line(result: SimResult, clock: TraceClock) -> str:
    """`period: DATE to DATE (312d 04:12:00)`: first submission to last end."""
    recs = result.records.values()
    if not recs:
        return ""
    first = min(r.job.submit_time for r in recs)
    last = max([r.end for r in recs if r.end is not None], default=first)
    return f"period: {clock.date(first)} to {clock.date(last)} ({human_duration(last - first)})"


def _group_table(name: str, groups: dict[str, Figures]) -> list[str]:
    hdr = [name] + [label for k, label, _f in ROWS if k in GROUP_KEYS]
    body = [[g] + [cell(k, getattr(f, k)) for k, _l, _f in ROWS if k in GROUP_KEYS]
            for g, f in groups.items()]
    return ["", f"by {name}:", table(hdr, body)]


def summary_text(result: SimResult, summary: Summary | None = None, title: str = "",
                 clock: TraceClock | None = None) -> str:
    s = summary or summarize(result.records, machine_procs(result))
    clock = clock or TraceClock()
    lines = []
    if title:
        lines += [title, ""]
    period = period_line(result, clock)
    if period:
        lines += [period, ""]
    rows = [[label, cell(key, getattr(s.total, key))] for key, label, _f in shown_rows([s.total])]
    rows += [["cycles", str(result.cycles)],
             ["wall time", human_duration(result.wall_seconds)],
             ["schedule check", "passed" if result.check.ok else "FAILED"]]
    lines.append(table(["metric", "value"], rows))
    if not result.check.ok:
        lines += ["", "schedule violations:"] + [f"  {v}" for v in result.check.violations[:20]]
    if s.unfinished:
        lines += ["", f"{s.unfinished} job(s) never finished:"]
        held = result.state.batch_holds if result.state else {}
        stalled = result.stalled or {}
        if stalled:
            lines.append(f"  (the replay ended {duration(SimOptions.stall_limit)} after the last "
                         "start with these jobs unable to start)")
        for r in [r for r in result.records.values() if r.end is None][:10]:
            why = held.get(r.job.id) or stalled.get(r.job.id) or "still waiting at the end of the replay"
            lines.append(f"  {r.job.id}: {why}")
    for name, groups in (("class", s.by_class), ("QOS", s.by_qos), ("job size (procs)", s.by_size)):
        if groups:
            lines += _group_table(name, groups)
    return "\n".join(lines)


def compare_text(results: Sequence[tuple[str, SimResult]], clock: TraceClock | None = None,
                 sums: Sequence[Summary] | None = None) -> str:
    """One table, one column per configuration (sums: their summaries, when already made)."""
    sums = sums or [summarize(r.records, machine_procs(r)) for _n, r in results]
    rows = [[label] + [cell(key, getattr(s.total, key)) for s in sums]
            for key, label, _f in shown_rows([s.total for s in sums])]
    rows.append(["wall time"] + [human_duration(r.wall_seconds) for _n, r in results])
    rows.append(["schedule check"] + ["passed" if r.check.ok else "FAILED" for _n, r in results])
    text = table(["metric"] + [n for n, _r in results], rows)
    period = period_line(results[0][1], clock or TraceClock()) if results else ""
    return f"{period}\n\n{text}" if period else text


CSV_COLUMNS = ("id", "user", "group", "account", "queue", "submit", "start", "end", "procs",
               "estimate", "runtime", "kind", "class", "qos", "nodes", "partition")
"""jobs.csv's columns. queue is the job's class (Maui's name for a queue: a Slurm partition, a
Torque queue); `class` repeats it for readers of the files earlier versions wrote. partition:
the partition the job ran in (its class, when its nodes list it among their partitions, as a
Slurm cluster's do), else empty (nodes serving every class: an SWF trace's, a Torque queue)."""
CSV_PROGRESS_ROWS = 100_000
"""Rows between two calls of write_csv's progress callback."""

Note = Callable[[str], None]
"""A progress callback: one short line saying what is being written (the caller throttles)."""


def _in_submit_order(records: dict[str, Any]) -> list:
    """The records in (submit, id) order. A replay records jobs as they arrive, so this is
    usually their order already: checked in one pass, sorted (a key per job, ~130 MB for two
    million jobs) only when not."""
    out = list(records.values())
    if any((a.job.submit_time, a.job.id) > (b.job.submit_time, b.job.id)
           for a, b in zip(out, islice(out, 1, None))):
        out.sort(key=lambda r: (r.job.submit_time, r.job.id))
    return out


def write_csv(result: SimResult, path: Path, progress: Note | None = None,
              forecast: ForecastData | None = None) -> None:
    """One row per job (CSV_COLUMNS, and forecast_report's with a forecast), in (submit,
    id) order, written row by row to a new file that replaces `path` (outfile: a planted
    link is not followed). progress, if given, hears every CSV_PROGRESS_ROWS rows."""
    records = _in_submit_order(result.records)
    total = len(records)
    parts = {n.name: n.partitions for n in result.nodes}
    with replacing(path, newline="") as fh:
        w = csv.writer(fh)
        w.writerow(CSV_COLUMNS + (FORECAST_COLUMNS if forecast else ()))
        for k, r in enumerate(records, 1):
            job, nodes = r.job, r.nodes
            w.writerow([job.id, job.user, job.group, job.account, job.class_, job.submit_time,
                        "" if r.start is None else r.start, "" if r.end is None else r.end,
                        job.procs, job.wallclock, r.runtime, r.kind.value if r.kind else "",
                        job.class_, job.qos, " ".join(nodes),
                        job.class_ if nodes and job.class_ in parts.get(nodes[0], ()) else ""]
                       + ([] if forecast is None else csv_cells(forecast, job.id)))
            if progress is not None and k % CSV_PROGRESS_ROWS == 0:
                progress(f"writing {path.name}: {k:,} of {total:,} jobs")


# ------------------------------------------------------------------ the report's data
@dataclass
class ReportInfo:
    """What the report says about the run, beside the results. `generated` is the date the
    caller wrote it (text); configs are (name, file text) pairs, "" for the defaults."""

    workload: str = ""
    source: str = ""
    computer: str = ""
    cleaning: str = ""
    cluster: str = ""
    configs: list[tuple[str, str]] = field(default_factory=list)
    version: str = ""
    generated: str = ""
    clock: TraceClock = field(default_factory=TraceClock)
    clock_note: str = ""


def cluster_text(nodes) -> str:
    """`100 nodes x 1 proc` or `64 x (16 procs, 64000 MB) + 8 x (16 procs, gpu 4, features gpu)`."""
    groups: dict[tuple, int] = {}
    for n in nodes:
        r = n.resources
        key = (r.procs, r.mem, tuple(sorted(getattr(r, "gres", ()) or ())), tuple(sorted(n.features)))
        groups[key] = groups.get(key, 0) + 1
    parts = []
    for (procs, mem, gres, feats), count in groups.items():
        bits = [f"{procs} proc{'s' if procs != 1 else ''}"]
        if mem:
            bits.append(f"{mem} MB")
        bits += [f"{g} {c}" for g, c in gres]
        if feats:
            bits.append("features " + ",".join(feats))
        parts.append(f"{count} node{'s' if count != 1 else ''} x " + (bits[0] if len(bits) == 1 else f"({', '.join(bits)})"))
    total = sum(n.resources.procs for n in nodes)
    return " + ".join(parts) + f" ({total} procs)"


def config_settings(text: str) -> dict[str, str]:
    """PARAMETER -> value of a maui.cfg's text, for showing configurations side by side:
    comments dropped, `\\` continuations joined; a repeated object line (SRCFG[x] ...) adds
    its attributes, a repeated parameter replaces the value (the last one wins)."""
    out: dict[str, str] = {}
    pending = ""
    for raw in text.splitlines():
        line = pending + " " + raw.split("#", 1)[0].strip() if pending else raw.split("#", 1)[0].strip()
        if line.endswith("\\"):
            pending = line[:-1].strip()
            continue
        pending = ""
        if line:
            key, *rest = line.split(None, 1)
            value = " ".join(rest[0].split()) if rest else ""
            out[key] = f"{out[key]} {value}" if key in out and "[" in key else value
    return out


def report_data(results: Sequence[tuple[str, SimResult]], info: ReportInfo,
                summaries: Sequence[Summary] | None = None) -> dict[str, Any]:
    """Every number the HTML report shows, as plain data (report.json); summaries: the runs'
    summaries when already made."""
    runs = []
    for k, (name, r) in enumerate(results):
        procs = machine_procs(r)
        s = summaries[k] if summaries is not None else summarize(r.records, procs)
        t, util, queue = binned_series(r.records.values(), procs, SERIES_BINS)
        grid = slowdown_grid(r.records.values())
        runs.append({
            "config": name, "total": s.total.as_row(), "cycles": r.cycles,
            "wall_seconds": round(r.wall_seconds, 3), "check_ok": r.check.ok,
            "violations": r.check.violations[:100], "unfinished": s.unfinished,
            "by_class": {k: f.as_row() for k, f in s.by_class.items()},
            "by_qos": {k: f.as_row() for k, f in s.by_qos.items()},
            "by_size": {k: f.as_row() for k, f in s.by_size.items()},
            "by_user": {k: f.as_row() for k, f in s.by_user.items()},
            "series": {"t": t, "utilization": [round(x, 4) for x in util],
                       "queue": [round(x, 2) for x in queue],
                       "utilization_smoothed": [round(x, 4) for x in smooth(util, SMOOTHING)],
                       "queue_smoothed": [round(x, 2) for x in smooth(queue, SMOOTHING)]},
            "wait_cdf": [[w, round(f, 4)] for w, f in wait_cdf(r.records.values())],
            "slowdown_grid": {"sizes": grid.sizes, "lengths": grid.lengths,
                              "mean": [[None if v is None else round(v, 3) for v in row] for row in grid.mean],
                              "count": grid.count},
        })
    first = min((rec.job.submit_time for _n, r in results for rec in r.records.values()), default=0)
    last = max((rec.end for _n, r in results for rec in r.records.values() if rec.end is not None),
               default=first)
    return {"workload": info.workload, "source": info.source, "computer": info.computer,
            "cleaning": info.cleaning, "cluster": info.cluster, "maui_py_version": info.version,
            "generated": info.generated, "clock": info.clock.as_dict(),
            "period": {"first_submit": first, "last_end": last, "first_submit_date": info.clock.date(first),
                       "last_end_date": info.clock.date(last)},
            "configs": _configs(info.configs), "runs": runs}


def _configs(configs: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """Each configuration's name, text and effective settings (sim/settings.py): every row any
    of them sets, with its value in each (the default where a file does not set it, "set"
    lists those it does); the text's own lines if a text does not load."""
    side = settings.side_by_side([t for _n, t in configs])
    out = []
    for k, (name, text) in enumerate(configs):
        own = config_settings(text)
        out.append({"name": name, "text": text, "settings": side[k]["settings"] if side else own,
                    "set": side[k]["set"] if side else sorted(own)})
    return out


# ------------------------------------------------------------------ the HTML
CSS = """
:root { --fg:#1f2937; --muted:#6b7280; --line:#e5e7eb; --bg:#f9fafb; --accent:#2563eb;
        --good:#047857; --goodbg:#d1fae5; --bad:#b91c1c; --badbg:#fee2e2; --chg:#fef3c7; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       margin: 0; background: var(--bg); }
header { background: #111827; color: #f9fafb; padding: 20px 32px; }
header h1 { margin: 0 0 4px; font-size: 22px; font-weight: 600; }
header .sub { color: #d1d5db; }
main { max-width: 1180px; margin: 0 auto; padding: 16px 32px 48px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px 20px;
          margin: 16px 0; }
h2 { font-size: 17px; margin: 0 0 10px; }
h3 { font-size: 14px; margin: 14px 0 6px; color: var(--muted); font-weight: 600; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 4px 0 8px; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th { background: #f3f4f6; font-weight: 600; }
th:first-child, td:first-child { text-align: left; }
th.run { text-align: center; border-left: 2px solid #d1d5db; }
td.run0, th.run0 { border-left: 2px solid #d1d5db; }
td.better { background: var(--goodbg); color: var(--good); }
td.worse { background: var(--badbg); color: var(--bad); }
td.changed, tr.changed td { background: var(--chg); }
table.settings td, table.settings th { text-align: left; white-space: normal; }
td small { color: inherit; opacity: .8; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 10px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
.card .k { color: var(--muted); font-size: 12px; }
.card .v { font-size: 20px; font-weight: 600; }
.ok { color: var(--good); } .fail { color: var(--bad); font-weight: 600; }
.charts { display: grid; grid-template-columns: 1fr; gap: 8px; }
.heats { display: grid; grid-template-columns: 1fr; gap: 8px; max-width: 860px; }
svg.chart { width: 100%; height: auto; font: 12px system-ui, sans-serif; }
svg .title { font-weight: 600; font-size: 13px; fill: var(--fg); }
svg .tick, svg .legend { fill: #374151; font-size: 11px; }
svg .axis-label { fill: var(--muted); font-size: 11px; }
svg .grid { stroke: var(--line); stroke-width: 1; }
svg .plot { fill: #fff; stroke: #d1d5db; }
svg .empty { fill: #f3f4f6; }
svg .cell { font-size: 11px; fill: #111827; } svg .cell.dark { fill: #fff; }
svg .n { font-size: 9px; opacity: .75; }
.note { color: var(--muted); font-size: 12px; }
pre { background: #f3f4f6; padding: 8px; overflow-x: auto; font-size: 12px; }
details summary { cursor: pointer; color: var(--accent); }
.cols { display: grid; grid-template-columns: repeat(auto-fit, minmax(280px, 1fr)); gap: 12px; }
"""


def _mark(key: str, base: float, value: float) -> tuple[str, str]:
    """(CSS class, relative change text) of a value against the first configuration's."""
    if value == base:
        return "", ""
    change = f" <small>({(value - base) / base:+.0%})</small>" if base else ""
    way = BETTER.get(key)
    if way is None:
        return "changed", change
    return ("better" if (value - base) * way > 0 else "worse"), change


def _metric_table(rows: list[tuple[str, str, list[float], Callable[[float], str]]],
                  names: Sequence[str], first_col: str = "metric") -> str:
    """Rows of (key, label, one value per config, formatter); differences against the first
    column marked when there are several."""
    out = ["<table><tr>" + f"<th>{escape(first_col)}</th>" + "".join(f"<th>{escape(n)}</th>" for n in names) + "</tr>"]
    for key, label, values, fmt in rows:
        tds = []
        for k, v in enumerate(values):
            cls, change = _mark(key, values[0], v) if k else ("", "")
            tds.append(f'<td class="{cls}">{escape(fmt(v))}{change}</td>' if cls else f"<td>{escape(fmt(v))}</td>")
        out.append(f"<tr><td>{escape(label)}</td>{''.join(tds)}</tr>")
    out.append("</table>")
    return "\n".join(out)


def _fmt(key: str) -> Callable[[float], str]:
    return lambda v: cell(key, v)


def _groups_html(title: str, label: str, per_run: list[dict[str, dict]], names: Sequence[str],
                 limit: int | None = None, order: list[str] | None = None, min_groups: int = 2) -> str:
    """A breakdown table: per group its jobs and share of the work (the first run's: the
    same jobs in every run), then wait, slowdown and backfill share per configuration
    (marked against the first). Fewer than min_groups groups: nothing."""
    keys = order or sorted({g for groups in per_run for g in groups})
    if len(keys) < min_groups:
        return ""
    shown = keys[:limit] if limit else keys
    head = [f"<th>{escape(label)}</th>", "<th>jobs</th>", '<th title="share of the processor-seconds '
            'delivered">work</th>']
    sub = ["<th></th>", "<th></th>", "<th></th>"]
    total_work = sum(f["work"] for f in per_run[0].values()) or 1
    for n in names:
        head.append(f'<th class="run" colspan="3">{escape(n)}</th>')
        sub += ['<th class="run0">wait mean</th>', "<th>bounded slowdown</th>", "<th>backfill share</th>"]
    rows = []
    for g in shown:
        first = per_run[0].get(g)
        jobs, work = (first["jobs"], first["work"]) if first else (0, 0)
        tds = [f"<td>{escape(g)}</td>", f"<td>{jobs}</td>", f"<td>{work / total_work:.1%}</td>"]
        for k, groups in enumerate(per_run):
            f = groups.get(g)
            for i, key in enumerate(("wait_mean", "bsld_mean", "backfill_share")):
                edge = " run0" if i == 0 else ""
                if f is None:
                    tds.append(f'<td class="{edge}">-</td>')
                    continue
                cls, change = _mark(key, first[key], f[key]) if k and first else ("", "")
                tds.append(f'<td class="{cls}{edge}">{escape(cell(key, f[key]))}{change}</td>')
        rows.append("<tr>" + "".join(tds) + "</tr>")
    more = (f'<p class="note">The {len(shown)} users with the most processor-seconds of {len(keys)}; '
            "report.json has them all.</p>") if limit and len(keys) > limit else ""
    return (f"<h3>{escape(title)}</h3><table><tr>{''.join(head)}</tr><tr>{''.join(sub)}</tr>"
            + "".join(rows) + "</table>" + more)


def _config_html(configs: list[dict[str, Any]]) -> str:
    """One configuration: its file. Several: their settings side by side, differences marked."""
    if not configs:
        return ""
    if len(configs) == 1:
        c = configs[0]
        body = (f"<details open><summary>{escape(c['name'])}</summary><pre>{escape(c['text'])}</pre></details>"
                if c["text"] else f"<p>{escape(c['name'])}: every parameter at its default</p>")
        return f"<section><h2>Configuration</h2>{body}</section>"
    keys = sorted({k for c in configs for k in c["settings"]})
    rows, ndiff = [], 0
    for k in keys:
        vals = [c["settings"].get(k, "") for c in configs]
        changed = len(set(vals)) > 1
        ndiff += changed
        rows.append(f'<tr class="{"changed" if changed else ""}"><td>{escape(k)}</td>'
                    + "".join(_setting_cell(v, k in c.get("set", c["settings"])) for v, c in zip(vals, configs))
                    + "</tr>")
    head = "".join(f"<th>{escape(c['name'])}</th>" for c in configs)
    files = "".join(f"<details><summary>{escape(c['name'])}</summary><pre>{escape(c['text'])}</pre></details>"
                    for c in configs if c["text"])
    return (f"<section><h2>Configurations side by side</h2><p class=\"note\">{ndiff} of {len(keys)} "
            "settings differ (highlighted), compared as maui-py reads them: defaults and other spellings "
            "resolved, <code>RESERVATIONDEPTH[0]</code> is <code>RESERVATIONDEPTH</code>; "
            "<i>(default)</i>: the file does not set it.</p>"
            f"<table class=\"settings\"><tr><th>parameter</th>{head}</tr>{''.join(rows)}</table>{files}</section>")


def _setting_cell(value: str, own: bool) -> str:
    shown = escape(value) if value else "<i>none</i>"
    return f"<td>{shown}</td>" if own else f"<td>{shown} <i>(default)</i></td>"


def _over_time(data: dict[str, Any], clock: TraceClock) -> str:
    """The utilisation and queue-length plots, with the moving average's window stated."""
    runs, day = data["runs"], clock.day
    util = plots.line_chart("Utilization (moving average)", "busy processors",
                            [(r["config"], r["series"]["t"], r["series"]["utilization_smoothed"]) for r in runs],
                            day, y_max=1.0, y_format=lambda v: f"{v:.0%}")
    queue = plots.line_chart("Queue length (moving average)", "jobs waiting",
                             [(r["config"], r["series"]["t"], r["series"]["queue_smoothed"]) for r in runs], day)
    span = data["period"]["last_end"] - data["period"]["first_submit"]
    window = human_duration(span * SMOOTHING // SERIES_BINS)
    note = (f'<p class="note">Each line is a centred moving average over about {window} '
            f"({SMOOTHING} of the {SERIES_BINS} equal slices of the replay).</p>")
    return f"<section><h2>Over time</h2>{note}<div class=\"charts\">{util}{queue}</div></section>"


def render_html(data: dict[str, Any], clock: TraceClock, clock_note: str = "") -> str:
    """The report page from report_data(): one file, inline CSS and SVG, no script, no link."""
    runs = data["runs"]
    names = [r["config"] for r in runs]
    comparing = len(runs) > 1
    title = f"{data['workload']}: " + (" vs ".join(names) if comparing else names[0])
    facts = [("workload", data["workload"]), ("source", data["source"]),
             ("site", data["computer"]), ("cleaning", data["cleaning"]),
             ("cluster", data["cluster"]),
             ("period", f"{data['period']['first_submit_date']} to {data['period']['last_end_date']} "
                        f"({human_duration(data['period']['last_end'] - data['period']['first_submit'])})"),
             ("times", clock.describe() + (f" ({clock_note})" if clock_note else "")),
             ("configuration" + ("s" if comparing else ""), ", ".join(names)),
             ("maui-py", data["maui_py_version"]), ("report written", data["generated"])]
    parts = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{escape(title)}</title><style>{CSS}</style></head><body>",
             f"<header><h1>maui-py simulation report</h1><div class=\"sub\">{escape(title)}</div></header><main>",
             "<section><h2>Run</h2><dl class=\"facts\">"
             + "".join(f"<dt>{escape(k)}</dt><dd>{escape(str(v))}</dd>" for k, v in facts if v)
             + "</dl></section>"]
    cards = []
    for r in runs:
        t = r["total"]
        ok = '<span class="ok">passed</span>' if r["check_ok"] else '<span class="fail">FAILED</span>'
        cards.append(f"<h3>{escape(r['config'])}</h3><div class=\"cards\">"
                     + "".join(f'<div class="card"><div class="k">{k}</div><div class="v">{v}</div></div>'
                               for k, v in (("utilization", f"{t['utilization']:.1%}"),
                                            ("mean wait", human_duration(t["wait_mean"])),
                                            ("mean bounded slowdown", f"{t['bsld_mean']:.2f}"),
                                            ("backfill share", f"{t['backfill_share']:.1%}"),
                                            ("jobs finished", f"{t['finished']} / {t['jobs']}"),
                                            ("schedule check", ok)))
                     + "</div>")
    parts.append("<section><h2>At a glance</h2>" + "".join(cards) + "</section>")
    predicted = any(r["total"].get("predicted") for r in runs)
    rows = [(k, label, [r["total"][k] for r in runs], _fmt(k)) for k, label, _f in ROWS
            if predicted or k not in PREDICTION_KEYS]
    rows += [("cycles", "cycles", [r["cycles"] for r in runs], str),
             ("wall_seconds", "wall time", [r["wall_seconds"] for r in runs], human_duration)]
    legend = (' <span class="note">Cells that differ from the first configuration are marked: '
              'green better, red worse, yellow changed.</span>') if comparing else ""
    parts.append(f"<section><h2>Summary</h2>{legend}{_metric_table(rows, names)}")
    for r in runs:
        if not r["check_ok"]:
            parts.append(f"<p class=\"fail\">{escape(r['config'])}: schedule violations</p><pre>"
                         + escape("\n".join(r["violations"][:20])) + "</pre>")
        if r["unfinished"]:
            parts.append(f"<p class=\"fail\">{escape(r['config'])}: {r['unfinished']} job(s) never finished "
                         "(summary.txt says why).</p>")
    parts.append("</section>")
    parts.append(_over_time(data, clock))
    cdf = plots.cdf_chart("Wait time distribution (CDF)", [(r["config"], [tuple(p) for p in r["wait_cdf"]])
                                                            for r in runs])
    parts.append(f"<section><h2>Waits</h2><div class=\"charts\">{cdf}</div></section>")
    vmax = max((v for r in runs for row in r["slowdown_grid"]["mean"] for v in row if v is not None),
               default=1.0)
    heats = [plots.heatmap(f"Mean bounded slowdown: {r['config']}" if comparing else "Mean bounded slowdown",
                           r["slowdown_grid"]["sizes"], r["slowdown_grid"]["lengths"],
                           r["slowdown_grid"]["mean"], r["slowdown_grid"]["count"],
                           "job size (procs)", "runtime", vmax)
             for r in runs]
    parts.append("<section><h2>Who waits: bounded slowdown by job size and length</h2>"
                 "<p class=\"note\">Each cell: mean bounded slowdown (threshold 10 s) and, in brackets, "
                 "the number of jobs; darker is slower (one colour scale for all).</p>"
                 f"<div class=\"heats\">{''.join(heats)}</div></section>")
    size_order = list(runs[0]["by_size"])
    users = runs[0]["by_user"]
    user_order = sorted(users, key=lambda u: (-users[u]["work"], u))
    groups = [_groups_html("Class", "class", [r["by_class"] for r in runs], names),
              _groups_html("QOS", "QOS", [r["by_qos"] for r in runs], names),
              _groups_html("Job size", "procs", [r["by_size"] for r in runs], names, order=size_order,
                           min_groups=1),
              _groups_html("Users", "user", [r["by_user"] for r in runs], names, TOP_USERS, user_order)]
    parts.append("<section><h2>Breakdown</h2>" + "".join(g for g in groups if g) + "</section>")
    parts.append(_config_html(data["configs"]))
    parts.append('<p class="note">Written by maui-sim. The numbers are in report.json; one row per job '
                 "in the jobs CSV.</p></main></body></html>")
    return "\n".join(parts) + "\n"


def write_report(results: Sequence[tuple[str, SimResult]], out: Path,
                 info: ReportInfo | None = None, progress: Note | None = None,
                 summaries: Sequence[Summary] | None = None,
                 forecast: ForecastData | None = None) -> list[Path]:
    """jobs CSVs, summary.txt, summary.json, report.json and index.html (self-contained), each
    written to a new file renamed into place (outfile), report.json streamed. progress hears
    what is being written; summaries: the runs' summaries when the caller has them already
    (each takes a pass over every job); forecast: the first run's forecasts (--forecast)."""
    info = info or ReportInfo(configs=[(n, "") for n, _r in results])
    note = progress or (lambda _text: None)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, r in results:
        stem = "jobs" if len(results) == 1 else f"jobs-{_slug(name)}"
        note(f"writing {stem}.csv ({len(r.records):,} jobs)")
        write_csv(r, out / f"{stem}.csv", progress, forecast if r is results[0][1] else None)
        written.append(out / f"{stem}.csv")
    if summaries is None:
        note("summarising the replay")
        summaries = [summarize(r.records, machine_procs(r)) for _n, r in results]
    text = (summary_text(results[0][1], summaries[0], title=results[0][0], clock=info.clock)
            if len(results) == 1 else compare_text(results, info.clock, summaries))
    write_text(out / "summary.txt", text + ("\n\n" + forecast_text(forecast) if forecast else "") + "\n")
    note("computing the report's figures")
    data = report_data(results, info, summaries)
    summary = {r["config"]: r["total"] | {"wall_seconds": r["wall_seconds"], "cycles": r["cycles"],
                                          "check_ok": r["check_ok"]} for r in data["runs"]}
    if forecast is not None:
        summary[data["runs"][0]["config"]].update(forecast.summary)
    write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    note("writing report.json")
    with replacing(out / "report.json") as fh:
        json.dump(data, fh, indent=1)
        fh.write("\n")
    note("writing index.html")
    write_text(out / "index.html", with_forecast(render_html(data, info.clock, info.clock_note), forecast))
    written += [out / "summary.txt", out / "summary.json", out / "report.json", out / "index.html"]
    return written


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in Path(name).stem) or "run"
