"""mauid's start forecasts (issue 36): a worker process every FORECASTINTERVAL, and the
tracked accuracy.

After each cycle (never inside it: the cycle stays snapshot + config + state -> decisions),
`after_cycle`:
  - notes the real starts of the jobs tracked in the store (a job this cycle started: now;
    one the resource manager shows running: its start time), and learns the runtimes of the
    jobs that ended (gone from the snapshot) into the users' forecast history (WINDOW
    pairs a user, kept in the store; PREDICTIONPOLICY's history stands in for a user it
    has not seen yet). With FORECASTPOLICY NONE and nothing tracked, it does nothing;
  - picks up a finished worker's forecasts and stores them (store/forecasts.py), or kills
    one that ran past twice FORECASTBUDGET plus KILL_GRACE seconds (logged; nothing stored);
  - with FORECASTPOLICY other than NONE, no worker running and FORECASTINTERVAL passed
    (the queued jobs without a hold are forecast: a held job waits for a person; with
    FORECASTARRIVALS, the jobs submitted in that window go along for the replays' arrivals):
    starts `python -m maui_py.cli.forecast_worker` (an argument list) and hands it the
    moment as plain data on its stdin (the snapshot with this cycle's starts running, the
    state's rows, the history), from a thread that also reads its answer.
Cost in the loop: O(jobs) per cycle (the state's rows when a worker starts); the encoding
and the pipe are the thread's.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from ..cfg.choices import ForecastPolicy
from ..model import JobState
from ..predict.predictors import learn
from ..store.codec import encode
from ..store.forecasts import (ForecastRun, StoredForecast, load_history, note_starts, prune_tracked,
                               save_forecasts, save_history, tracked, waiting_tracked)
from ..store.state_rows import state_rows
from ..store.tracked_accuracy import Figures, breakdown

log = logging.getLogger("maui_py.daemon")

DRAW_OF: dict[ForecastPolicy, str | None] = {ForecastPolicy.NONE: None, ForecastPolicy.ALL: "all",
                                             ForecastPolicy.USER: "user", ForecastPolicy.JOB: "job",
                                             ForecastPolicy.RECENT: "recent",
                                             ForecastPolicy.SIMILAR: "similar"}
"""FORECASTPOLICY -> how the worker's replays draw runtimes (forecast/engine.DRAWS); None: off."""
WINDOW = 256
"""A user's last completed jobs the forecast history keeps: as far back as SIMILAR looks for
jobs of the same request (forecast/runtimes.SAME_WINDOW, which the daemon may not import; a
test keeps them equal); the ratios read the last runtimes.WINDOW of them, as in the simulator."""
KILL_GRACE = 10.0
MAX_RECENT = 20_000
"""Recent submissions kept for FORECASTARRIVALS at most (the newest)."""
MAX_OUTPUT = 256 << 20
"""Bytes of a worker's answer read at most."""
MAX_TIME = 253402300799
ACCURACY_WINDOW = 7 * 86400
"""The metrics' tracked accuracy is over the jobs first forecast in the last week."""


def _range_ok(p10: Any, p50: Any, p90: Any) -> bool:
    """Three whole epoch seconds in order (a worker's answer is checked before it is stored)."""
    return all(type(x) is int and 0 <= x <= MAX_TIME for x in (p10, p50, p90)) and p10 <= p50 <= p90


def accuracy_now(store, now: int, window: int = ACCURACY_WINDOW) -> dict[tuple[str, str], Figures]:
    """The tracked accuracy over the jobs first forecast in the last `window` seconds."""
    return breakdown(tracked(store, now - window))


