"""The what-if report: one self-contained HTML page (tables and inline SVG, no external
asset, every name escaped) and the same data as JSON, written for an admin to forward to the
users' committee. Styling and the line chart come from the simulation report
(maui_py.sim.report.CSS, maui_py.sim.plots); the interval chart and the sweep heat map are
drawn here.
"""

from __future__ import annotations

import json
from dataclasses import replace
from html import escape
from pathlib import Path
from typing import Any, Sequence

from .outfile import replacing, write_text
from .plots import TITLE_EM, line_chart, text_width
from .report import CSS
from .timefmt import TraceClock, clock_for
from .whatif import METRICS, group_order

KIND_TITLES = {"user": "Per user", "account": "Per account", "qos": "Per QOS",
               "size": "Per job size (processors)"}
EXTRA_CSS = """
main { max-width: 1360px; }
td.noise { color: var(--muted); }
.wide { overflow-x: auto; }
.why { margin: 6px 0 12px; }
td.ci small { display: block; font-size: 11px; }
table.groups th, table.groups td { padding: 3px 8px; }
"""
TOP_USERS = 15
"""Users shown by default in a comparison (chart and table): those the change affects most;
the rest are behind a <details> element."""
NAME_CHARS = 22
"""A group name longer than this is cut (with an ellipsis, the whole name in a tooltip)."""


def _dur(s: float) -> str:
    a = abs(s)
    sign = "-" if s < 0 else ""
    if a < 10:
        return f"{s:.1f} s" if round(s, 1) else "0 s"
    if a < 120:
        return f"{sign}{a:.0f} s"
    if a < 7200:
        return f"{sign}{a / 60:.1f} min"
    return f"{sign}{a / 3600:.2f} h"


def _pct(v: float) -> str:
    """A share in percent: one decimal, three below 0.1 % (a change of 0.004 % reads
    "0.004 %", not "0.0 %" marked better)."""
    p = v * 100
    if abs(p) >= 0.1 or p == 0:
        return f"{p:.1f} %"
    return f"{p:.3f} %" if abs(p) >= 0.001 else f"{'-' if p < 0 else ''}<0.001 %"


FORMATS = {"wait": _dur, "bsld": lambda v: f"{v:.2f}", "xf": lambda v: f"{v:.2f}",
           "share": _pct, "utilization": _pct, "backfill_share": _pct}
LABELS = {"wait": "mean wait", "bsld": "bounded slowdown", "xf": "expansion factor",
          "share": "delivered share", "utilization": "utilisation", "backfill_share": "backfill share"}
HIGHER_IS_BETTER = {"share", "utilization"}


def _interval(d: dict[str, Any], metric: str) -> str:
    f = FORMATS[metric]
    if d["lo"] is None:
        return f"{f(d['diff'])}"
    return f"{f(d['diff'])} <small>[{f(d['lo'])}, {f(d['hi'])}]</small>"


def _diff_cell(d: dict[str, Any], metric: str) -> str:
    """The change, its 95 % interval on a line of its own (so a wide table still fits)."""
    if d["lo"] is None:
        cls = "nointerval"          # one shake: no interval, so neither grey nor a colour
    elif d["within_noise"]:
        cls = "noise"
    else:
        up = d["diff"] > 0
        cls = "better" if up == (metric in HIGHER_IS_BETTER) else "worse"
    return f'<td class="{cls} ci">{_interval(d, metric)}</td>'


def _noise(d: dict[str, Any], text: str = "  (within noise)") -> str:
    """`text` when the change's interval contains 0; nothing with one shake (no interval:
    the replay's noise is unknown, not small)."""
    return text if d["lo"] is not None and d["within_noise"] else ""


ONE_SHAKE = ("one shake: no intervals and no noise estimate; --shakes 2 or more gives them "
             "(the default is 10)")


def _name(g: str) -> str:
    """A group name for a table or chart: cut to NAME_CHARS, escaped."""
    if len(g) <= NAME_CHARS:
        return escape(g)
    return f'<span title="{escape(g)}">{escape(g[:NAME_CHARS - 1])}…</span>'


