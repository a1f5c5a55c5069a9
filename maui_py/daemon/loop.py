"""mauid's main loop: one scheduling cycle every RMPOLLINTERVAL, and on demand.

One cycle, in this order (the order is the crash-safety argument, see docs/operations.md):
  1. take the admin requests queued by the socket (socket_server.py); read the resource
     manager (snapshot);
  2. after a restart only: reconcile the saved pending starts with the snapshot;
  3. apply the admin requests to the cycle's inputs; run_cycle (pure, no I/O);
  4. save the cycle in ONE store transaction: the state with this cycle's starts marked
     pending, the journal (the starts as intents), the view, the requests' outcomes;
  5. only then push the decisions (adapter.apply); the starts it reports failed go into
     state.failed, saved with the next cycle, which also journals them. A start stays
     pending until the resource manager shows the job running (recovery.keep_starting).
A kill before 4 commits loses this cycle only: nothing of it was pushed. A kill between 4
and the end of 5 leaves starts that were perhaps pushed; the restarted daemon asks the
resource manager (recovery.py) and never starts a job it reports running.

Failures do not stop the daemon: a resource-manager call that fails or hangs (RMCaller's
deadline), or answers with errors or an empty view (RMOutage), is logged once at ERROR, the
cycle is skipped and the store marked stale, and the read is tried again with backoff
(1, 2, 4 RMPOLLINTERVALs, at most RM_BACKOFF_MAX); a cycle
that raises, or a save that fails, is logged, nothing is pushed, and the state is reloaded
from the store. Signals: SIGHUP reloads maui.cfg (a bad file is logged and the old
configuration kept), SIGTERM/SIGINT stop after the current cycle, SIGUSR1 runs a cycle
now; an admin request received on the socket also starts one (unless REQUESTPOLLINTERVAL
is 0). Requests come from the socket only, whose peer credentials name the sender; the
store is never read for requests.

A cycle runs with Python's cyclic garbage collector paused (core/gcpause.py); it collects
between cycles, while the loop waits for the next poll.

After every cycle, whatever its outcome: systemd is told (notify.py: READY=1 after the
first, WATCHDOG=1 and a STATUS line after each) and, when METRICSPORT or METRICSFILE is
set, the Prometheus metrics are updated (metrics.py, imported only then).
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import sqlite3
import time
from pathlib import Path
from typing import Any, Callable

from ..core import gcpause
from ..cfg import ConfigError, SchedulerConfig, load_config
from ..core.cycle import run_cycle
from ..model import Start
from ..priority.queues import make_queue_policy
from ..rm import registry
from ..rm.check import check_snapshot
from ..rm.protocol import ResourceManager, RMError
from ..store import Store, StoreDamaged, StoreError
from ..store.reader import damaged, is_damage
from ..store.codec import dump_data
from ..store.journal import JournalEntry, capture, cycle_entries, decision_entries
from ..store.rm_status import clear_rm_down, mark_rm_down
from . import admin, logsetup, paths, socket_server
from .notify import Notifier, watchdog_seconds
from . import handlers  # noqa: F401  (registers the admin commands' request handlers)
from .faults import Faults, die
from .forecasting import Forecasting, accuracy_now
from .lock import DaemonLock, lock_path
from .recovery import keep_starting, reconcile
from .rmcall import RMCaller
from .signals import SignalFlags

log = logging.getLogger("maui_py.daemon")
DEFAULT_RM_TIMEOUT = 30.0
CALL_TIMEOUT_FACTOR = 4
"""A whole adapter call (several commands) may take this many RMCFG TIMEOUTs."""
RM_BACKOFF_MAX = 4
"""While the resource manager fails, the next try comes 1, 2, 4 ... RMPOLLINTERVALs later,
at most this many: a long outage is not hammered, a short one is noticed soon."""

AdapterFactory = Callable[[SchedulerConfig, "str | None"], ResourceManager]


def state_digest(state) -> dict:
    """What a restart loaded, for the journal: iteration, kept reservations, pending starts
    and a hash of the queue policy's lasting data (fair-share windows)."""
    policy = state.queue_policy.dump() if state.queue_policy is not None else None
    return {"iteration": state.iteration, "reservations": sorted(state.reservations),
            "pending": sorted(state.pending),
            "queue_policy": hashlib.sha256(dump_data(policy).encode()).hexdigest()[:16]}


