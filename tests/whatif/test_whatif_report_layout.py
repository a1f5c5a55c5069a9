"""The what-if report as a person reads it (issue 35 item 6), checked on the SVG and HTML
geometry the page is drawn from: no label over another or outside its picture, real dates on
the time axis, job sizes in numeric order with the simulator report's groups, tables that fit
a 1,400 px window, and the users the change affects most first with the rest behind
<details>. (benchmarks/render_report.py shows the same page in a real browser.)"""

from __future__ import annotations

import re
from datetime import datetime, timezone
import xml.etree.ElementTree as ET
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from maui_py.sim import plots
from maui_py.sim.metrics import size_bucket
from maui_py.sim.whatif import ConfigVariant, analyse, make_plan
from maui_py.sim.whatif_report import interval_chart, render_html, sweep_heatmap
from maui_py.sim.whatif_runner import run_local

from .workloads import busy_workload

ROOT = Path(__file__).resolve().parents[2]
EASY = (ROOT / "config" / "easy.cfg").read_text()
SVG = "{http://www.w3.org/2000/svg}"
WINDOW_PX = 1400
TOP_USERS = 15
"""Users a comparison shows before its <details> element."""


def text_width(text: str, size: float = 11, bold: bool = False) -> float:
    """The test's own estimate of a label's width (DejaVu Sans-like proportions: capitals
    0.72 em, narrow letters and punctuation 0.32, others 0.58; bold 5 % wider)."""
    em = sum(0.32 if c in " .,:;'|!ijlIft()[]-" else 0.72 if c.isupper() else 0.58 for c in text)
    return em * size * (1.05 if bold else 1.0)


@pytest.fixture(scope="module")
def data():
    w = busy_workload(160)
    sizes = (1, 2, 3, 8, 12, 16, 24, 32)
    w.jobs = [replace(j, user=f"user{k % 24}", procs=sizes[k % len(sizes)]) for k, j in enumerate(w.jobs)]
    variants = [ConfigVariant("config/easy.cfg", EASY),
                ConfigVariant("RESERVATIONDEPTH=1 BACKFILLPOLICY=BESTFIT",
                              EASY + "\nRESERVATIONDEPTH 1\nBACKFILLPOLICY BESTFIT\n",
                              (("RESERVATIONDEPTH", "1"), ("BACKFILLPOLICY", "BESTFIT"))),
                ConfigVariant("RESERVATIONDEPTH=4 BACKFILLPOLICY=BESTFIT",
                              EASY + "\nRESERVATIONDEPTH 4\nBACKFILLPOLICY BESTFIT\n",
                              (("RESERVATIONDEPTH", "4"), ("BACKFILLPOLICY", "BESTFIT")))]
    plan = make_plan(w, variants, shakes=2, seed=2)
    return analyse(plan, run_local(plan, 1))


def _boxes(svg: str) -> tuple[float, float, list[tuple[str, str, float, float, float, float]]]:
    """(width, height, [(class, text, x0, y0, x1, y1)]) of every text of an SVG: x from its
    anchor and text_width, y a line of its font size above the baseline."""
    root = ET.fromstring(svg)
    _x, _y, w, h = (float(v) for v in root.get("viewBox").split())
    out = []
    for t in root.iter(SVG + "text"):
        if t.get("transform"):                      # the rotated y-axis label
            continue
        cls, text = t.get("class", ""), "".join(t.itertext())
        size = 13 if cls == "title" else 11
        width = text_width(text, size, bold=cls == "title")
        x, y = float(t.get("x")), float(t.get("y"))
        x0 = {"start": x, "middle": x - width / 2, "end": x - width}[t.get("text-anchor", "start")]
        out.append((cls, text, x0, y - size, x0 + width, y + 2))
    return w, h, out


def _overlap(a, b) -> bool:
    return a[2] < b[4] and b[2] < a[4] and a[3] < b[5] and b[3] < a[5]


def _inside(w: float, h: float, box) -> bool:
    return 0 <= box[2] and box[4] <= w and 0 <= box[3] and box[5] <= h


def test_a_line_charts_legend_never_covers_its_title(data):
    names = [c["name"] for c in data["configs"]]
    for series_names in (names, ["a", "b"], names + ["x" * 60]):
        series = [(n, [0, 100, 200], [0.2, 0.5, 0.4]) for n in series_names]
        w, h, boxes = _boxes(plots.line_chart("busy processors (mean over shakes)", "busy share",
                                              series, str, y_max=1.0))
        title = next(b for b in boxes if b[0] == "title")
        legend = [b for b in boxes if b[0] == "legend"]
        assert len(legend) == len(series_names)
        for k, box in enumerate(legend):
            assert not _overlap(title, box), (title, box)
            assert _inside(w, h, box), box
            assert not any(_overlap(box, other) for other in legend[k + 1:]), box


def test_interval_and_sweep_labels_stay_inside_their_pictures(data):
    comp = data["comparisons"][0]
    rows = sorted(comp["groups"]["user"].items())
    long = [(f"a-very-long-user-name-{k}-of-this-site", row["wait"]) for k, (_u, row) in enumerate(rows)]
    wide = [("u", {"diff": -5863.0, "lo": -9000.0, "hi": -200.0, "within_noise": False}),
            ("v", {"diff": 5863.0, "lo": 200.0, "hi": 9000.0, "within_noise": False})]
    for svg in (interval_chart("change of mean wait per user", long),
                interval_chart("change of mean wait per user", wide), sweep_heatmap(data)):
        w, h, boxes = _boxes(svg)
        for box in boxes:
            assert _inside(w, h, box), box
        ticks = [b for b in boxes if b[0] == "tick" and b[3] > h - 30]
        assert not any(_overlap(a, b) for i, a in enumerate(ticks) for b in ticks[i + 1:]), ticks


