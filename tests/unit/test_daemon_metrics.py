"""mauid's Prometheus metrics (maui_py/daemon/metrics.py): what a real cycle result turns
into, the resource-manager call counters, the snapshot age, the textfile and the HTTP
endpoint, and a Daemon (fake resource manager) writing METRICSFILE."""

from __future__ import annotations

import os
import socket
import urllib.error
import urllib.request
from collections import Counter

import pytest
from prometheus_client.parser import text_string_to_metric_families

from maui_py.core.cycle import run_cycle
from maui_py.daemon.metrics import (MAX_FS_SERIES, CycleTimes, DaemonMetrics, Exporter, ExportSettings,
                                    Outcome, fairshare_usage)
from maui_py.model import Defer, HoldType, Start
from tests.scenarios.build import cluster, config, job, snapshot
from tests.unit.test_daemon import FakeRM, home, make  # noqa: F401  (home: a fixture)

CFG = "FSPOLICY DEDICATEDPS\nFSINTERVAL 10000\nBACKFILLPOLICY FIRSTFIT\nRESERVATIONDEPTH 1\nDEFERTIME 00:10:00\n"


def samples(text: str | bytes) -> dict[tuple, float]:
    """{(sample name, sorted label pairs): value} of an exposition."""
    if isinstance(text, bytes):
        text = text.decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for fam in text_string_to_metric_families(text) for s in fam.samples}


def value(s: dict, metric: str, /, **labels) -> float:
    return s[(metric, tuple(sorted(labels.items())))]


def two_cycles():
    """r1 runs on n0-n1 (user a); at t=10: i1 starts at once, `wide` gets a reservation,
    bf backfills, `held` is held, `huge` (wider than the cluster) is deferred."""
    cfg = config(CFG)
    nodes = cluster(4)
    r1 = job("r1", 2, 100, 0, user="a", start=0, nodes=("n0", "n1"))
    r = run_cycle(snapshot(0, nodes, [r1]), cfg)
    jobs = [r1, job("i1", 1, 50, 1, user="b"), job("wide", 4, 50, 2, user="b"), job("bf", 1, 30, 3, user="c"),
            job("held", 1, 30, 4, user="c", holds=(HoldType.USER,)), job("huge", 100, 30, 5, user="c")]
    snap = snapshot(10, nodes, jobs)
    return run_cycle(snap, cfg, r.state), snap


def test_a_cycle_result_becomes_job_start_reservation_and_fair_share_metrics():
    result, snap = two_cycles()
    m = DaemonMetrics(clock=lambda: 1000.0)
    m.cycle_done(result, snap, result.decisions, [], CycleTimes(0.25, 0.5, 0.125, 2.0))
    s = samples(m.render())
    kinds = Counter(d.kind.value.lower() for d in result.decisions if isinstance(d, Start))
    assert kinds == {"immediate": 1, "backfill": 1}
    for kind in ("immediate", "reserved", "backfill"):
        assert value(s, "maui_starts_total", kind=kind) == kinds.get(kind, 0)
    assert value(s, "maui_jobs", state="running") == 1 and value(s, "maui_jobs", state="idle") == 5
    assert value(s, "maui_jobs", state="completed") == 0
    assert {st: value(s, "maui_queue_jobs", status=st) for st in ("started", "reserved", "held", "deferred",
                                                                   "running", "waiting")} == \
        {"started": 2, "reserved": 1, "held": 1, "deferred": 1, "running": 1, "waiting": 0}
    assert value(s, "maui_reservations", type="job") == 1 and value(s, "maui_reservations", type="standing") == 0
    assert value(s, "maui_deferrals_total") == sum(isinstance(d, Defer) for d in result.decisions) == 1
    assert value(s, "maui_iteration") == result.iteration == 2
    assert value(s, "maui_cycle_last_part_seconds", part="push") == 2.0
    assert value(s, "maui_cycle_part_seconds_sum", part="schedule") == 0.5
    assert value(s, "maui_cycle_part_seconds_bucket", part="schedule", le="0.25") == 0
    assert value(s, "maui_cycle_part_seconds_bucket", part="schedule", le="0.5") == 1
    # r1: 2 processors x 10 s, all of the system's usage
    assert value(s, "maui_fairshare_usage", credential="user", name="a") == 20.0
    assert value(s, "maui_fairshare_usage_percent", credential="user", name="a") == 100.0
    assert value(s, "maui_fairshare_system_usage") == 20.0
    assert ("maui_fairshare_usage", (("credential", "user"), ("name", "b"))) not in s