def _rm_object(cfg: SchedulerConfig, rm_name: str | None):
    """RMCFG[rm_name], or the first RMCFG as the adapter registry picks it; None if none."""
    objs = cfg.objects("RMCFG")
    if rm_name is None:
        rm_name = next((n for n in objs if n != "DEFAULT"), next(iter(objs), None))
    return objs.get(rm_name) if rm_name is not None else None


def _rm_settings(cfg: SchedulerConfig) -> dict:
    return {name: dict(obj) for name, obj in cfg.objects("RMCFG").items()}


class Daemon:
    """mauid. `run()` until stopped; `once=True`: one cycle, then return."""

    def __init__(self, config_path: str | Path, *, store_path: str | Path | None = None,
                 rm_name: str | None = None, adapter_factory: AdapterFactory | None = None,
                 stderr: bool = True, clock: Callable[[], float] = time.time,
                 call_timeout: float | None = None, request_poll: float | None = None,
                 faults: Faults | None = None, log_file: bool = True, notifier: Notifier | None = None,
                 forecast_command: Callable[[Path, Path], list[str]] | None = None):
        self.config_path = Path(config_path).resolve()
        self.cfg = load_config(self.config_path)               # ConfigError: caller reports
        self.store_path = paths.store_path(self.cfg, self.config_path, store_path)
        self.rm_name = rm_name
        self.factory: AdapterFactory = adapter_factory or registry.create
        self.stderr, self.log_file, self.clock = stderr, log_file, clock
        self.notifier = notifier if notifier is not None else Notifier.from_environ()
        self.metrics = None              # metrics.DaemonMetrics while METRICSPORT / METRICSFILE is set
        self.exporter = None
        self.status = "starting"         # systemd's STATUS line
        self._call_timeout, self._request_poll = call_timeout, request_poll
        self.faults = faults if faults is not None else Faults()
        self.signals = SignalFlags()
        self.lock = DaemonLock(lock_path(self.store_path))
        self.records = logsetup.RecordWarnings(logging.getLogger("maui_py.rm"))
        self.store: Store | None = None
        self.adapter: ResourceManager | None = None
        self.state = None
        self.admin_reservations: dict = {}
        self.unreadable_admin: set[str] = set()
        """Admin reservations whose store rows cannot be read (named in the log; releaseres)."""
        self.cycles_run = 0
        """Cycles begun (counted as one begins)."""
        self.cycles_done = 0
        """Cycles finished, whatever their outcome (counted last)."""
        self.cycles_failed = 0
        self.damaged = False
        """The store was found damaged: mauid stops and writes nothing more to it."""
        self._reconcile = True
        self._rm_down: str | None = None
        self._rm_failures = 0            # consecutive failed reads of the resource manager
        self._rm_down_since: float | None = None
        self._stale_mark = True          # a mark a previous mauid left is cleared at the first read
        self._requests_seen = 0          # a newer pending request starts a cycle at once
        self.inbox: socket_server.RequestServer | None = None    # the request socket, from start()
        self.rm = RMCaller(0.0, observe=self._rm_observed)
        self.forecasting = Forecasting(self.config_path, self.store_path, command=forecast_command)
        self._apply_settings()

    # ------------------------------------------------------------- settings
    def _apply_settings(self) -> None:
        cfg = self.cfg
        self.interval = max(1, int(cfg.get("RMPOLLINTERVAL") or 60))
        poll = self._request_poll if self._request_poll is not None else cfg.get("REQUESTPOLLINTERVAL")
        self.request_poll = float(poll or 0)
        self.journal_keep = int(cfg.get("JOURNALKEEPTIME") or 0)
        if self._call_timeout is not None:
            self.call_timeout = self._call_timeout
        else:
            rm = _rm_object(cfg, self.rm_name)
            timeout = rm.value("TIMEOUT") if rm is not None else None
            self.call_timeout = CALL_TIMEOUT_FACTOR * float(timeout or DEFAULT_RM_TIMEOUT)
        self.rm.timeout = self.call_timeout
        if self.store is not None:
            self.store.journal_keep = self.journal_keep
        self.forecasting.configure(cfg)

    def _configure_logging(self) -> None:
        logsetup.configure(paths.log_path(self.cfg, self.config_path) if self.log_file else None,
                           int(self.cfg.get("LOGLEVEL") or 0), stderr=self.stderr,
                           syslog=logsetup.SYSLOG_SOCKET if self.cfg.get("USESYSLOG") else None)

    def _export_settings(self, cfg: SchedulerConfig):
        from .metrics import ExportSettings
        name = str(cfg.get("METRICSFILE") or "")
        return ExportSettings(int(cfg.get("METRICSPORT") or 0), str(cfg.get("METRICSADDRESS") or "127.0.0.1"),
                              paths.home_dir(self.config_path) / name if name else None)

    def _configure_metrics(self, cfg: SchedulerConfig) -> None:
        """Start, change or stop the metrics to match cfg; OSError (port taken): unchanged."""
        wanted = cfg.get("METRICSPORT") or cfg.get("METRICSFILE")
        if not wanted and self.exporter is None:
            return
        from .metrics import DaemonMetrics, Exporter
        if self.exporter is None:
            self.metrics = DaemonMetrics(self.clock)
            self.exporter = Exporter(self.metrics)
        self.exporter.configure(self._export_settings(cfg))

    def _rm_observed(self, call: str, seconds: float | None, ok: bool) -> None:
        if self.metrics is not None:
            self.metrics.rm_call(call, seconds, ok)

    # ------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Lock, logging, store, state, adapter. LockHeld / StoreError / OSError / RMError
        / ValueError propagate: nothing is running yet."""
        self.lock.acquire()
        try:
            self._configure_logging()
            self.store = Store.open(self.store_path, journal_keep=self.journal_keep, clock=self.clock)
            self.state = self.store.load_state()
            self.admin_reservations = self.store.admin_reservations()
            self.unreadable_admin = self.store.unreadable_names("admin_reservation")
            self.forecasting.load(self.store)
            self.adapter = self.factory(self.cfg, self.rm_name)
            self.inbox = socket_server.for_daemon(self)
            self._configure_metrics(self.cfg)
        except BaseException:
            if self.exporter is not None:
                self.exporter.close()
                self.exporter = self.metrics = None
            if self.inbox is not None:
                self.inbox.close()
                self.inbox = None
            if self.adapter is not None:
                self.adapter.close()
                self.adapter = None
            if self.store is not None:
                self.store.close(rollback_mode=True)
                self.store = None
            self.lock.release()
            raise
        self.records.install()
        log.info("mauid %d started: config %s, store %s, resource manager %s, poll every %d s "
                 "(iteration %d loaded, %d pending starts to reconcile)", os.getpid(),
                 self.config_path, self.store_path, self.adapter.name, self.interval,
                 self.state.iteration, len(self.state.pending))
        self._check_watchdog()
        self.store.journal_event("daemon-start", f"pid {os.getpid()}",
                                 detail={"config": str(self.config_path), "pid": os.getpid(),
                                         "loaded": state_digest(self.state)})

    def stop(self) -> None:
        """Ask the loop to finish its cycle and return (from any thread)."""
        self.signals.poke("stop")

    def cycle_now(self) -> None:
        self.signals.poke("wake")

    def reload(self) -> None:
        self.signals.poke("reload")

    def _check_watchdog(self) -> None:
        """WATCHDOG=1 comes once per cycle: warn when the unit's WatchdogSec is shorter than
        the longest gap between two cycles (RM backoff plus a hung call's deadline)."""
        limit = watchdog_seconds()
        worst = self.interval * RM_BACKOFF_MAX + self.call_timeout
        if limit is not None and limit < worst:
            log.warning("systemd WatchdogSec is %g s, but cycles may be %g s apart (RMPOLLINTERVAL x %d "
                        "+ 4 x RMCFG TIMEOUT): systemd may kill mauid during a resource-manager outage",
                        limit, worst, RM_BACKOFF_MAX)

    def close(self) -> None:
        self.notifier.stopping()
        self.records.uninstall()
        self.forecasting.close()
        if self.exporter is not None:
            self.exporter.close()
        if self.inbox is not None:
            self.inbox.close()
            self.inbox = None
        if self.store is not None and not self.damaged:
            try:
                self.store.journal_event("daemon-stop", f"after {self.cycles_run} cycles")
            except (sqlite3.Error, StoreError) as e:
                log.error("could not journal the stop: %s", e)
            self.store.close(rollback_mode=not self.damaged)
            self.store = None
        if self.adapter is not None:
            self.adapter.close()
        log.info("mauid %d stopped after %d cycles", os.getpid(), self.cycles_run)
        logsetup.unconfigure()
        self.lock.release()

    def run(self, *, once: bool = False, install_signals: bool = True) -> int:
        """Start, loop until SIGTERM (or one cycle with once=True), close. Returns the exit
        status: 0, or 1 when `once` and the cycle failed."""
        self.start()
        if install_signals:
            self.signals.install()
        try:
            ok = self.loop(once=once)
        finally:
            self.signals.close()
            self.close()
        return 0 if ok else 1

    def loop(self, *, once: bool = False) -> bool:
        flags = self.signals
        flags.open()
        next_due = time.monotonic()
        ok = True
        while not flags.stop:
            if flags.reload:
                flags.reload = False
                self._reload()
            now = time.monotonic()
            if flags.wake or now >= next_due:
                flags.wake = False
                ok = self.cycle()
                next_due = now + self.retry_delay()
                if once:
                    break
                continue
            flags.wait(min(next_due - now, self.request_poll) if self.request_poll > 0 else next_due - now)
            self._forecasts(None, None)
            if self.request_poll > 0 and not flags.stop and self._requests_pending():
                flags.wake = True
        return ok

    def _requests_pending(self) -> bool:
        """Whether the socket queued a request since the last cycle took them."""
        return self.inbox is not None and self.inbox.newest() > self._requests_seen

    # --------------------------------------------------------------- reload
    def _reload(self) -> None:
        try:
            cfg = load_config(self.config_path)
            make_queue_policy(cfg)
            adapter = self.adapter
            if _rm_settings(cfg) != _rm_settings(self.cfg):
                adapter = self.factory(cfg, self.rm_name)
        except (ConfigError, ValueError, RMError, OSError) as e:
            log.error("SIGHUP: %s is not usable, keeping the configuration in force:\n%s", self.config_path, e)
            self._event("config-error", str(e).splitlines()[0] if str(e) else type(e).__name__,
                        detail={"error": str(e)})
            return
        old_store = paths.store_path(self.cfg, self.config_path)
        if paths.store_path(cfg, self.config_path) != old_store:
            log.warning("SIGHUP: STOREFILE changes take effect when mauid restarts")
        if adapter is not self.adapter:
            self.adapter.close()
            self.adapter = adapter
        try:
            self._configure_metrics(cfg)
        except OSError as e:
            log.error("SIGHUP: metrics endpoint %s:%s: %s; serving as before",
                      cfg.get("METRICSADDRESS"), cfg.get("METRICSPORT"), e)
        self.cfg = cfg
        self._apply_settings()
        try:
            self._configure_logging()
        except OSError as e:
            log.error("SIGHUP: cannot open the new log file: %s; logging as before", e)
        log.warning("SIGHUP: configuration %s reloaded", self.config_path)
        self._event("config-reload", str(self.config_path))

    def _event(self, event: str, reason: str, **kw: Any) -> None:
        try:
            self.store.journal_event(event, reason, **kw)
        except (sqlite3.Error, StoreError) as e:
            log.error("could not journal %s: %s", event, e)

    # ---------------------------------------------------------------- cycle
    def cycle(self) -> bool:
        """One cycle; False when it could not run (it is logged). Whatever goes wrong in
        a cycle is logged and the daemon goes on from the last committed state; only a
        damaged store ends it (StoreDamaged: nothing more is written to it)."""
        self.cycles_run += 1
        t0 = time.perf_counter()
        try:
            with gcpause.paused():          # the collector runs between cycles (gcpause.py)
                ok = self._cycle(self.cycles_run)
        except StoreDamaged:
            self.damaged = True
            raise
        except Exception as e:
            if is_damage(e):
                self.damaged = True
                raise damaged(self.store_path, e) from e
            log.exception("cycle %d failed; state reloaded from the store", self.cycles_run)
            ok = self._recover()
        if not ok and self._rm_failures == 0:
            self.status = f"cycle {self.cycles_run} failed (see the log); going on from the store"
        self._after_cycle(ok, time.perf_counter() - t0)
        return ok

    def _after_cycle(self, ok: bool, seconds: float) -> None:
        self.cycles_done += 1
        if self.metrics is not None:
            from .metrics import Outcome
            outcome = Outcome.OK if ok else Outcome.RM_ERROR if self._rm_failures else Outcome.FAILED
            self.metrics.cycle_end(outcome, seconds)
            self.exporter.after_cycle()
        self.notifier.cycle_done(self.status)

    def _cycle(self, n: int) -> bool:
        t0 = time.perf_counter()
        requests = self.inbox.take() if self.inbox is not None else []
        self._requests_seen = max([r.id for r in requests], default=self._requests_seen)
        try:
            snapshot = self.rm.call("snapshot", self.adapter.snapshot)
        except RMError as e:
            self._rm_trouble(e)
            return False
        finally:
            self.records.flush()
        self._rm_back()
        self.faults.hit("after-snapshot", n)
        snapshot, problems = check_snapshot(snapshot)
        for problem in problems:
            log.warning("resource manager record: %s", problem)
        t_snap = time.perf_counter() - t0
        entries: list[JournalEntry] = []
        if self._reconcile:
            entries += reconcile(self.state, snapshot)
            self._reconcile = False
        ctx = admin.AdminContext(self.cfg, self.state, snapshot, dict(self.admin_reservations), self.clock(),
                                 unreadable=set(self.unreadable_admin))
        done, request_entries = admin.apply_requests(requests, ctx)
        snapshot = admin.with_admin_reservations(ctx)
        before = capture(self.state)
        t1 = time.perf_counter()
        result = run_cycle(snapshot, self.cfg, self.state, explain=True)
        t_sched = time.perf_counter() - t1
        self.state = result.state
        keep_starting(before.pending, self.state, snapshot)
        entries += request_entries + cycle_entries(before, result, snapshot)
        entries += decision_entries(ctx.decisions, {}, result.iteration)
        self.faults.hit("after-cycle", n)
        try:
            save_s = self.store.save_cycle(
                result, snapshot, journal=entries, requests_done=done,
                admin_reservations=ctx.admin_reservations if ctx.reservations_changed else None,
                unreadable_kept=ctx.unreadable,
                info={"config_path": str(self.config_path), "rm": self.adapter.name, "pid": os.getpid(),
                      "host": socket.gethostname()},
                timings={"snapshot_s": t_snap, "schedule_s": t_sched},
                before_commit=lambda: self.faults.hit("mid-save", n))
        except StoreDamaged:
            raise
        except (sqlite3.Error, StoreError, OSError) as e:
            log.error("cycle %d: could not save (%s); nothing pushed, state reloaded from the store", n, e)
            return self._recover()
        self.admin_reservations, self.unreadable_admin = ctx.admin_reservations, ctx.unreadable
        self.faults.hit("after-save", n)
        decisions = list(result.decisions) + ctx.decisions
        t2 = time.perf_counter()
        failures = self._push(decisions, n)
        apply_s = time.perf_counter() - t2
        self.store.note_apply(apply_s)
        self.state.note_failures(failures)
        self.faults.hit("after-apply", n)
        self._forecasts(result, snapshot)
        if self.metrics is not None:
            from .metrics import CycleTimes
            self.metrics.cycle_done(result, snapshot, decisions, failures,
                                    CycleTimes(t_snap, t_sched, save_s, apply_s))
        self.status = (f"iteration {result.iteration}: {len(snapshot.jobs)} jobs, "
                       f"{len(result.starts())} started")
        self._log_cycle(result, snapshot, failures, t_snap, t_sched, save_s, apply_s)
        return True

    def _forecasts(self, result, snapshot) -> None:
        """After a cycle (result and snapshot) or while waiting (None): the forecasts'
        bookkeeping and worker (forecasting.py). Its failures are logged and the daemon goes
        on; a damaged store stops it, as anywhere."""
        try:
            if result is None:
                self.forecasting.poll(self.store)
            else:
                self.forecasting.after_cycle(self.store, result, snapshot)
        except StoreDamaged:
            self.damaged = True
            raise
        except (sqlite3.Error, StoreError, OSError, ValueError) as e:
            log.error("forecasts: %s", e)
        if self.metrics is not None and self.forecasting.changed:
            self.metrics.forecast_accuracy(accuracy_now(self.store, int(self.clock())))
        self.forecasting.changed = False

    def _push(self, decisions: list, n: int) -> list:
        if not decisions:
            return []
        if self.faults.armed("mid-apply", n):
            starts = [k for k, d in enumerate(decisions) if isinstance(d, Start)]
            cut = starts[(len(starts) - 1) // 2] + 1 if starts else len(decisions) // 2
            self.rm.call("apply", self.adapter.apply, decisions[:cut])
            die()
        try:
            return list(self.rm.call("apply", self.adapter.apply, decisions))
        except RMError as e:
            log.error("pushing %d decisions failed: %s; the next cycle sees what was carried out",
                      len(decisions), e)
            return []
        finally:
            self.records.flush()

    def _recover(self) -> bool:
        self.cycles_failed += 1
        try:
            self.state = self.store.load_state()
        except StoreDamaged:
            self.damaged = True
            raise
        return False

    def retry_delay(self) -> float:
        """Seconds to the next cycle: RMPOLLINTERVAL, or while the resource manager fails
        1, 2, 4 ... times it, at most RM_BACKOFF_MAX times."""
        if self._rm_failures == 0:
            return float(self.interval)
        return float(self.interval * min(2 ** (self._rm_failures - 1), RM_BACKOFF_MAX))

    def _rm_trouble(self, e: RMError) -> None:
        """The resource manager failed or answered with errors / nothing (an outage): no
        cycle on it, so no job is taken for gone and nothing is decided on an empty view.
        The first failure: one ERROR line, journal `rm-error`, and the store marked stale
        (the commands say since when); later ones: WARNING, retried with backoff."""
        self.cycles_failed += 1
        self._rm_failures += 1
        if self._rm_down is None:
            self._rm_down_since = self.clock()
            log.error("resource manager unreachable: %s; no cycle until it answers "
                      "(retrying after %g s, backing off to %d s)", e, self.retry_delay(),
                      self.interval * RM_BACKOFF_MAX)
            self._event("rm-error", str(e))
            try:
                mark_rm_down(self.store.conn, self._rm_down_since, str(e))
            except (sqlite3.Error, StoreError) as err:
                log.error("could not mark the store stale: %s", err)
        else:
            log.warning("resource manager still failing (%d tries): %s; next try in %g s",
                        self._rm_failures, e, self.retry_delay())
        self._rm_down = str(e)
        self.status = f"resource manager unreachable ({self._rm_failures} tries): {e}"

    def _rm_back(self) -> None:
        """The resource manager answered: back to RMPOLLINTERVAL, journal `rm-ok`, and the
        stale mark removed from the store."""
        self._rm_failures = 0
        if self._rm_down is not None:
            since = self._rm_down_since if self._rm_down_since is not None else self.clock()
            log.warning("resource manager answers again after %.0f s", self.clock() - since)
            self._event("rm-ok", f"after: {self._rm_down}")
        if self._rm_down is not None or self._stale_mark:    # also a mark an earlier mauid left
            try:
                clear_rm_down(self.store.conn)
            except (sqlite3.Error, StoreError) as err:
                log.error("could not clear the store's stale mark: %s", err)
        self._rm_down = self._rm_down_since = None
        self._stale_mark = False

    def _log_cycle(self, result, snapshot, failures, t_snap, t_sched, save_s, apply_s) -> None:
        starts = result.starts()
        running = sum(1 for j in snapshot.jobs if j.state.active)
        log.info("cycle %d: %d jobs (%d running), %d starts, %d reservations, %d other decisions; "
                 "snapshot %.3f s, schedule %.3f s, save %.3f s, push %.3f s", result.iteration,
                 len(snapshot.jobs), running, len(starts), len(result.state.reservations),
                 len(result.decisions) - len(starts) - len(result.reservations()),
                 t_snap, t_sched, save_s, apply_s)
        for s in starts:
            log.info("start %s on %s (%s)", s.job_id, ",".join(s.nodes), s.kind.value)
        for f in failures:
            log.warning("start %s refused: %s", f.job_id, f.reason)
        if log.isEnabledFor(logging.DEBUG):
            for d in result.decisions:
                if not isinstance(d, Start):
                    log.debug("decision %s", d)