def by_effect(rows: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Users by how much the change affects their mean wait: beyond the noise first, then by
    the size of the change (either way), then by name."""
    return sorted(rows.items(), key=lambda kv: (kv[1]["wait"]["within_noise"],
                                                -abs(kv[1]["wait"]["diff"]), kv[0]))


def _group_table(kind: str, rows: dict[str, Any], targets: dict[str, str],
                 order: Sequence[str] | None = None) -> str:
    """One row per group (in `order`, else the kind's reading order), current value and
    change of each metric."""
    head = ["<tr><th>" + escape(kind) + "</th><th>jobs</th>"]
    for m in ("wait", "bsld", "xf", "share"):
        head.append(f"<th>{LABELS[m]}<br>current</th><th>change<br><small>[95 % CI]</small></th>")
    if targets:
        head.append("<th>FS target</th>")
    out = ["<div class='wide'><table class='groups'>", "".join(head) + "</tr>"]
    for g in order if order is not None else group_order(kind, rows):
        row = rows[g]
        cells = [f"<td>{_name(g)}</td><td>{row['n']}</td>"]
        for m in ("wait", "bsld", "xf", "share"):
            cells.append(f"<td>{FORMATS[m](row[m]['current'])}</td>{_diff_cell(row[m], m)}")
        if targets:
            cells.append(f"<td>{escape(targets.get(g, '-'))}{' %' if g in targets else ''}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table></div>")
    return "\n".join(out)


def interval_chart(title: str, items: Sequence[tuple[str, dict[str, Any]]]) -> str:
    """Horizontal bars: each user's change in mean wait with its interval, zero marked. The
    axis labels stay inside the picture (the end ones anchored at their end, the zero label
    left out when it would touch one), names are cut to NAME_CHARS."""
    rows = list(items)[:40]
    w, left, right, rh, top = 760, 160, 12, 18, 30
    h = top + rh * len(rows) + 30
    vals = [v for _n, d in rows for v in (d["diff"], d["lo"] or d["diff"], d["hi"] or d["diff"])]
    lo, hi = min(vals + [0.0]), max(vals + [0.0])
    hi = hi if hi > lo else lo + 1

    def px(v: float) -> float:
        return left + (v - lo) / (hi - lo) * (w - left - right)
    out = [f'<svg class="chart" viewBox="0 0 {w} {h}" style="max-width:{w}px" role="img" '
           f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
           f'<text class="title" x="10" y="18">{escape(title)}</text>',
           f'<line class="grid" x1="{px(0):.1f}" y1="{top - 4}" x2="{px(0):.1f}" y2="{h - 24}" '
           'stroke="#6b7280"/>']
    for k, (name, d) in enumerate(rows):
        y = top + k * rh + rh / 2
        col = "#9ca3af" if _noise(d, "grey") else ("#b91c1c" if d["diff"] > 0 else "#047857")
        label = name if len(name) <= NAME_CHARS else name[:NAME_CHARS - 1] + "…"
        out.append(f'<text class="tick" x="{left - 8}" y="{y + 4:.0f}" text-anchor="end">{escape(label)}</text>')
        if d["lo"] is not None:
            out.append(f'<line x1="{px(d["lo"]):.1f}" y1="{y:.0f}" x2="{px(d["hi"]):.1f}" y2="{y:.0f}" '
                       f'stroke="{col}" stroke-width="2"/>')
        out.append(f'<circle cx="{px(d["diff"]):.1f}" cy="{y:.0f}" r="3.5" fill="{col}">'
                   f'<title>{escape(name)}: {escape(_dur(d["diff"]))}</title></circle>')
    ticks = [(px(lo), _dur(lo), "start"), (px(hi), _dur(hi), "end")]
    zero = px(0.0)
    if all(abs(zero - x) > text_width(t) + 12 for x, t, _a in ticks):
        ticks.append((zero, "0 s", "middle"))
    for x, text, anchor in ticks:
        out.append(f'<text class="tick" x="{x:.1f}" y="{h - 8}" text-anchor="{anchor}">{escape(text)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def sweep_heatmap(data: dict[str, Any]) -> str:
    """The sweep as a grid: change of the overall mean wait per combination of (up to) two
    --set axes, green shorter, red longer, grey within noise."""
    comps = [c for c in data["comparisons"] if c["settings"]]
    if not comps:
        return ""
    axes = [p for p, _v in comps[0]["settings"]]
    if len(axes) > 2:
        return ""
    rows_vals = sorted({c["settings"][0][1] for c in comps}, key=_sortkey)
    cols_vals = sorted({c["settings"][1][1] for c in comps}, key=_sortkey) if len(axes) == 2 else [""]
    cell = {tuple(v for _p, v in c["settings"]) + (("",) if len(axes) == 1 else ()): c for c in comps}
    title = "change of mean wait against the current config (grey: within noise)"
    cw, ch, top = 150, 30, 34
    left = max(120, int(max(text_width(f"{axes[0]}={v}") for v in rows_vals)) + 16)
    w = int(max(left + cw * len(cols_vals) + 20, 10 + text_width(title, 13, TITLE_EM) + 10))
    h = top + ch * len(rows_vals) + (30 if len(axes) == 2 else 8)
    worst = max((abs(c["total"]["wait"]["diff"]) for c in comps), default=1.0) or 1.0
    out = [f'<svg class="chart" viewBox="0 0 {w} {h}" style="max-width:{w}px" role="img" '
           'aria-label="sweep" xmlns="http://www.w3.org/2000/svg">',
           f'<text class="title" x="10" y="18">{escape(title)}</text>']
    for i, rv in enumerate(rows_vals):
        y = top + i * ch
        out.append(f'<text class="tick" x="{left - 6}" y="{y + ch / 2 + 4:.0f}" text-anchor="end">'
                   f'{escape(axes[0])}={escape(rv)}</text>')
        for j, cv in enumerate(cols_vals):
            c = cell.get((rv, cv))
            x = left + j * cw
            if c is None:
                continue
            d = c["total"]["wait"]
            f = min(1.0, abs(d["diff"]) / worst)
            fill = "#e5e7eb" if _noise(d, "grey") else (
                f"rgb({255},{round(255 - 150 * f)},{round(255 - 150 * f)})" if d["diff"] > 0
                else f"rgb({round(255 - 150 * f)},{255},{round(255 - 120 * f)})")
            out.append(f'<rect x="{x}" y="{y}" width="{cw - 2}" height="{ch - 2}" fill="{fill}">'
                       f'<title>{escape(c["name"])}</title></rect>'
                       f'<text class="cell" x="{x + cw / 2:.0f}" y="{y + ch / 2 + 4:.0f}" '
                       f'text-anchor="middle">{escape(_dur(d["diff"]))}</text>')
    if len(axes) == 2:
        for j, cv in enumerate(cols_vals):
            out.append(f'<text class="tick" x="{left + j * cw + cw / 2:.0f}" y="{top + ch * len(rows_vals) + 16}" '
                       f'text-anchor="middle">{escape(axes[1])}={escape(cv)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _sortkey(v: str) -> tuple[int, float | str]:
    try:
        return (0, float(v))
    except ValueError:
        return (1, v)


def _comparison_html(data: dict[str, Any], comp: dict[str, Any]) -> str:
    base = data["configs"][0]["name"]
    tot = comp["total"]
    out = [f"<section><h2>{escape(comp['name'])} <span class='note'>against {escape(base)}</span></h2>",
           "<table><tr><th>whole workload</th><th>current</th><th>proposed</th><th>change [95 % CI]</th></tr>"]
    for m in ("wait", "bsld", "xf", "utilization", "backfill_share"):
        d = tot[m]
        out.append(f"<tr><td>{LABELS[m]}</td><td>{FORMATS[m](d['current'])}</td>"
                   f"<td>{FORMATS[m](d['proposed'])}</td>{_diff_cell(d, m)}</tr>")
    cur, new = _unfinished(data, comp)
    if cur or new:
        out.append(f"<tr><td>never finished (jobs)</td><td>{jobs_count(cur)}</td>"
                   f"<td>{jobs_count(new)}</td><td>{jobs_count(new - cur, '+')}</td></tr>")
    out.append("</table>")
    if cur or new:
        out.append("<p class='why'>Some jobs never finished (held, or never started before the "
                   "replay ended): every figure covers finished jobs only, so the two configs are "
                   "measured on different jobs.</p>")
    if unchanged(comp):
        out.append("<p class='why'>Nothing changes: every figure of every user, account, QOS and "
                   "job size is the same as under the current config (no table below).</p></section>")
        return "\n".join(out)
    if comp["losers"]:
        names = ", ".join(f"<b>{escape(x['user'])}</b> ({escape(_dur(x['diff']))}"
                          f"{_noise(x, ', within noise')})" for x in comp["losers"])
        out.append(f"<p class='why'>Users who lose most (mean wait): {names}.</p>")
    else:
        out.append("<p class='why'>No user waits longer on average.</p>")
    targets = data["configs"][comp["config"]]["fs_targets"]
    out.append(_users_html(comp["groups"]["user"], targets.get("user", {})))
    for kind in ("account", "qos", "size"):
        rows = comp["groups"][kind]
        if len(rows) < 2:
            continue
        out.append(f"<h3>{KIND_TITLES[kind]}</h3>")
        out.append(_group_table(kind, rows, targets.get(kind, {})))
    out.append("</section>")
    return "\n".join(out)


def unchanged(comp: dict[str, Any]) -> bool:
    """Whether a comparison changes nothing at all: every total and every group's every
    metric has a zero mean difference in every shake (a config equal to the current one)."""
    cells = list(comp["total"].values()) + [row[m] for rows in comp["groups"].values()
                                            for row in rows.values() for m in METRICS]
    return all(d["diff"] == 0 and (d["lo"] is None or d["lo"] == d["hi"] == 0) for d in cells)


def _users_html(rows: dict[str, Any], targets: dict[str, str]) -> str:
    """The users the change affects most (chart and table, at most TOP_USERS), then every
    user behind a <details> element; one line when no user's mean wait moves at all."""
    ranked = by_effect(rows)
    moved = [(u, row) for u, row in ranked if row["wait"]["diff"] or not row["wait"]["within_noise"]]
    out = []
    if moved:
        top = moved[:TOP_USERS]
        what = "the user" if len(top) == 1 else f"the {len(top)} users"
        out.append(interval_chart(f"change of mean wait: {what} it affects most "
                                  "(dot: mean over shakes; bar: 95 % interval)",
                                  [(u, row["wait"]) for u, row in top]))
        out.append(f"<h3>{KIND_TITLES['user']}: the {len(top)} most affected of {len(rows)}</h3>")
        out.append(_group_table("user", rows, targets, [u for u, _r in top]))
    else:
        out.append(f"<p class='why'>No user's mean wait changes ({len(rows)} users).</p>")
    if len(rows) > (len(moved[:TOP_USERS]) if moved else 0):
        out.append(f"<details><summary>all {len(rows)} users</summary>"
                   + _group_table("user", rows, targets) + "</details>")
    return "\n".join(out)


def time_axis(dates: str, first: int, last: int):
    """Labels for a time axis from `first` to `last` (the log's times): dates in the log's
    zone when its times are dates (`dates` names the zone), a day and hour when the span is
    under four days; `day N hh:mm` counted from the first time when they are not dates."""
    clock = replace(clock_for(1, dates)[0], unix_start=0) if dates else TraceClock()
    short = last - first < 4 * 86400

    def label(x: float) -> str:
        if not clock.absolute:
            days, rest = divmod(int(x - first), 86400)
            return f"day {days + 1} {rest // 3600:02d}:{rest % 3600 // 60:02d}" if short else f"day {days + 1}"
        return clock.date(int(x))[5:16] if short else clock.day(int(x))
    return label


def _headline(cfgs: list[dict[str, Any]]) -> str:
    if len(cfgs) <= 3:
        return " / ".join(c["name"] for c in cfgs[1:]) or cfgs[0]["name"]
    params = list(dict.fromkeys(p for c in cfgs[1:] for p, _v in c["settings"]))
    return (f"a sweep of {', '.join(params)} ({len(cfgs) - 1} configs)" if params
            else f"{len(cfgs) - 1} proposed configs")


def render_html(data: dict[str, Any]) -> str:
    cfgs = data["configs"]
    skipped = data["skipped"] | data["left_out"]
    facts = [("workload", data["source"]), ("jobs replayed", str(data["jobs"])),
             ("cluster", f"{data['nodes']} nodes, {data['procs']} processors"),
             ("runs", f"{len(cfgs)} configs x {data['shakes']} shaken inputs (seed {data['seed']}: "
                      f"arrivals +-{data['shake']['submit_jitter']} s, runtimes "
                      f"+-{data['shake']['runtime_jitter'] * 100:g} %)")]
    out = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
           "<meta name='viewport' content='width=device-width, initial-scale=1'>",
           f"<title>maui-sim what-if: {escape(data['source'])}</title><style>{CSS}{EXTRA_CSS}</style></head><body>",
           f"<header><h1>What if: {escape(_headline(cfgs))}</h1>"
           f"<div class='sub'>against the current config {escape(cfgs[0]['name'])}, "
           f"replaying {escape(data['source'])}</div></header><main>",
           "<section><h2>How to read this</h2><dl class='facts'>"
           + "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts) + "</dl>",
           "<p class='note'>Each config is replayed on the same shaken copies of the log; a change is "
           "the mean of the paired differences (proposed - current) with a 95 % Student-t interval. "
           "Grey: the interval contains 0, so the change is within the noise of the replay. "
           "Green: better for the group, red: worse. Delivered share counts processor-seconds "
           "between the first and last arrival of the log.</p>"]
    if data["shakes"] < 2:
        out.append(f"<p class='why'>{escape(ONE_SHAKE[0].upper() + ONE_SHAKE[1:])}: no change is "
                   "marked as within the noise or beyond it.</p>")
    if skipped:
        out.append("<details><summary>records not replayed</summary><ul>" + "".join(
            f"<li>{escape(k)}: {v}</li>" for k, v in sorted(skipped.items())) + "</ul></details>")
    out.append("</section>")
    heat = sweep_heatmap(data)
    if heat:
        out.append(f"<section><h2>The sweep</h2>{heat}</section>")
    for comp in data["comparisons"]:
        out.append(_comparison_html(data, comp))
    series = [(cfgs[t["config"]]["name"], [t["start"] + x * t["width"] for x in range(len(t["busy"]))],
               t["busy"]) for t in data["timelines"]]
    xs = [x for _n, sx, _y in series for x in sx] or [0]
    out.append("<section><h2>Utilisation over time</h2>" + line_chart(
        "busy processors (mean over shakes)", "busy share", series,
        time_axis(data.get("dates", ""), min(xs), max(xs)), y_max=1.0,
        y_format=lambda v: f"{v * 100:.0f} %") + "</section>")
    out.append("<section><h2>Configs</h2><table><tr><th>config</th><th>mean wait</th><th>bounded slowdown</th>"
               "<th>utilisation</th><th>backfill share</th><th>schedule violations</th>"
               "<th>never finished</th></tr>" + "".join(
                   f"<tr><td>{escape(c['name'])}</td><td>{_dur(c['total']['wait'])}</td>"
                   f"<td>{c['total']['bsld']:.2f}</td><td>{c['total']['utilization'] * 100:.1f} %</td>"
                   f"<td>{c['total']['backfill_share'] * 100:.1f} %</td><td>{c['violations']}</td>"
                   f"<td>{jobs_count(c.get('unfinished', 0.0))}</td></tr>"
                   for c in cfgs) + "</table></section>")
    out.append("</main></body></html>")
    return "\n".join(out)


def write(data: dict[str, Any], out: Path) -> list[Path]:
    """whatif.json and whatif.html in `out` (created)."""
    out.mkdir(parents=True, exist_ok=True)
    j, h = out / "whatif.json", out / "whatif.html"
    with replacing(j) as fh:        # never through a link planted in a shared folder
        json.dump(data, fh, indent=1, sort_keys=True)
    write_text(h, render_html(data))
    return [j, h]


def jobs_count(n: float, sign: str = "") -> str:
    """A number of jobs as a person reads it: whole numbers with thousands separators
    (1,161, never 1.161e+03), a mean over shakes that is not whole with one decimal."""
    return f"{n:{sign},.0f}" if n == int(n) else f"{n:{sign},.1f}"


def _unfinished(data: dict[str, Any], comp: dict[str, Any]) -> tuple[float, float]:
    cfgs = data["configs"]
    return cfgs[0].get("unfinished", 0.0), cfgs[comp["config"]].get("unfinished", 0.0)


def unfinished_lines(data: dict[str, Any], comp: dict[str, Any]) -> list[str]:
    """The jobs either config never finished (mean over shakes), when there are any: the
    figures cover finished jobs only, so the two sides then measure different jobs."""
    cur, new = _unfinished(data, comp)
    if not cur and not new:
        return []
    return [f"  {'never finished':<18} {jobs_count(cur):>10} -> {jobs_count(new):>10}  jobs "
            f"(held or never started, mean of {data['shakes']} shakes): the figures above cover "
            "finished jobs only"]


def summary_text(data: dict[str, Any], top: int = 10) -> str:
    """The terminal version: totals and the per-user wait changes of each comparison."""
    lines = [f"{data['source']}: {data['jobs']} jobs on {data['nodes']} nodes "
             f"({data['procs']} procs), {len(data['configs'])} configs x {data['shakes']} shakes"]
    left = data["skipped"] | data["left_out"]
    if left:
        n = sum(left.values())
        lines.append(f"  {n} record{'s' if n != 1 else ''} not replayed: "
                     + "; ".join(f"{reason}: {count}" for reason, count in sorted(left.items())))
    if data["shakes"] < 2:
        lines.append(f"  {ONE_SHAKE}")
    for comp in data["comparisons"]:
        lines += ["", f"{comp['name']} vs {data['configs'][0]['name']}"]
        for m in ("wait", "bsld", "xf", "utilization", "backfill_share"):
            d = comp["total"][m]
            ci = "" if d["lo"] is None else f"  [{FORMATS[m](d['lo'])}, {FORMATS[m](d['hi'])}]"
            lines.append(f"  {LABELS[m]:<18} {FORMATS[m](d['current']):>10} -> "
                         f"{FORMATS[m](d['proposed']):>10}  change {FORMATS[m](d['diff'])}{ci}"
                         f"{_noise(d)}")
        lines += unfinished_lines(data, comp)
        rows = sorted(comp["groups"]["user"].items(), key=lambda kv: -kv[1]["wait"]["diff"])[:top]
        lines.append(f"  {'user':<14}{'jobs':>6}  {'wait change [95 % CI]':<40}")
        for u, row in rows:
            d = row["wait"]
            ci = "" if d["lo"] is None else f" [{_dur(d['lo'])}, {_dur(d['hi'])}]"
            lines.append(f"  {u[:14]:<14}{row['n']:>6}  {_dur(d['diff'])}{ci}"
                         f"{_noise(d)}")
        if comp["losers"]:
            lines.append("  lose most: " + ", ".join(x["user"] for x in comp["losers"]))
    return "\n".join(lines)