def test_refused_starts_holds_and_a_second_cycle_add_up():
    result, snap = two_cycles()
    m = DaemonMetrics()
    m.cycle_done(result, snap, result.decisions, ["i1"], CycleTimes(0, 0, 0, 0))
    m.cycle_done(result, snap, result.decisions + [Start("x", (), result.starts()[0].kind)], [],
                 CycleTimes(0, 0, 0, 0))
    s = samples(m.render())
    assert value(s, "maui_starts_total", kind="immediate") == 3
    assert value(s, "maui_start_failures_total") == 1
    assert value(s, "maui_deferrals_total") == 2
    assert value(s, "maui_jobs", state="idle") == 5              # a gauge: set, not added


def test_rm_calls_cycles_and_the_snapshot_age():
    now = [1000.0]
    m = DaemonMetrics(clock=lambda: now[0])
    now[0] = 1030.0
    assert value(samples(m.render()), "maui_snapshot_age_seconds") == 30.0     # since start, before any
    m.rm_call("snapshot", 0.2, True)
    now[0] = 1042.5
    m.rm_call("snapshot", 1.5, False)
    m.rm_call("snapshot", None, False)                           # busy: never ran
    m.rm_call("apply", 0.3, True)
    m.cycle_end(Outcome.OK, 0.4)
    m.cycle_end(Outcome.RM_ERROR, 1.6)
    m.cycle_end(Outcome.RM_ERROR, 0.0)
    s = samples(m.render())
    assert value(s, "maui_snapshot_age_seconds") == 12.5
    assert value(s, "maui_snapshot_timestamp_seconds") == 1030.0
    assert value(s, "maui_rm_up") == 0
    assert value(s, "maui_rm_call_failures_total", call="snapshot") == 2
    assert value(s, "maui_rm_call_failures_total", call="apply") == 0
    assert value(s, "maui_rm_call_seconds_count", call="snapshot") == 2
    assert value(s, "maui_rm_call_seconds_sum", call="snapshot") == 1.7
    assert value(s, "maui_cycles_total", outcome="rm_error") == 2
    assert value(s, "maui_cycles_total", outcome="ok") == 1 and value(s, "maui_cycles_total", outcome="failed") == 0
    assert value(s, "maui_cycle_seconds_count") == 3


def test_two_daemons_in_one_process_keep_their_own_metrics():
    a, b = DaemonMetrics(), DaemonMetrics()
    a.cycle_end(Outcome.OK, 0.1)
    assert value(samples(a.render()), "maui_cycles_total", outcome="ok") == 1
    assert value(samples(b.render()), "maui_cycles_total", outcome="ok") == 0


