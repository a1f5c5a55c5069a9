"""The report's numbers (per size, per user, the time series, the slowdown grid) and its SVG."""

import xml.etree.ElementTree as ET

import pytest

from maui_py.cfg import SchedulerConfig
from maui_py.cli.simulate import load_workload
from maui_py.sim import plots
from maui_py.sim.engine import Simulation
from maui_py.sim.report import config_settings
from maui_py.sim.metrics import (LENGTH_BUCKETS, binned_series, length_bucket, size_bucket,
                                 slowdown_grid, smooth, summarize, wait_cdf)

from .small_trace import write_trace


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    import argparse
    trace = write_trace(tmp_path_factory.mktemp("trace") / "small.swf")
    args = argparse.Namespace(machine_procs=32, synthetic=0, seed=1, no_clean=False,
                              estimates="requested", processors="allocated", load=None, jobs=None,
                              nodes=None)
    w = load_workload(args, str(trace))
    return Simulation(w.nodes, w.jobs, SchedulerConfig.default()).run()


def test_size_and_length_buckets():
    assert [size_bucket(p)[1] for p in (1, 2, 3, 4, 5, 8, 9, 100)] == \
        ["1", "2", "3-4", "3-4", "5-8", "5-8", "9-16", "65-128"]
    assert size_bucket(3)[0] < size_bucket(5)[0]
    assert [length_bucket(s) for s in (0, 599, 600, 3599, 3600, 86399, 86400, 10**9)] == [0, 0, 1, 1, 2, 4, 5, 5]


def test_every_job_is_in_one_size_group_and_one_user_group(replay):
    s = summarize(replay.records, 32)
    assert sum(f.jobs for f in s.by_size.values()) == s.total.jobs == 240
    assert sum(f.jobs for f in s.by_user.values()) == 240 and len(s.by_user) == 6
    assert sum(f.work for f in s.by_user.values()) == s.total.work > 0
    assert list(s.by_size) == ["1", "2", "3-4", "5-8", "9-16", "17-32"]


def test_the_grid_counts_every_finished_job_and_means_match(replay):
    g = slowdown_grid(replay.records.values())
    assert sum(map(sum, g.count)) == 240 and len(g.lengths) == len(LENGTH_BUCKETS)
    total = summarize(replay.records, 32).total
    weighted = sum(m * n for row_m, row_n in zip(g.mean, g.count) for m, n in zip(row_m, row_n) if m)
    assert weighted / 240 == pytest.approx(total.bsld_mean)


def test_binned_utilization_averages_to_the_total(replay):
    t, util, queue = binned_series(replay.records.values(), 32, 50)
    assert len(t) == len(util) == len(queue) == 50 and t == sorted(t)
    total = summarize(replay.records, 32).total
    assert sum(util) / len(util) == pytest.approx(total.utilization, rel=1e-9)
    assert all(0 <= u <= 1 + 1e-9 for u in util) and min(queue) >= 0


def test_smoothing_keeps_a_constant_and_its_mean():
    assert smooth([3.0] * 7, 5) == [3.0] * 7
    assert smooth([0, 0, 9, 0, 0], 3) == [0, 3, 3, 3, 0]


def test_the_wait_cdf_ends_at_the_longest_wait(replay):
    cdf = wait_cdf(replay.records.values(), points=20)
    waits = [r.start - r.job.submit_time for r in replay.records.values()]
    assert len(cdf) <= 21 and cdf[-1] == (max(waits), 1.0)
    assert [f for _w, f in cdf] == sorted(f for _w, f in cdf)


def test_the_charts_are_well_formed_svg_and_escape_labels():
    evil = '<script>alert("x")</script>'
    charts = [plots.line_chart("u", "busy", [(evil, [0, 10, 20], [0.1, 0.5, 0.9])], str, y_max=1),
              plots.cdf_chart("w", [(evil, [(0, 0.5), (60, 0.75), (86400, 1.0)])]),
              plots.heatmap("h", ["1", "2"], ["a", "b"], [[1.0, None], [50.0, 2.0]], [[3, 0], [1, 4]],
                            "size", "runtime")]
    for svg in charts:
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg") and "<script" not in svg
    heat = ET.fromstring(charts[2])
    fills = [r.get("fill") for r in heat.iter("{http://www.w3.org/2000/svg}rect") if r.get("fill")]
    assert fills[0] == "#ffffff" and fills[1] == "#991b1b"        # 1.0 lightest, the max darkest
    assert plots.cdf_chart("empty", []).startswith("<svg") and plots.line_chart("e", "y", [], str)


def test_config_settings_for_the_side_by_side_table():
    text = ("# comment\nRESERVATIONDEPTH\t2   # EASY-ish\nRESERVATIONDEPTH 4\n"
            "CLASSCFG[batch]  PRIORITY=0 \\\n   MAXPROC=256\nSRCFG[m] STARTTIME=02:00:00\n"
            "SRCFG[m] HOSTLIST=node4\nBACKFILLPOLICY\n")
    assert config_settings(text) == {"RESERVATIONDEPTH": "4",
                                     "CLASSCFG[batch]": "PRIORITY=0 MAXPROC=256",
                                     "SRCFG[m]": "STARTTIME=02:00:00 HOSTLIST=node4",
                                     "BACKFILLPOLICY": ""}
