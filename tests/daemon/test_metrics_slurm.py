"""mauid's Prometheus endpoint, scraped over HTTP while mauid drives the real Slurm.

A wide job waits on a priority reservation while small ones start at once or backfill;
the scrapes must agree with what the journal and Slurm say happened: starts by kind, no
failure, cycles counted as they run, a fresh snapshot, fair-share usage charged.
"""

from __future__ import annotations

import socket
import time
import urllib.request
from collections import Counter

import pytest
from prometheus_client.parser import text_string_to_metric_families

from .harness import MauidProcess, SlurmWatch, final_jobs, journal, wait_for, write_config

pytestmark = pytest.mark.slurm

EXTRA = """\
RESERVATIONDEPTH   1
BACKFILLPOLICY     FIRSTFIT
FSPOLICY           DEDICATEDPS
FSINTERVAL         01:00:00
METRICSPORT        {port}
METRICSFILE        mauid.prom
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse(text: str) -> dict[tuple, float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for fam in text_string_to_metric_families(text) for s in fam.samples}


def scrape(port: int) -> dict[tuple, float] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
            return parse(r.read().decode())
    except OSError:
        return None


def get(s: dict, metric: str, /, **labels) -> float:
    return s[(metric, tuple(sorted(labels.items())))]


def by_prefix(s: dict, metric: str) -> dict[tuple, float]:
    return {labels: v for (name, labels), v in s.items() if name == metric}


def test_metrics_scraped_during_a_live_run_match_what_happened(slurm, tmp_path):
    port = free_port()
    cfg = write_config(tmp_path, slurm, EXTRA.format(port=port))
    # two 8-CPU jobs hold two nodes for 8 s (3 minutes asked); the wide one (8 CPUs on each of the
    # 4 nodes) gets a reservation after them; the 1-minute small ones backfill before it
    longs = [slurm.submit(["-N", "1", "-n", "8", "-t", "3"], script="sleep 8") for _ in range(2)]
    running_seen = 0
    with SlurmWatch(slurm) as watch:
        mauid = MauidProcess(cfg)
        try:
            first = wait_for(lambda: (s := scrape(port)) and get(s, "maui_cycles_total", outcome="ok") >= 1 and s,
                             20, "a first scrape after a cycle")
            wait_for(lambda: all(j in watch.seen for j in longs), 20, "the long jobs running")
            wide = slurm.submit(["-N", "4", "--ntasks-per-node=8", "-t", "1"], script="sleep 1")
            small = [slurm.submit(["-n", "1", "-t", "1"], script="sleep 2") for _ in range(6)]
            ids = longs + [wide] + small

            def finished():
                nonlocal running_seen
                s = scrape(port)
                if s:
                    running_seen = max(running_seen, int(get(s, "maui_jobs", state="running")))
                return all(j in watch.seen for j in ids) and not slurm.squeue()

            wait_for(finished, 90, "every job to run and finish", period=0.3)
            time.sleep(2.5)                                   # a cycle or two on the empty queue
            last = scrape(port)
            assert last is not None
        finally:
            assert mauid.stop() == 0
    entries = journal(tmp_path)
    starts = [e for e in entries if e.event == "start"]
    assert sorted(e.job_id for e in starts) == sorted(ids)       # each job started once
    assert all(final_jobs(slurm)[j]["JobState"] == "COMPLETED" for j in ids)
    kinds = Counter(e.detail["kind"].lower() for e in starts)
    assert kinds["backfill"] >= 1, kinds
    assert {k: get(last, "maui_starts_total", kind=k) for k in ("immediate", "reserved", "backfill")} == \
        {k: kinds.get(k, 0) for k in ("immediate", "reserved", "backfill")}
    assert get(last, "maui_start_failures_total") == 0
    assert get(last, "maui_reservations", type="job") == 0       # the queue is empty now
    # cycles are counted as they run: 1 per second (RMPOLLINTERVAL) for the whole run
    ok_first, ok_last = get(first, "maui_cycles_total", outcome="ok"), get(last, "maui_cycles_total", outcome="ok")
    assert ok_last >= ok_first + 5, (ok_first, ok_last)
    assert get(last, "maui_cycles_total", outcome="rm_error") == 0
    assert get(last, "maui_cycle_part_seconds_count", part="schedule") == ok_last
    assert get(last, "maui_rm_call_seconds_count", call="snapshot") >= ok_last
    assert get(last, "maui_rm_call_failures_total", call="snapshot") == 0
    assert get(last, "maui_rm_call_seconds_count", call="apply") >= 1
    assert 0 <= get(last, "maui_snapshot_age_seconds") < 3         # RMPOLLINTERVAL is 1 s
    assert get(last, "maui_rm_up") == 1
    assert 1 <= running_seen <= len(ids) - 1, running_seen        # the wide job runs alone
    assert get(last, "maui_jobs", state="running") == 0 and get(last, "maui_jobs", state="idle") == 0
    # every job ran as the test's user: one credential with all of the usage, at least what the
    # long jobs used (2 x 8 CPUs x ~8 s)
    users = by_prefix(last, "maui_fairshare_usage_percent")
    assert len([lb for lb in users if ("credential", "user") in lb]) == 1, users
    assert [v for lb, v in users.items() if ("credential", "user") in lb] == [pytest.approx(100.0)]
    assert get(last, "maui_fairshare_system_usage") >= 2 * 8 * 6
    textfile = parse((tmp_path / "mauid.prom").read_text())
    assert get(textfile, "maui_cycles_total", outcome="ok") >= ok_last
