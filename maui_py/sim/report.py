"""What a replay prints and writes: the summary table, a side-by-side comparison, the per-job
CSV, and (with the `report` extra, matplotlib) plots on a small HTML page.
"""

from __future__ import annotations

import csv
import html
import json
from pathlib import Path
from typing import Sequence

from ..model.times import duration
from .engine import SimOptions, SimResult
from .metrics import Figures, Summary, summarize

ROWS = (
    ("jobs", "jobs", "{:d}"),
    ("finished", "finished", "{:d}"),
    ("makespan", "makespan (s)", "{:d}"),
    ("utilization", "utilization", "{:.4f}"),
    ("wait_mean", "wait mean (s)", "{:.0f}"),
    ("wait_p50", "wait p50 (s)", "{:.0f}"),
    ("wait_p90", "wait p90 (s)", "{:.0f}"),
    ("wait_p99", "wait p99 (s)", "{:.0f}"),
    ("wait_max", "wait max (s)", "{:.0f}"),
    ("bsld_mean", "bounded slowdown (10 s)", "{:.2f}"),
    ("bsld_max", "bounded slowdown max", "{:.1f}"),
    ("backfill_share", "backfill share", "{:.3f}"),
    ("killed", "killed at wallclock", "{:d}"),
)


def machine_procs(result: SimResult) -> int:
    return sum(n.resources.procs for n in result.nodes if n.state.usable)


def _cells(f: Figures) -> list[str]:
    return [fmt.format(getattr(f, key)) for key, _label, fmt in ROWS]


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


def summary_text(result: SimResult, summary: Summary | None = None, title: str = "") -> str:
    s = summary or summarize(result.records, machine_procs(result))
    lines = []
    if title:
        lines += [title, ""]
    rows = [[label, cell] for (_k, label, _f), cell in zip(ROWS, _cells(s.total))]
    rows += [["cycles", str(result.cycles)],
             ["wall time (s)", f"{result.wall_seconds:.2f}"],
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
    for name, groups in (("class", s.by_class), ("QOS", s.by_qos)):
        if groups:
            keys = ("jobs", "wait_mean", "bsld_mean", "backfill_share")
            hdr = [name] + [label for k, label, _f in ROWS if k in keys]
            body = [[g] + [fmt.format(getattr(f, k)) for k, _l, fmt in ROWS if k in keys]
                    for g, f in groups.items()]
            lines += ["", f"by {name}:", table(hdr, body)]
    return "\n".join(lines)


def compare_text(results: Sequence[tuple[str, SimResult]]) -> str:
    """One table, one column per configuration."""
    sums = [summarize(r.records, machine_procs(r)) for _n, r in results]
    rows = [[label] + [fmt.format(getattr(s.total, key)) for s in sums] for key, label, fmt in ROWS]
    rows.append(["wall time (s)"] + [f"{r.wall_seconds:.2f}" for _n, r in results])
    rows.append(["schedule check"] + ["passed" if r.check.ok else "FAILED" for _n, r in results])
    return table(["metric"] + [n for n, _r in results], rows)


def write_csv(result: SimResult, path: Path) -> None:
    """id, submit, start, end, procs, estimate, runtime, kind, nodes: one row per job."""
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "submit", "start", "end", "procs", "estimate", "runtime", "kind",
                    "class", "qos", "nodes"])
        for r in sorted(result.records.values(), key=lambda r: (r.job.submit_time, r.job.id)):
            w.writerow([r.job.id, r.job.submit_time, "" if r.start is None else r.start,
                        "" if r.end is None else r.end, r.job.procs, r.job.wallclock, r.runtime,
                        r.kind.value if r.kind else "", r.job.class_, r.job.qos,
                        " ".join(r.nodes)])


def series(result: SimResult) -> tuple[list[int], list[float], list[int]]:
    """(times, busy fraction, queue length) at every start, end and submission. O(n log n)."""
    ev = []
    for r in result.records.values():
        ev.append((r.job.submit_time, 0, 1))
        if r.start is not None:
            ev.append((r.start, r.job.procs, -1))
            if r.end is not None:
                ev.append((r.end, -r.job.procs, 0))
    ev.sort()
    procs = max(machine_procs(result), 1)
    times, busy, queue = [], [], []
    b = q = 0
    for t, dp, dq in ev:
        b += dp
        q += dq
        if times and times[-1] == t:
            busy[-1], queue[-1] = b / procs, q
        else:
            times.append(t)
            busy.append(b / procs)
            queue.append(q)
    return times, busy, queue


def write_report(results: Sequence[tuple[str, SimResult]], out: Path) -> list[Path]:
    """summary.txt, summary.json, jobs CSVs; plots and index.html when matplotlib is there."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, r in results:
        stem = "jobs" if len(results) == 1 else f"jobs-{_slug(name)}"
        write_csv(r, out / f"{stem}.csv")
        written.append(out / f"{stem}.csv")
    text = (summary_text(results[0][1], title=results[0][0]) if len(results) == 1
            else compare_text(results))
    (out / "summary.txt").write_text(text + "\n")
    data = {name: summarize(r.records, machine_procs(r)).total.as_row() | {
        "wall_seconds": r.wall_seconds, "cycles": r.cycles, "check_ok": r.check.ok}
        for name, r in results}
    (out / "summary.json").write_text(json.dumps(data, indent=2) + "\n")
    written += [out / "summary.txt", out / "summary.json"]
    images = _plots(results, out)
    written += images
    body = [f"<h1>maui-py simulation report</h1><pre>{html.escape(text)}</pre>"]
    if images:
        body += [f'<p><img src="{p.name}" alt="{p.stem}"></p>' for p in images]
    else:
        body.append("<p>Plots need matplotlib: <code>pip install 'maui-py[report]'</code>.</p>")
    (out / "index.html").write_text("<!doctype html><meta charset=utf-8><title>maui-py "
                                    "simulation</title>" + "\n".join(body) + "\n")
    written.append(out / "index.html")
    return written


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in Path(name).stem) or "run"


def _plots(results: Sequence[tuple[str, SimResult]], out: Path) -> list[Path]:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    paths = []
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
    for name, r in results:
        t, busy, queue = series(r)
        if not t:
            continue
        days = [(x - t[0]) / 86400 for x in t]
        ax1.step(days, busy, where="post", label=name, linewidth=0.7)
        ax2.step(days, queue, where="post", label=name, linewidth=0.7)
    ax1.set_ylabel("utilization")
    ax2.set_ylabel("queued jobs")
    ax2.set_xlabel("days")
    ax1.legend(loc="upper right", fontsize="small")
    paths.append(_save(plt, fig, out / "utilization.png"))
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, r in results:
        waits = sorted(x.start - x.job.submit_time for x in r.records.values() if x.start is not None)
        if waits:
            ax.step([max(w, 1) for w in waits], [(k + 1) / len(waits) for k in range(len(waits))],
                    where="post", label=name)
    ax.set_xscale("log")
    ax.set_xlabel("wait (s)")
    ax.set_ylabel("fraction of jobs")
    ax.legend(loc="lower right", fontsize="small")
    paths.append(_save(plt, fig, out / "wait-cdf.png"))
    return paths


def _save(plt, fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