class Forecasting:
    """The forecasts of one mauid. `command` makes the worker's argument list (tests)."""

    def __init__(self, config_path: Path, store_path: Path, *, clock: Callable[[], float] = time.monotonic,
                 command: Callable[[Path, Path], list[str]] | None = None):
        self.config_path, self.store_path, self.clock = config_path, store_path, clock
        self.command = command or (lambda cfg, store: [sys.executable, "-m", "maui_py.cli.forecast_worker",
                                                       "--config", str(cfg), "--store", str(store)])
        self.draw: str | None = None
        self.interval, self.budget, self.samples, self.keep, self.arrivals = 300, 60, 20, 0, 0
        self.recent: dict[str, Any] = {}
        """FORECASTARRIVALS: the jobs submitted in that window, by id (at most MAX_RECENT)."""
        self.history: dict[str, tuple[tuple[int, int], ...]] = {}
        self.running: dict[str, tuple[str, int, int]] = {}
        self.waiting: set[str] = set()
        self.proc: subprocess.Popen | None = None
        self.thread: threading.Thread | None = None
        self.answer: dict[str, Any] = {}
        self.launched = self.deadline = 0.0
        self.next_at = 0.0
        self.about: dict[str, tuple[str, str, str, int]] = {}
        self.policy = ""
        self.runs = 0
        self.grace = KILL_GRACE
        self.changed = False
        """Something the accuracy figures read was stored since the loop last looked."""

    def configure(self, cfg) -> None:
        self.policy = str(cfg.get("FORECASTPOLICY") or "NONE")
        self.draw = DRAW_OF[ForecastPolicy(self.policy)]
        self.interval = int(cfg.get("FORECASTINTERVAL") or 0)
        self.budget = int(cfg.get("FORECASTBUDGET") or 0)
        self.samples = int(cfg.get("FORECASTSAMPLES") or 1)
        self.arrivals = int(cfg.get("FORECASTARRIVALS") or 0)
        self.keep = int(cfg.get("JOURNALKEEPTIME") or 0)

    def load(self, store) -> None:
        """What the store keeps: the users' history and the tracked jobs not started yet."""
        self.history = load_history(store, WINDOW)
        self.waiting = waiting_tracked(store)

    # ------------------------------------------------------------------ cycle
    def after_cycle(self, store, result, snapshot) -> None:
        """With FORECASTPOLICY NONE and no tracked job waiting, nothing (no write to the
        store: a Maui configuration's daemon works as before)."""
        if self.draw is None and not self.waiting and self.proc is None:
            self.running = {}
            return
        self._watch(store, result, snapshot)
        self.poll(store)
        if self.draw is not None and self.proc is None and self.clock() >= self.next_at:
            self._launch(result, snapshot)

    def _watch(self, store, result, snapshot) -> None:
        now = result.now
        starts = {s.job_id: now for s in result.starts() if s.job_id in self.waiting}
        jobs = {j.id: j for j in snapshot.jobs}
        seen = {s.job_id: (jobs[s.job_id].user, now, jobs[s.job_id].wallclock)      # running from now on
                for s in result.starts() if s.job_id in jobs}
        for j in snapshot.jobs:
            if j.state.active and j.start_time is not None:
                seen[j.id] = (j.user, j.start_time, j.wallclock)
                if j.id in self.waiting and j.id not in starts:
                    starts[j.id] = j.start_time
        changed = False
        for jid, (user, start, wallclock) in sorted(self.running.items(), key=lambda kv: (kv[1][1], kv[0])):
            if jid not in seen:
                learn(self.history, user, max(0, now - start), wallclock, WINDOW)
                changed = True
        self.running = seen
        self._note_arrivals(snapshot.jobs, now)
        self.waiting = {jid for jid in self.waiting - set(starts) if jid in jobs}   # a job gone unseen: cancelled
        note_starts(store, starts)
        self.changed |= bool(starts)
        if changed:
            save_history(store, self.history)

    def _note_arrivals(self, jobs, now: int) -> None:
        """Keep the jobs submitted in the last FORECASTARRIVALS seconds (the newest
        MAX_RECENT), for the replays' arrivals. O(jobs)."""
        if not self.arrivals:
            self.recent = {}
            return
        since = now - self.arrivals
        for j in jobs:
            if j.submit_time >= since:
                self.recent[j.id] = j
        keep = sorted(((j.submit_time, jid) for jid, j in self.recent.items() if j.submit_time >= since),
                      reverse=True)[:MAX_RECENT]
        self.recent = {jid: self.recent[jid] for _t, jid in keep}

    def _launch(self, result, snapshot) -> None:
        started = {s.job_id: s for s in result.starts()}
        jobs = tuple(replace(j, state=JobState.RUNNING, start_time=result.now, allocation=started[j.id].allocation)
                     if j.id in started else j for j in snapshot.jobs if not j.state.finished)
        rows = state_rows(result.state)
        moment = {"iteration": result.iteration, "now": result.now, "budget": self.budget,
                  "samples": self.samples, "draw": self.draw, "seed": 0, "arrivals": self.arrivals,
                  "state": {"jobs": rows.jobs, "reservations": {k: v[2] for k, v in rows.reservations.items()},
                            "kv": rows.kv},
                  "history": {u: [list(p) for p in pairs]          # PREDICTIONPOLICY's for users not seen yet
                              for u, pairs in {**result.state.history, **self.history}.items()}}
        self.about = {j.id: (j.user, j.class_, j.qos, j.procs) for j in jobs if not j.state.active}
        held = result.state.batch_holds
        moment["targets"] = sorted(j.id for j in jobs if not j.state.active and not j.holds and j.id not in held)
        try:
            proc = subprocess.Popen(self.command(self.config_path, self.store_path), stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as e:
            log.error("cannot start the forecast worker: %s; next try after FORECASTINTERVAL", e)
            self.next_at = self.clock() + self.interval
            return
        self.proc, self.answer = proc, {}
        self.launched = self.clock()
        self.deadline = self.launched + 2 * self.budget + self.grace
        self.next_at = self.launched + self.interval
        recent = sorted(self.recent.values(), key=lambda j: (j.submit_time, j.id))
        self.thread = threading.Thread(target=self._talk, args=(proc, moment, snapshot.nodes, jobs, recent),
                                       name="forecast-worker", daemon=True)
        self.thread.start()

    def _talk(self, proc: subprocess.Popen, moment: dict, nodes, jobs, recent) -> None:
        """The thread: encode the moment, write it, read the answer (the JSON states are
        built here so that the loop does not wait for them)."""
        try:
            moment["state"] = {"jobs": {k: json.loads(v) for k, v in moment["state"]["jobs"].items()},
                               "reservations": {k: json.loads(v) for k, v in moment["state"]["reservations"].items()},
                               "kv": {k: json.loads(v) for k, v in moment["state"]["kv"].items()}}
            moment["nodes"] = [encode(n) for n in nodes]
            moment["jobs"] = [encode(j) for j in jobs]
            moment["recent"] = [encode(j) for j in recent]
            out, err = proc.communicate(json.dumps(moment).encode())
            self.answer = {"rc": proc.returncode, "out": out[:MAX_OUTPUT + 1], "err": err[-2000:]}
        except Exception as e:          # a broken pipe, a worker killed: reported by poll
            self.answer = {"rc": -1, "out": b"", "err": f"{type(e).__name__}: {e}".encode()}

    # ------------------------------------------------------------------- worker
    def poll(self, store) -> None:
        """Store a finished worker's forecasts; kill one past its deadline."""
        if self.proc is None:
            return
        if self.thread is not None and self.thread.is_alive():
            if self.clock() < self.deadline:
                return
            log.warning("forecast worker %d ran %.0f s, past twice FORECASTBUDGET (%d s): killed, nothing stored",
                        self.proc.pid, self.clock() - self.launched, self.budget)
            self.proc.kill()
            self.thread.join(5)
            self.proc = self.thread = None
            return
        answer, self.proc, self.thread = self.answer, None, None
        try:
            run, forecasts = self._parse(answer)
        except (ValueError, TypeError, KeyError, IndexError) as e:
            log.error("forecast worker failed (%s): %s", e, answer.get("err", b"")[-500:].decode(errors="replace"))
            return
        save_forecasts(store, run, forecasts, self.about)
        self.waiting |= {f.job_id for f in forecasts}
        self.runs += 1
        self.changed = True
        if self.keep:
            prune_tracked(store, run.computed_at - self.keep)
        if run.cut:
            log.warning("forecast of %d jobs cut short by FORECASTBUDGET (%d s): %d of %d replays done",
                        run.jobs, self.budget, run.done, run.asked)
        else:
            log.info("forecast of %d jobs: %d replays in %.1f s", run.jobs, run.done, run.seconds)

    def _parse(self, answer: dict) -> tuple[ForecastRun, list[StoredForecast]]:
        if answer.get("rc") != 0:
            raise ValueError(f"exit status {answer.get('rc')}")
        if len(answer["out"]) > MAX_OUTPUT:
            raise ValueError(f"an answer over {MAX_OUTPUT} bytes")
        d = json.loads(answer["out"])
        out = []
        for row in d["forecasts"]:
            jid, p10, p50, p90, samples, late, plan = row[:7]
            raw = row[7] if len(row) == 8 else None
            if not (isinstance(jid, str) and _range_ok(p10, p50, p90) and type(samples) is int
                    and 1 <= samples <= 1000 and type(late) is int and 0 <= late <= samples
                    and (plan is None or type(plan) is int and 0 <= plan <= MAX_TIME)
                    and len(row) <= 8 and (raw is None or isinstance(raw, list) and len(raw) == 3
                                           and _range_ok(*raw))):
                raise ValueError(f"a malformed forecast of {str(jid)[:40]!r}")
            out.append(StoredForecast(jid, p10, p50, p90, samples, late, plan,
                                      None if raw is None else tuple(raw)))
        run = ForecastRun(int(d["computed_at"]), int(d["asked"]), int(d["done"]), bool(d["cut"]),
                          float(d["seconds"]), len(out), self.policy)
        return run, out

    def close(self) -> None:
        """Stop a worker still running (mauid stops)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
        if self.thread is not None:
            self.thread.join(5)
        self.proc = self.thread = None