def test_fair_share_export_is_bounded_and_off_without_fair_share():
    result, _ = two_cycles()
    fs = result.state.queue_policy.fs
    window = fs.windows[fs.last // fs.interval]
    for k in range(MAX_FS_SERIES + 10):
        window[f"user:u{k:05d}"] = float(k)
    m = DaemonMetrics()
    m._fairshare(result.state.queue_policy)
    s = samples(m.render())
    users = [labels for (name, labels) in s if name == "maui_fairshare_usage"]
    assert len(users) == MAX_FS_SERIES
    assert (("credential", "user"), ("name", f"u{MAX_FS_SERIES + 9:05d}")) in users      # the most used kept
    assert (("credential", "user"), ("name", "u00000")) not in users
    cfg = config("")
    off = run_cycle(snapshot(0, cluster(1), [job("a", 1, 10, user="a", start=0, nodes=("n0",))]), cfg)
    assert fairshare_usage(off.state.queue_policy) == (0.0, [])


def test_the_textfile_is_replaced_whole(tmp_path):
    m = DaemonMetrics()
    ex = Exporter(m)
    path = tmp_path / "mauid.prom"
    ex.configure(ExportSettings(textfile=path))
    m.cycle_end(Outcome.OK, 0.1)
    ex.after_cycle()
    first = path.stat().st_ino
    m.cycle_end(Outcome.OK, 0.1)
    ex.after_cycle()
    assert value(samples(path.read_text()), "maui_cycles_total", outcome="ok") == 2
    assert path.stat().st_ino != first                           # a new file renamed over the old one
    assert os.listdir(tmp_path) == ["mauid.prom"]                 # no temporary file left behind


def test_an_unwritable_textfile_is_logged_once(tmp_path, caplog):
    ex = Exporter(DaemonMetrics())
    ex.configure(ExportSettings(textfile=tmp_path / "missing" / "mauid.prom"))
    ex.after_cycle()
    ex.after_cycle()
    assert len([r for r in caplog.records if "cannot write" in r.getMessage()]) == 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        return samples(r.read())


def test_the_http_endpoint_serves_moves_with_the_port_and_stops():
    m = DaemonMetrics()
    ex = Exporter(m)
    p1, p2 = free_port(), free_port()
    ex.configure(ExportSettings(port=p1))
    m.cycle_end(Outcome.FAILED, 0.1)
    assert value(scrape(p1), "maui_cycles_total", outcome="failed") == 1
    ex.configure(ExportSettings(port=p2))
    assert value(scrape(p2), "maui_cycles_total", outcome="failed") == 1
    with pytest.raises(urllib.error.URLError):
        scrape(p1)
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)      # p1 is in TIME_WAIT
        taken.bind(("127.0.0.1", p1))
        taken.listen()
        with pytest.raises(OSError):
            ex.configure(ExportSettings(port=p1))
    assert value(scrape(p2), "maui_cycles_total", outcome="failed") == 1     # kept the one it had
    ex.close()
    with pytest.raises(urllib.error.URLError):
        scrape(p2)


def test_the_daemon_writes_metricsfile_after_each_cycle(home):
    (home / "maui.cfg").write_text((home / "maui.cfg").read_text() + "METRICSFILE metrics/mauid.prom\n")
    (home / "metrics").mkdir()
    rm = FakeRM(jobs=3)
    d = make(home, rm)
    assert d.run(once=True, install_signals=False) == 0
    s = samples((home / "metrics" / "mauid.prom").read_text())
    pushed = [x for batch in rm.applied for x in batch if isinstance(x, Start)]
    assert len(pushed) == 3
    assert sum(value(s, "maui_starts_total", kind=k) for k in ("immediate", "reserved", "backfill")) == 3
    assert value(s, "maui_cycles_total", outcome="ok") == 1
    assert value(s, "maui_rm_call_seconds_count", call="snapshot") == 1
    assert value(s, "maui_rm_call_seconds_count", call="apply") == 1
    assert value(s, "maui_jobs", state="idle") == 3 and value(s, "maui_rm_up") == 1
    assert value(s, "maui_snapshot_age_seconds") < 5


def test_a_daemon_whose_resource_manager_fails_counts_it(home):
    (home / "maui.cfg").write_text((home / "maui.cfg").read_text() + "METRICSFILE mauid.prom\n")
    rm = FakeRM()
    rm.mode = "error"
    assert make(home, rm).run(once=True, install_signals=False) == 1
    s = samples((home / "mauid.prom").read_text())
    assert value(s, "maui_cycles_total", outcome="rm_error") == 1
    assert value(s, "maui_rm_call_failures_total", call="snapshot") == 1
    assert value(s, "maui_rm_up") == 0


def test_a_metrics_port_in_use_stops_mauid_at_start(home):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        (home / "maui.cfg").write_text((home / "maui.cfg").read_text() + f"METRICSPORT {port}\n")
        d = make(home, FakeRM())
        with pytest.raises(OSError):
            d.run(once=True, install_signals=False)
    assert not (home / "maui-py.db.sock").exists()                # nothing left running
    assert make(home, FakeRM()).run(once=True, install_signals=False) == 0    # the lock was released
