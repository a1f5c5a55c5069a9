"""Runtime-draw rules for start forecasts compared on the same moments (issue 36, fc5).
Prints figures; not a test.

One replay of TRACE under CFG (maui-sim --forecast's: a cycle at every arrival); at each
cycle that forecasts new jobs, every RULE's K replays run from that very moment with the
seeds engine.forecast uses (f"{seed}:{now}:{k}"), and every replay's start is kept. Then
each rule's p10 / p50 / p90 (nearest rank over the first K, and over all its samples when a
rule has more), calibrated offline as forecast/simulated.py does online (calibrate.py, the
jobs started by each forecast's own moment, in (start, id) order), and the figures of
forecast/accuracy.py. The moments, the history (learned as predict.learn does, --history
pairs a user) and the plan's estimate are shared, so two rules differ only by their draws;
rules `recent` and `similar` (engine's) reproduce maui-sim --forecast's figures exactly.

    python benchmarks/forecast_rules.py TRACE CFG [--jobs 2000] [--seed 1] [--samples 20]
                                        [--save FILE.json] RULE ...
    python benchmarks/forecast_rules.py --load FILE.json ...    # figures again, no replay

Cost: the replay, plus about one maui-sim --forecast's forecasting per rule (about 45 CPU s
on SDSC-SP2's first 2,000 jobs), twice that for a rule of 40 samples.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from maui_py.cfg.loader import load_config  # noqa: E402
from maui_py.cli import simforecast, simulate  # noqa: E402
from maui_py.forecast import engine  # noqa: E402
from maui_py.forecast.accuracy import accuracy  # noqa: E402
from maui_py.forecast.calibrate import MIN_JOBS, WINDOW, Calibration  # noqa: E402
from maui_py.forecast.engine import Forecast, ForecastOptions, Moment, plain_copy, quantile, replay_once  # noqa: E402
from maui_py.forecast.simulated import SimForecaster  # noqa: E402
from maui_py.sim.engine import SimOptions, Simulation  # noqa: E402


@dataclass(frozen=True)
class Rule:
    """menu(moment, history) -> per-job data; draw(menu, rng) -> [(job, runtime)]."""

    menu: Callable
    draw: Callable
    samples: int | None = None
    """Replays of this rule (None: --samples)."""


def _runtime(ratio: float, request: int) -> int:
    return min(request, max(1, round(ratio * request)))


def rich_menu(window: int = 32, same_window: int = 32, near: bool = False) -> Callable:
    """Each job (id order): (job, elapsed, request, A, S): A the user's last `window` ratios
    as runtimes of the request (oldest first; with `near`, (runtime, that job's request)
    pairs), S the runtimes of the user's last `same_window` jobs of the same request."""
    def make(moment: Moment, history) -> list:
        out = []
        for job in sorted(moment.jobs, key=lambda j: j.id):
            el = moment.now - job.start_time if job.state.active and job.start_time is not None else 0
            q = max(int(job.wallclock), 1)
            past = tuple(history.get(job.user, ()))
            a = tuple((_runtime(r / rq, q), rq) if near else _runtime(r / rq, q)
                      for r, rq in past[-window:] if rq > 0)
            s = tuple(min(q, max(1, r)) for r, rq in past[-same_window:] if rq == job.wallclock)
            out.append((job, el, q, a, s))
        return out
    return make


def _pick(rng: random.Random, pool):
    return pool[rng.randrange(len(pool))] if len(pool) > 1 else pool[0]


def _above(xs, el: int) -> list:
    return [s for s in xs if s > el]


def each_job(rule: Callable) -> Callable:
    """A draw applying rule(rng, elapsed, request, A, S) to each job of a rich menu."""
    def draw(menu, rng):
        return [(job, rule(rng, el, q, a, s)) for job, el, q, a, s in menu]
    return draw


def recent_rule(recent: int = 4, p: float = 0.5) -> Callable:
    """runtimes.draw_recent over the menu's window: with probability p among the last
    `recent` above elapsed, else among all above it (the request when none is)."""
    def rule(rng, el, q, a, s):
        last = _above(a[-recent:], el)
        pool = last if rng.random() < p and last else (_above(a, el) or [q])
        return _pick(rng, pool)
    return rule


def same_request_rule(recent: int = 4, min_same: int = 1, fallback_same: bool = False) -> Callable:
    """recent_rule with the user's last `recent` jobs of the same request (when at least
    `min_same` are known) in place of the user's last `recent`; `fallback_same`: the other
    half among all same-request jobs when there are `recent` of them."""
    def rule(rng, el, q, a, s):
        s_last = _above(s[-recent:], el)
        last = s_last if len(s) >= min_same and s_last else _above(a[-recent:], el)
        if rng.random() < 0.5 and last:
            return _pick(rng, last)
        if fallback_same and len(_above(s, el)) >= recent:
            return _pick(rng, _above(s, el))
        return _pick(rng, _above(a, el) or [q])
    return rule


def near_request_rule(recent: int = 4) -> Callable:
    """recent_rule's lean on the user's last `recent` jobs whose request is within a factor
    2 of this one's (their ratios as runtimes of this request), else the user's last."""
    def rule(rng, el, q, a, s):
        near = [x for x, rq in a if q / 2 <= rq <= 2 * q][-recent:]
        last = _above(near, el) or _above([x for x, _ in a[-recent:]], el)
        pool = last if rng.random() < 0.5 and last else (_above([x for x, _ in a], el) or [q])
        return _pick(rng, pool)
    return rule


def stable_rule(recent: int = 4) -> Callable:
    """recent_rule whose lean grows as the user's last ratios agree: p = 1/2 + 1/2 (1 -
    (max - min) / max) over the last `recent`."""
    def rule(rng, el, q, a, s):
        tail = a[-recent:]
        p = 0.5 + 0.5 * (1 - (max(tail) - min(tail)) / max(tail)) if len(tail) >= 2 else 0.5
        last = _above(tail, el)
        pool = last if rng.random() < p and last else (_above(a, el) or [q])
        return _pick(rng, pool)
    return rule


RULES: dict[str, Rule] = {
    "recent": Rule(lambda m, h: engine.choices(m, h, 32), lambda menu, rng: engine.draws(menu, rng, "recent"), 40),
    "job": Rule(lambda m, h: engine.choices(m, h, 32), lambda menu, rng: engine.draws(menu, rng, "job")),
    "similar": Rule(lambda m, h: engine.choices(m, h, 32), lambda menu, rng: engine.draws(menu, rng, "similar")),
    "w64": Rule(rich_menu(64), each_job(recent_rule())),
    "w128": Rule(rich_menu(128), each_job(recent_rule())),
    "p65": Rule(rich_menu(), each_job(recent_rule(p=0.65))),
    "sameq": Rule(rich_menu(), each_job(same_request_rule())),
    "sameq2": Rule(rich_menu(), each_job(same_request_rule(min_same=2))),
    "sameq_fb": Rule(rich_menu(), each_job(same_request_rule(fallback_same=True))),
    "sameq256": Rule(rich_menu(32, 256), each_job(same_request_rule()), 40),     # = similar, 40 replays
    "simq": Rule(rich_menu(near=True), each_job(near_request_rule())),
    "stable": Rule(rich_menu(), each_job(stable_rule())),
}
"""`recent` and `sameq256` run 40 replays: their first 20 are the K = 20 figures."""


class Runs:
    """The samples of every rule at every forecast moment of one replay."""

    def __init__(self, cfg, rules: list[str], samples: int, seed: int, history: int):
        self.cfg, self.rules, self.k, self.seed = cfg, rules, samples, seed
        self.opt = ForecastOptions(samples=1, seed=seed, window=history)
        self.fc = SimForecaster(cfg, self.opt, simforecast.plan_maker(cfg), self.then, None)
        self.made = 0
        self.samples: dict[str, dict[str, tuple[int, list[int]]]] = {r: {} for r in rules}
        self.plans: dict[str, int | None] = {}
        self.cpu = dict.fromkeys(rules, 0.0)

    def then(self, t: int, result) -> None:
        """After the forecaster's own batch (one replay, for its history and its plan):
        every rule's replays of the jobs it forecast at t."""
        new = list(self.fc.forecasts)[self.made:]
        self.made = len(self.fc.forecasts)
        if not new:
            return
        sim = self.fc.sim
        moment = Moment(t, sim.nodes, sim.rm.live())
        for jid in new:
            self.plans[jid] = self.fc.forecasts[jid][1].plan
        base, end = plain_copy(result.state), t + self.opt.horizon
        for name in self.rules:
            c0, rule = time.process_time(), RULES[name]
            menu = rule.menu(moment, self.fc.history)
            seen: dict[str, list[int]] = {jid: [] for jid in new}
            for k in range(rule.samples or self.k):
                present = rule.draw(menu, random.Random(f"{self.seed}:{t}:{k}"))
                for jid, s in replay_once(moment, self.cfg, copy.deepcopy(base), present, new, self.opt).items():
                    seen[jid].append(end if s is None else s)
            for jid in new:
                self.samples[name][jid] = (t, seen[jid])
            self.cpu[name] += time.process_time() - c0


def replay(a: argparse.Namespace) -> dict:
    """Run the replay with every rule; the data the figures are made from."""
    sp = argparse.ArgumentParser()
    simulate.add_arguments(sp)
    args = sp.parse_args([a.trace, "--jobs", str(a.jobs), "-c", a.cfg, "-q"])
    cfg = load_config(a.cfg)
    w = simulate.load_workload(args, a.trace)
    runs = Runs(cfg, a.rules, a.samples, a.seed, a.history)
    sim = Simulation(w.nodes, w.jobs, cfg, SimOptions(on_cycle=runs.fc.on_cycle, leave_idle=False,
                                                      cycle_reserves=False), a.cfg)
    runs.fc.attach(sim)
    sim.run()
    starts = {jid: sim.rm.records[jid].start for jid in runs.plans}
    return {"samples": runs.samples, "plans": runs.plans, "starts": starts, "cpu": runs.cpu,
            "what": f"{Path(a.trace).name} {a.cfg} jobs {a.jobs} seed {a.seed}"}


def forecasts(samples: dict, plans: dict, k: int) -> dict[str, tuple[int, Forecast]]:
    """Each job's forecast from its first k samples (nearest-rank quantiles)."""
    out = {}
    for jid, (at, v) in samples.items():
        v = v[:k]
        out[jid] = (at, Forecast(jid, quantile(v, 0.1), quantile(v, 0.5), quantile(v, 0.9), len(v), 0, plans[jid]))
    return out


def calibrated(raw: dict, starts: dict) -> dict[str, tuple[int, Forecast]]:
    """Each forecast moved by the jobs forecast before that started by its moment, as
    simulated.SimForecaster does during the replay."""
    cal = Calibration(WINDOW, MIN_JOBS)
    done = sorted((s, jid) for jid, s in starts.items() if s is not None and jid in raw)
    i, out = 0, {}
    for jid, (at, f) in sorted(raw.items(), key=lambda kv: (kv[1][0], kv[0])):
        while i < len(done) and done[i][0] <= at:
            s, j = done[i]
            cal.add(raw[j][0], raw[j][1], s)
            i += 1
        out[jid] = (at, cal.adjust(at, f))
    return out


def figures(data: dict) -> list[str]:
    """One line a rule and sample count: jobs, coverage raw -> calibrated, MAE p50, plan's."""
    lines = [data["what"]]
    for name, samples in data["samples"].items():
        n = max((len(v) for _at, v in samples.values()), default=0)
        for k in sorted({min(20, n), n} - {0}):
            raw = forecasts(samples, data["plans"], k)
            r = accuracy(raw.values(), data["starts"])
            c = accuracy(calibrated(raw, data["starts"]).values(), data["starts"])
            if not c.jobs or not c.mae_plan:
                continue
            lines.append(f"  {name:>10} K {k:<3} jobs {c.jobs:4d}  coverage {100 * r.coverage_80:5.1f} -> "
                         f"{100 * c.coverage_80:5.1f} %  MAE p50 {c.mae_p50:6d} s  plan {c.mae_plan:6d} s  "
                         f"p50/plan {c.mae_p50 / c.mae_plan:.3f}  ({data['cpu'][name]:.0f} CPU s)")
    return lines


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("trace", nargs="?")
    p.add_argument("cfg", nargs="?")
    p.add_argument("rules", nargs="*", metavar="RULE", help=f"among {', '.join(RULES)}")
    p.add_argument("--jobs", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--samples", type=int, default=20)
    p.add_argument("--history", type=int, default=256, help="pairs a user the history keeps")
    p.add_argument("--save", type=Path)
    p.add_argument("--load", type=Path, nargs="*", default=[])
    a = p.parse_args()
    unknown = [r for r in a.rules if r not in RULES]
    if unknown or (a.trace and not (a.cfg and a.rules)):
        p.error(f"unknown rules {unknown}" if unknown else "give TRACE CFG RULE ...")
    datas = [json.loads(path.read_text()) for path in a.load]
    if a.trace:
        datas.append(replay(a))
        if a.save:
            a.save.write_text(json.dumps(datas[-1]))
    for data in datas:
        print("\n".join(figures(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
