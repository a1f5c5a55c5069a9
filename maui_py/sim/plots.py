"""Small inline SVG charts for the simulation report: no plotting library, no external asset.

Each function returns one `<svg>` element as text, sized by its viewBox so it scales with
the page: a line chart (utilization, queue length over time), a step CDF on a log axis (wait
times) and a heat map (bounded slowdown by job size and length). Every label is escaped.
"""

from __future__ import annotations

import math
from html import escape
from typing import Callable, Sequence

from .timefmt import short_duration

PALETTE = ("#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563")
W, H = 760, 280
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 30, 40


def color(k: int) -> str:
    return PALETTE[k % len(PALETTE)]


def _num(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About n round tick values covering [lo, hi]."""
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [first + k * step for k in range(int((hi - first) / step + 1e-9) + 1)]


TITLE_EM, TICK_EM = 1.08, 1.0
"""Scale of text_width for bold titles and for regular ticks and legends."""
LEGEND_ROW = 18
_NARROW, _WIDE = frozenset(" .,:;'|!ijlIft()[]-"), frozenset("MWmw@%")


def text_width(text: str, size: float = 11, em: float = TICK_EM) -> float:
    """A generous estimate of a label's width in pixels (an SVG file has no font metrics):
    per character a share of the font size a sans-serif font does not exceed (capitals and
    wide letters 0.78, narrow ones 0.36, others 0.62), times `em` (1.08 for bold)."""
    units = sum(0.36 if c in _NARROW else 0.86 if c in _WIDE else 0.78 if c.isupper() else 0.62
                for c in text)
    return units * size * em


def _legend_items(legend: Sequence[tuple[str, str]]) -> list[tuple[str, str, float]]:
    """(label, colour, width with its swatch) of each entry; names beyond 40 characters cut."""
    out = []
    for name, col in legend:
        label = name if len(name) <= 40 else name[:39] + "…"
        out.append((label, col, text_width(label) + 30))
    return out


def legend_layout(title: str, legend: Sequence[tuple[str, str]], width: int = W,
                  left: int = LEFT, right: int = RIGHT, below: int = H
                  ) -> tuple[list[tuple[float, float, str, str]], int]:
    """Where each legend entry goes: (x, y of its swatch, label, colour), and the height the
    chart needs. Beside the title, right-aligned, when it all fits on that line; else in
    rows under the plot (from y = `below`), so a legend never covers the title."""
    items = _legend_items(legend)
    title_end = left + text_width(title, 13, TITLE_EM)
    if title_end + 16 + sum(w for _l, _c, w in items) <= width - right:
        x, out = width - right, []
        for label, col, w in reversed(items):
            x -= w
            out.append((x, 9.0, label, col))
        return out[::-1], below
    out, x, y = [], float(left), float(below + 4)
    for label, col, w in items:
        if x > left and x + w > width - right:
            x, y = float(left), y + LEGEND_ROW
        out.append((x, y, label, col))
        x += w
    return out, int(y + LEGEND_ROW - 4)


def _frame(title: str, ylabel: str, body: list[str], legend: Sequence[tuple[str, str]]) -> str:
    placed, height = legend_layout(title, legend)
    out = [f'<svg class="chart" viewBox="0 0 {W} {height}" role="img" aria-label="{escape(title)}" '
           'xmlns="http://www.w3.org/2000/svg">',
           f'<text class="title" x="{LEFT}" y="18">{escape(title)}</text>',
           f'<text class="axis-label" transform="translate(14 {TOP + (H - TOP - BOTTOM) / 2:.0f}) '
           f'rotate(-90)" text-anchor="middle">{escape(ylabel)}</text>']
    out += body
    for x, y, label, col in placed:
        out.append(f'<rect x="{x:.0f}" y="{y:.0f}" width="14" height="4" fill="{col}"/>'
                   f'<text class="legend" x="{x + 18:.0f}" y="{y + 6:.0f}">{escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _axes(xt: list[tuple[float, str]], yt: list[tuple[float, str]]) -> list[str]:
    """Grid lines and tick labels; positions already in pixels."""
    out = [f'<rect class="plot" x="{LEFT}" y="{TOP}" width="{W - LEFT - RIGHT}" height="{H - TOP - BOTTOM}"/>']
    for k, (px, label) in enumerate(xt):
        anchor = "start" if px <= LEFT + 1 and k == 0 else "end" if px >= W - RIGHT - 1 else "middle"
        out.append(f'<line class="grid" x1="{px:.1f}" y1="{TOP}" x2="{px:.1f}" y2="{H - BOTTOM}"/>'
                   f'<text class="tick" x="{px:.1f}" y="{H - BOTTOM + 16}" text-anchor="{anchor}">{escape(label)}</text>')
    for py, label in yt:
        out.append(f'<line class="grid" x1="{LEFT}" y1="{py:.1f}" x2="{W - RIGHT}" y2="{py:.1f}"/>'
                   f'<text class="tick" x="{LEFT - 6}" y="{py + 4:.1f}" text-anchor="end">{escape(label)}</text>')
    return out


def line_chart(title: str, ylabel: str, series: Sequence[tuple[str, Sequence[int], Sequence[float]]],
               xlabel: Callable[[float], str], y_max: float | None = None,
               y_format: Callable[[float], str] = _num) -> str:
    """Lines of (name, x values, y values), x a time in seconds labelled with xlabel."""
    xs = [x for _n, sx, _y in series for x in sx]
    ys = [y for _n, _x, sy in series for y in sy]
    x0, x1 = (min(xs), max(xs)) if xs else (0, 1)
    x1 = x1 if x1 > x0 else x0 + 1
    top = y_max if y_max is not None else max(ys, default=1.0) * 1.05 or 1.0
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def px(x: float) -> float:
        return LEFT + (x - x0) / (x1 - x0) * pw

    def py(y: float) -> float:
        return TOP + ph - min(y, top) / top * ph
    xt = [(px(x0 + k * (x1 - x0) / 5), xlabel(x0 + k * (x1 - x0) / 5)) for k in range(6)]
    yt = [(py(v), y_format(v)) for v in _nice_ticks(0, top) if v <= top]
    body = _axes(xt, yt)
    for k, (_name, sx, sy) in enumerate(series):
        pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(sx, sy))
        if pts:
            body.append(f'<polyline fill="none" stroke="{color(k)}" stroke-width="1.8" points="{pts}"/>')
    return _frame(title, ylabel, body, [(n, color(k)) for k, (n, _x, _y) in enumerate(series)])


LOG_TICKS = (1, 10, 60, 600, 3600, 4 * 3600, 86400, 7 * 86400, 30 * 86400, 365 * 86400)


def cdf_chart(title: str, series: Sequence[tuple[str, Sequence[tuple[int, float]]]]) -> str:
    """Step CDFs of waits on a log time axis (a wait under 1 s is drawn at 1 s)."""
    top = max((max(w for w, _f in pts) for _n, pts in series if pts), default=1)
    lo, hi = 0.0, math.log10(max(top, 10))
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def px(w: float) -> float:
        return LEFT + (math.log10(max(w, 1)) - lo) / (hi - lo) * pw

    def py(f: float) -> float:
        return TOP + ph - f * ph
    xt = [(px(t), short_duration(t)) for t in LOG_TICKS if t <= max(top, 10)]
    yt = [(py(f), f"{f:.0%}") for f in (0, 0.25, 0.5, 0.75, 1.0)]
    body = _axes(xt, yt)
    for k, (_name, pts) in enumerate(series):
        path, prev = [], 0.0
        x = px(1)
        path.append(f"M{x:.1f},{py(0):.1f}")
        for w, f in pts:
            x = px(w)
            path.append(f"H{x:.1f}V{py(f):.1f}")
            prev = f
        if pts:
            path.append(f"H{px(max(top, 10)):.1f}V{py(prev):.1f}")
            body.append(f'<path fill="none" stroke="{color(k)}" stroke-width="1.8" d="{"".join(path)}"/>')
    body.append(f'<text class="axis-label" x="{LEFT + pw / 2:.0f}" y="{H - 6}" text-anchor="middle">'
                'wait (log scale)</text>')
    return _frame(title, "jobs started within", body, [(n, color(k)) for k, (n, _p) in enumerate(series)])


def _heat(value: float, vmax: float) -> str:
    """White-yellow-red by log(value) / log(vmax), for values >= 1."""
    f = 0.0 if vmax <= 1 else min(1.0, math.log(max(value, 1)) / math.log(vmax))
    stops = ((255, 255, 255), (253, 224, 71), (234, 88, 12), (153, 27, 27))
    seg = min(int(f * 3), 2)
    t = f * 3 - seg
    a, b = stops[seg], stops[seg + 1]
    return "#%02x%02x%02x" % tuple(round(a[i] + (b[i] - a[i]) * t) for i in range(3))


def heatmap(title: str, rows: Sequence[str], cols: Sequence[str],
            mean: Sequence[Sequence[float | None]], count: Sequence[Sequence[int]],
            row_label: str, col_label: str, vmax: float | None = None) -> str:
    """A grid of cells coloured by value (log scale up to vmax, default the grid's largest:
    give grids that are compared the same), each with its value and job count."""
    cw, ch = 100, 26
    left, top = 90, 34
    width = left + cw * len(cols) + 16
    height = top + ch * len(rows) + 44
    if vmax is None:
        vmax = max((v for r in mean for v in r if v is not None), default=1.0)
    out = [f'<svg class="chart heat" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}" '
           'xmlns="http://www.w3.org/2000/svg">',
           f'<text class="title" x="{left}" y="18">{escape(title)}</text>']
    for i, row in enumerate(rows):
        y = top + (len(rows) - 1 - i) * ch             # smallest jobs at the bottom
        out.append(f'<text class="tick" x="{left - 8}" y="{y + ch / 2 + 4:.0f}" text-anchor="end">'
                   f'{escape(row)}</text>')
        for j in range(len(cols)):
            x = left + j * cw
            v, n = mean[i][j], count[i][j]
            if v is None:
                out.append(f'<rect class="empty" x="{x}" y="{y}" width="{cw - 2}" height="{ch - 2}"/>')
                continue
            fill = _heat(v, vmax)
            dark = fill != "#ffffff" and math.log(max(v, 1)) / math.log(max(vmax, 1.0001)) > 0.6
            out.append(f'<rect x="{x}" y="{y}" width="{cw - 2}" height="{ch - 2}" fill="{fill}">'
                       f'<title>{escape(row)} procs, {escape(cols[j])}: mean bounded slowdown '
                       f'{v:.2f} over {n} jobs</title></rect>'
                       f'<text class="cell{" dark" if dark else ""}" x="{x + (cw - 2) / 2}" '
                       f'y="{y + ch / 2 + 3:.0f}" text-anchor="middle">{v:.1f} '
                       f'<tspan class="n">({n})</tspan></text>')
    for j, col in enumerate(cols):
        out.append(f'<text class="tick" x="{left + j * cw + (cw - 2) / 2}" y="{top + ch * len(rows) + 16}" '
                   f'text-anchor="middle">{escape(col)}</text>')
    out.append(f'<text class="axis-label" x="{left + cw * len(cols) / 2:.0f}" y="{height - 6}" '
               f'text-anchor="middle">{escape(col_label)}</text>')
    out.append(f'<text class="axis-label" transform="translate(14 {top + ch * len(rows) / 2:.0f}) '
               f'rotate(-90)" text-anchor="middle">{escape(row_label)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def scatter_chart(title: str, ylabel: str, series: Sequence[tuple[str, Sequence[tuple[int, int]]]],
                  xlabel: str = "real wait (log scale)") -> str:
    """Points (x a wait in seconds, on a log axis; y a signed duration in seconds) of each
    series, y clipped to the 2nd-98th percentile of all points (those beyond are drawn on the
    edge), with a line at y = 0."""
    ys = sorted(y for _n, pts in series for _x, y in pts)
    lo = min(ys[len(ys) * 2 // 100], 0) if ys else -1
    hi = max(ys[min(len(ys) - 1, len(ys) * 98 // 100)], 0) if ys else 1
    lo, hi = (lo, hi) if hi > lo else (lo - 1, hi + 1)
    top = max((x for _n, pts in series for x, _y in pts), default=10)
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def px(w: float) -> float:
        return LEFT + math.log10(max(w, 1)) / math.log10(max(top, 10)) * pw

    def py(v: float) -> float:
        return TOP + ph - (min(max(v, lo), hi) - lo) / (hi - lo) * ph
    xt = [(px(t), short_duration(t)) for t in LOG_TICKS if t <= max(top, 10)]
    yt = [(py(v), short_duration(v)) for v in _nice_ticks(lo, hi)]
    body = _axes(xt, yt)
    body.append(f'<line x1="{LEFT}" y1="{py(0):.1f}" x2="{W - RIGHT}" y2="{py(0):.1f}" stroke="#111" '
                'stroke-width="1"/>')
    for k, (_name, pts) in enumerate(series):
        body.append(f'<g fill="{color(k)}" fill-opacity="0.45">' + "".join(
            f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2"/>' for x, y in pts) + "</g>")
    body.append(f'<text class="axis-label" x="{LEFT + pw / 2:.0f}" y="{H - 6}" text-anchor="middle">'
                f'{escape(xlabel)}</text>')
    return _frame(title, ylabel, body, [(n, color(k)) for k, (n, _p) in enumerate(series)])
