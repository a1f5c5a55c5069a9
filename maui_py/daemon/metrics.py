"""mauid's Prometheus metrics: what each cycle did, how long it took, how the resource
manager answers, and fair-share usage; served over HTTP (METRICSPORT) and/or written to a
textfile for node_exporter's textfile collector (METRICSFILE).

The loop hands DaemonMetrics what a cycle returned (the CycleResult, the snapshot, the
decisions pushed and the starts refused, the part timings) and each resource-manager call's
latency, and the forecasts' tracked accuracy the loop read (forecast_accuracy); nothing here
reads the store or the resource manager. Every metric lives in a
private CollectorRegistry (no process-global state: two daemons in one test process do not
mix). Names and labels are listed in docs/operations.md ("Metrics").
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Callable, Iterable, Sequence

from prometheus_client import (CollectorRegistry, Counter, Gauge, Histogram, generate_latest,
                               start_http_server, write_to_textfile)

from ..model import ClusterSnapshot, Defer, Hold, JobState, ReservationKind, Start, StartKind
from ..model.report import ReportStatus
from ..priority.fairshare import SYSTEM

log = logging.getLogger("maui_py.daemon")

PARTS = ("snapshot", "schedule", "save", "push")
RM_CALLS = ("snapshot", "apply")
STATUSES = tuple(ReportStatus)
"""JobReport.status values (maui_py/model/report.py)."""
SECONDS_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
MAX_FS_SERIES = 5000
"""At most this many fair-share credentials are exported (the most used; ties by name), so
a site with a huge user list does not blow up the scrape."""


class Outcome(str, Enum):
    OK = "ok"
    RM_ERROR = "rm_error"      # the resource manager failed or hung: no cycle on it
    FAILED = "failed"          # the cycle raised or could not be saved


@dataclass(frozen=True, slots=True)
class CycleTimes:
    snapshot: float
    schedule: float
    save: float
    push: float


def fairshare_usage(policy) -> tuple[float, list[tuple[str, str, float, float]]]:
    """(system usage, [(credential kind, name, decayed usage, percent of system)]) from a
    queue policy's fair share, the most used first; (0, []) when fair share is off.
    Usage is in processor-seconds (FSPOLICY DEDICATEDPS) or processor-equivalent-seconds."""
    fs = getattr(policy, "fs", None)
    if fs is None or not fs.enabled or fs.last is None:
        return 0.0, []
    cur = fs.last // fs.interval
    keys: set[str] = set()
    for k in range(cur - fs.depth + 1, cur + 1):
        keys.update(fs.windows.get(k, ()))
    keys.discard(SYSTEM)
    total = fs.usage(SYSTEM)
    rows = []
    for key in keys:
        kind, _, name = key.partition(":")
        used = fs.usage(key)
        rows.append((kind, name, used, 100.0 * used / total if total > 0 else 0.0))
    rows.sort(key=lambda r: (-r[2], r[0], r[1]))
    return total, rows


class DaemonMetrics:
    """The metrics of one mauid; `clock` is the daemon's wall clock (snapshot age)."""

    def __init__(self, clock: Callable[[], float] = time.time):
        self.clock = clock
        self.registry = r = CollectorRegistry()
        self._started = clock()
        self._last_snapshot: float | None = None
        self.cycles = Counter("maui_cycles", "scheduling cycles run, by outcome", ["outcome"], registry=r)
        self.iteration = Gauge("maui_iteration", "the scheduler's iteration number (survives restarts)",
                               registry=r)
        self.cycle_seconds = Histogram("maui_cycle_seconds", "wall time of a whole cycle",
                                       buckets=SECONDS_BUCKETS, registry=r)
        self.part_seconds = Histogram("maui_cycle_part_seconds", "wall time of each part of a cycle that ran",
                                      ["part"], buckets=SECONDS_BUCKETS, registry=r)
        self.last_part = Gauge("maui_cycle_last_part_seconds", "each part of the last cycle that ran",
                               ["part"], registry=r)
        self.jobs = Gauge("maui_jobs", "jobs in the resource manager's view, by state", ["state"], registry=r)
        self.queue = Gauge("maui_queue_jobs", "jobs by where the last cycle left them (checkjob's status)",
                           ["status"], registry=r)
        self.starts = Counter("maui_starts", "starts pushed to the resource manager, by kind", ["kind"],
                              registry=r)
        self.start_failures = Counter("maui_start_failures", "pushed starts the resource manager refused",
                                      registry=r)
        self.reservations = Gauge("maui_reservations", "reservations held after the last cycle, by type",
                                  ["type"], registry=r)
        self.deferrals = Counter("maui_deferrals", "jobs deferred (DEFERTIME)", registry=r)
        self.holds = Counter("maui_holds", "holds set by the scheduler, by type", ["type"], registry=r)
        self.rm_seconds = Histogram("maui_rm_call_seconds", "resource-manager calls that ran, by call",
                                    ["call"], buckets=SECONDS_BUCKETS, registry=r)
        self.rm_failures = Counter("maui_rm_call_failures", "resource-manager calls that failed, hung "
                                   "or could not run, by call", ["call"], registry=r)
        self.rm_up = Gauge("maui_rm_up", "1 if the last resource-manager read succeeded", registry=r)
        self.snapshot_time = Gauge("maui_snapshot_timestamp_seconds",
                                   "when the last good snapshot was read (Unix time; 0: none yet)", registry=r)
        self.snapshot_age = Gauge("maui_snapshot_age_seconds", "seconds since the last good snapshot "
                                  "(since mauid started, before the first)", registry=r)
        self.snapshot_age.set_function(self._snapshot_age)
        self.fs_usage = Gauge("maui_fairshare_usage", "decayed fair-share usage (FSPOLICY units x seconds), "
                              "by credential", ["credential", "name"], registry=r)
        self.fs_percent = Gauge("maui_fairshare_usage_percent", "a credential's share of the system's "
                                "decayed usage", ["credential", "name"], registry=r)
        self.fs_system = Gauge("maui_fairshare_system_usage", "the system's decayed fair-share usage",
                               registry=r)
        fc = ["group", "name"]
        self.fc_jobs = Gauge("maui_forecast_jobs", "jobs whose real start the tracked accuracy counts "
                             "(started after their first forecast, in the window), by group", fc, registry=r)
        self.fc_coverage = Gauge("maui_forecast_coverage_80", "share of real starts within the first "
                                 "forecast's p10-p90 range, by group", fc, registry=r)
        self.fc_mae = Gauge("maui_forecast_mae_p50_seconds", "median absolute error of the first forecast's "
                            "p50, by group", fc, registry=r)
        self.fc_plan_mae = Gauge("maui_forecast_plan_mae_seconds", "median absolute error of the plan's point "
                                 "estimate (showstart) at the first forecast, by group", fc, registry=r)
        for o in Outcome:
            self.cycles.labels(o.value)
        for k in StartKind:
            self.starts.labels(k.value.lower())
        for c in RM_CALLS:
            self.rm_failures.labels(c)

    def _snapshot_age(self) -> float:
        return max(0.0, self.clock() - (self._last_snapshot if self._last_snapshot is not None else self._started))

    # ------------------------------------------------------------ updates
    def rm_call(self, call: str, seconds: float | None, ok: bool) -> None:
        """One adapter call: its wall time (None: it never ran, an earlier one is stuck)."""
        if seconds is not None:
            self.rm_seconds.labels(call).observe(seconds)
        if not ok:
            self.rm_failures.labels(call).inc()
        if call == "snapshot":
            self.rm_up.set(1 if ok else 0)
            if ok:
                self._last_snapshot = self.clock()
                self.snapshot_time.set(self._last_snapshot)

    def cycle_end(self, outcome: Outcome, seconds: float) -> None:
        self.cycles.labels(outcome.value).inc()
        self.cycle_seconds.observe(seconds)

    def cycle_done(self, result, snapshot: ClusterSnapshot, decisions: Sequence, failures: Iterable,
                   times: CycleTimes) -> None:
        """A cycle that ran: its result, what was pushed (the cycle's and the admin requests'
        decisions) and the starts the resource manager refused."""
        self.iteration.set(result.iteration)
        for part in PARTS:
            t = getattr(times, part)
            self.part_seconds.labels(part).observe(t)
            self.last_part.labels(part).set(t)
        _set_counts(self.jobs, JobState, (j.state for j in snapshot.jobs),
                    lambda k: k.value.lower())
        _set_counts(self.queue, STATUSES, (rep.status for rep in result.reports.values()), str)
        _set_counts(self.reservations, ReservationKind, (res.kind for res in result.held),
                    lambda k: k.value.lower())
        for d in decisions:
            if isinstance(d, Start):
                self.starts.labels(d.kind.value.lower()).inc()
            elif isinstance(d, Defer):
                self.deferrals.inc()
            elif isinstance(d, Hold):
                self.holds.labels(d.hold.value.lower()).inc()
        self.start_failures.inc(sum(1 for _ in failures))
        self._fairshare(result.state.queue_policy)

    def _fairshare(self, policy) -> None:
        total, rows = fairshare_usage(policy)
        self.fs_usage.clear()
        self.fs_percent.clear()
        self.fs_system.set(total)
        if len(rows) > MAX_FS_SERIES:
            log.debug("metrics: %d fair-share credentials, exporting the %d most used", len(rows), MAX_FS_SERIES)
        for kind, name, used, pct in rows[:MAX_FS_SERIES]:
            self.fs_usage.labels(kind, name).set(used)
            self.fs_percent.labels(kind, name).set(pct)

    def forecast_accuracy(self, groups) -> None:
        """The tracked accuracy (store/tracked_accuracy.breakdown: (group, name) -> Figures);
        a figure with no job to count is not exported."""
        for g in (self.fc_jobs, self.fc_coverage, self.fc_mae, self.fc_plan_mae):
            g.clear()
        for (group, name), f in list(groups.items())[:MAX_FS_SERIES]:
            self.fc_jobs.labels(group, name).set(f.jobs)
            for gauge, v in ((self.fc_coverage, f.coverage_80), (self.fc_mae, f.mae_p50),
                             (self.fc_plan_mae, f.mae_plan)):
                if v is not None:
                    gauge.labels(group, name).set(v)

    def render(self) -> bytes:
        """The text exposition format, as a scrape sees it."""
        return generate_latest(self.registry)