def test_the_time_axis_shows_the_logs_dates(data):
    html = render_html(data)
    chart = html.split("<h2>Utilisation over time</h2>", 1)[1].split("</svg>", 1)[0] + "</svg>"
    ticks = [b[1] for b in _boxes(chart)[2] if b[0] == "tick" and not b[1].endswith("%")]
    assert len(ticks) == 6 and all(re.fullmatch(r"\d\d-\d\d \d\d:\d\d", t) for t in ticks), ticks
    first = min(t["start"] for t in data["timelines"])          # epoch seconds of the log
    assert ticks[0] == datetime.fromtimestamp(first, timezone.utc).strftime("%m-%d %H:%M")
    undated = render_html({**data, "dates": ""})
    chart = undated.split("<h2>Utilisation over time</h2>", 1)[1].split("</svg>", 1)[0] + "</svg>"
    ticks = [b[1] for b in _boxes(chart)[2] if b[0] == "tick" and not b[1].endswith("%")]
    assert ticks[0] == "day 1 00:00" and all(t.startswith("day ") for t in ticks)


class _Tables(HTMLParser):
    """Each table's rows of cell texts (lines kept), and whether it is inside <details>."""

    def __init__(self):
        super().__init__()
        self.tables, self.details, self.cell = [], 0, None

    def handle_starttag(self, tag, attrs):
        if tag == "details":
            self.details += 1
        elif tag == "table":
            self.tables.append({"hidden": self.details > 0, "rows": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th"):
            self.cell = [""]
        elif tag in ("br", "small") and self.cell is not None:
            self.cell.append("")

    def handle_endtag(self, tag):
        if tag == "details":
            self.details -= 1
        elif tag in ("td", "th") and self.cell is not None:
            self.tables[-1]["rows"][-1].append([line.strip() for line in self.cell if line.strip()])
            self.cell = None

    def handle_data(self, text):
        if self.cell is not None:
            self.cell[-1] += text


def _tables(html: str) -> list[dict]:
    p = _Tables()
    p.feed(html)
    return p.tables


def test_job_sizes_read_in_numeric_order_in_the_simulator_reports_groups(data):
    size_tables = [t for t in _tables(render_html(data)) if t["rows"][0][0] == ["size"]]
    assert size_tables
    for t in size_tables:
        names = [row[0][0] for row in t["rows"][1:]]
        assert names == ["1", "2", "3-4", "5-8", "9-16", "17-32"]
        assert names == [size_bucket(p)[1] for p in (1, 2, 3, 8, 12, 32)]


def _content_px(html: str) -> float:
    """The width a table has in a section at WINDOW_PX: main's max-width (the page's last
    rule for it) less main's and the section's padding and border."""
    widths = re.findall(r"main\s*\{[^}]*max-width:\s*(\d+)px", html)
    return min(WINDOW_PX, int(widths[-1])) - 2 * 32 - 2 * 20 - 2


def test_every_table_fits_a_1400_px_window(data):
    html = render_html(data)
    content = _content_px(html)
    for t in _tables(html):
        columns = max(len(r) for r in t["rows"])
        width = sum(max(max((text_width(line, 14) for line in cell), default=0)
                        for cell in (r[c] for r in t["rows"] if c < len(r))) + 2 * 8
                    for c in range(columns))
        assert width <= content, (width, content, t["rows"][0])


def test_the_users_most_affected_come_first_and_the_rest_are_behind_details(data):
    html = render_html(data)
    section = html.split("<h2>RESERVATIONDEPTH=4", 1)[1].split("</section>", 1)[0]
    shown = [t for t in _tables(section) if t["rows"][0][0] == ["user"] and not t["hidden"]]
    hidden = [t for t in _tables(section) if t["rows"][0][0] == ["user"] and t["hidden"]]
    assert len(shown) == 1 and len(hidden) == 1
    assert len(shown[0]["rows"]) - 1 == TOP_USERS and len(hidden[0]["rows"]) - 1 == 24
    rows = data["comparisons"][1]["groups"]["user"]
    order = [r[0][0] for r in shown[0]["rows"][1:]]
    key = [(rows[u]["wait"]["within_noise"], -abs(rows[u]["wait"]["diff"])) for u in order]
    assert key == sorted(key)
    rest = set(rows) - set(order)
    assert all((rows[u]["wait"]["within_noise"], -abs(rows[u]["wait"]["diff"])) >= key[-1] for u in rest)
    assert len(html) < 120_000


def test_a_tiny_share_change_is_not_shown_as_zero_marked_better_or_worse(data):
    from maui_py.sim.whatif_report import FORMATS
    assert [FORMATS["share"](v) for v in (0.0, 0.25, 0.00004, -0.0004)] == [
        "0.0 %", "25.0 %", "0.004 %", "-0.040 %"]
    marked = re.findall(r'<td class="(?:better|worse) ci">([^<]*)<', render_html(data))
    assert marked and not [m for m in marked if re.fullmatch(r"-?0\.0 %", m.strip())]


def test_a_config_that_changes_nothing_says_so_in_one_line_without_tables(data):
    same = analyse(*_same_plan_and_runs())
    html = render_html(same)
    section = html.split("<h2>copy", 1)[1].split("</section>", 1)[0]
    assert "Nothing changes" in section
    assert len(_tables(section)) == 1 and "<svg" not in section      # the totals only


def _same_plan_and_runs():
    plan = make_plan(busy_workload(60), [ConfigVariant("easy", EASY), ConfigVariant("copy", EASY)],
                     shakes=2, seed=2)
    return plan, run_local(plan, 1)