@dataclass(frozen=True)
class ExportSettings:
    port: int = 0                  # 0: no HTTP endpoint
    address: str = "127.0.0.1"
    textfile: Path | None = None

    @property
    def enabled(self) -> bool:
        return self.port > 0 or self.textfile is not None


class Exporter:
    """Serves DaemonMetrics: an HTTP endpoint (prometheus_client's, in a thread of its own)
    and/or a textfile rewritten after every cycle (written beside itself, then renamed: a
    reader never sees half a file)."""

    def __init__(self, metrics: DaemonMetrics):
        self.metrics = metrics
        self.settings = ExportSettings()
        self._server = None
        self._thread: threading.Thread | None = None
        self._file_failing = False

    def configure(self, settings: ExportSettings) -> None:
        """Start, move or stop the HTTP endpoint to match `settings`. OSError (port in use,
        address not local): the endpoint in force is kept."""
        old = self.settings
        if (settings.port, settings.address) != (old.port, old.address):
            server = thread = None
            if settings.port > 0:
                server, thread = start_http_server(settings.port, settings.address, registry=self.metrics.registry)
            self._stop_server()
            self._server, self._thread = server, thread
            if server is not None:
                log.info("metrics served on http://%s:%d/metrics", settings.address, settings.port)
        self.settings = settings

    def after_cycle(self) -> None:
        path = self.settings.textfile
        if path is None:
            return
        try:
            write_to_textfile(str(path), self.metrics.registry)
        except OSError as e:
            if not self._file_failing:
                log.error("metrics: cannot write %s: %s", path, e)
            self._file_failing = True
        else:
            self._file_failing = False

    def _stop_server(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            if self._thread is not None:
                self._thread.join(5)
        self._server = self._thread = None

    def close(self) -> None:
        self._stop_server()
        self.settings = ExportSettings()


def _set_counts(gauge, keys, seen, label) -> None:
    """One gauge per label: how many of `seen` have each key (every key of `keys` shown, at
    zero when none)."""
    counts = dict.fromkeys(keys, 0)
    for k in seen:
        counts[k] = counts.get(k, 0) + 1
    for k, n in counts.items():
        gauge.labels(label(k)).set(n)
