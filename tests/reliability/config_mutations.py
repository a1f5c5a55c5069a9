"""A seeded mutation campaign over the shipped config/*.cfg files (issue 13).

Each mutant (number blow-ups, other scripts' digits, deleted, duplicated and swapped lines, cut
characters, new lines of any parameter with an extreme value or index) is parsed with
maui_py.cfg: a ConfigError is the clean outcome. A mutant that loads is shown (showconfig) and
replayed on the same ~100 generated jobs, bounded in simulated time (SimOptions.stop_time) and
in wall-clock time; anything else raised is a failure. Running it as a program prints the
figures quoted in docs/reliability.md:

    .venv/bin/python -m tests.reliability.config_mutations [MUTANTS] [SEED]
"""

from __future__ import annotations

import random
import re
import signal
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from maui_py.cfg import PARAMS, ConfigError, parse_config
from maui_py.cfg.params import OBJECT
from maui_py.cli.showconfig import render
from maui_py.cli.simulate import compress
from maui_py.sim import lublin
from maui_py.sim.cluster import cluster_from_option
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.swf import clean, to_sim_jobs

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted((ROOT / "config").glob("*.cfg"))
MACHINE, NODES, JOBS = 32, "8x4", 100
SIM_DAYS = 3
"""Simulated days a replay may run past the last submission (SimOptions.stop_time): a replay still
cycling in the last of them when it is stopped counts as a stop-time hit (a replay that would
never end, such as `SRCFG[x] CLASSLIST=x` before the simulator's fix)."""
WALL_SECONDS = 5.0
"""Wall-clock bound of one replay (a cycle that never returns is a failure, not a hang)."""

BIG = ("9" * 5000, "9" * 4301, "1" + "0" * 40, "99999999999999999999", "1e400", "-1e400", "1e308", "1e-400",
       "nan", "NaN", "inf", "-inf", "Infinity", "-0", "0", "-1", "4294967296", "2147483648", "0.0000001",
       "-99999999", "1e18", "123456789012345678")
UNICODE_DIGITS = ("²", "³", "¹", "٣", "５", "߁", "𝟗", "Ⅻ", "½")
INDEXES = ("²", "٣", "9" * 5000, "-1", "0", "1", "127", "128", "x", "", "ALL", "DEFAULT")
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_DIGIT = re.compile(r"[0-9]")


class _WallTimeout(Exception):
    """One replay ran longer than WALL_SECONDS of wall-clock time."""


@dataclass
class Outcome:
    """Counts of one campaign, and the mutants that failed (text, error) or hit a bound."""

    mutants: int = 0
    refused: int = 0
    loaded: int = 0
    replayed: int = 0
    stop_time_hits: list[str] = field(default_factory=list)
    stranded: list[str] = field(default_factory=list)
    wall_hits: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    failures: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    by_kind: dict[str, dict[str, int]] = field(default_factory=dict)
    """kind -> counts (mutants, refused, loaded, stop, stranded, uncaught) for the docs' table."""

    def table(self) -> str:
        """The Markdown rows of docs/reliability.md, one per input kind and a total."""
        cols = ("mutants", "refused", "loaded", "stop", "stranded", "uncaught")
        rows = ["| input kind | mutants | refused (ConfigError) | loaded, shown, replayed | stop-time hits "
                "| jobs never started | uncaught |", "|---|---:|---:|---:|---:|---:|---:|"]
        total = dict.fromkeys(cols, 0)
        for kind in KINDS:
            counts = self.by_kind.get(kind, dict.fromkeys(cols, 0))
            rows.append(f"| {kind} | " + " | ".join(str(counts[c]) for c in cols) + " |")
            total = {c: total[c] + counts[c] for c in cols}
        rows.append("| **all** | " + " | ".join(str(total[c]) for c in cols) + " |")
        return "\n".join(rows)

    def summary(self) -> str:
        return (f"{self.mutants} mutants of {len(CONFIGS)} configs: {self.refused} refused with ConfigError, "
                f"{self.loaded} loaded, {self.replayed} distinct ones replayed ({JOBS} jobs), "
                f"{len(self.stop_time_hits)} stop-time hits, "
                f"{len(self.stranded)} ended with jobs never started (held or unrunnable), "
                f"{len(self.wall_hits)} wall-clock hits, {len(self.violations)} schedule violations, "
                f"{len(self.failures)} uncaught exceptions, {self.seconds:.1f} s")


def workload():
    """(nodes, jobs, stop time): the ~100 generated jobs every loaded mutant replays."""
    records, _ = clean(lublin.generate(JOBS, MACHINE, 11), MACHINE)
    jobs = to_sim_jobs(compress(records, MACHINE, 0.9))
    last = max(sj.job.submit_time for sj in jobs)
    return cluster_from_option(NODES), jobs, last + SIM_DAYS * 86400


def _new_line(rng: random.Random) -> str:
    """A line of any parameter of the table with an extreme value and, sometimes, an index."""
    param = PARAMS[rng.choice(sorted(PARAMS))]
    value = rng.choice(BIG + UNICODE_DIGITS + ("ALL", "[NONE]", ""))
    if param.scope == OBJECT:
        attr = rng.choice(sorted(param.attrs)) if param.attrs else "X"
        return f"{param.name}[{rng.choice(('x', 'DEFAULT', 'batch'))}] {attr}={value}"
    index = f"[{rng.choice(INDEXES)}]" if rng.random() < 0.4 else ""
    return f"{param.name}{index} {value}"


KINDS = ("number blow-up", "unicode digit", "deleted line", "duplicated line", "cut characters",
         "swapped lines", "new extreme line")
"""The input kinds of docs/reliability.md: each mutant makes one to three edits of one kind."""


def mutate(text: str, rng: random.Random, kind: int | None = None) -> str:
    """One to three random edits of a config text, all of KINDS[kind] (any kinds when None)."""
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(8) if kind is None else kind
        pattern = _NUMBER if op == 0 else _DIGIT if op == 1 else None
        candidates = [i for i, text_line in enumerate(lines) if pattern.search(text_line)] if pattern else []
        at = rng.choice(candidates) if candidates else rng.randrange(len(lines)) if lines else 0
        line = lines[at] if lines else ""
        if op == 0 and _NUMBER.search(line):           # number blow-up
            spans = list(_NUMBER.finditer(line))
            m = rng.choice(spans)
            lines[at] = line[:m.start()] + rng.choice(BIG) + line[m.end():]
        elif op == 1 and _DIGIT.search(line):          # a digit of another script
            m = rng.choice(list(_DIGIT.finditer(line)))
            lines[at] = line[:m.start()] + rng.choice(UNICODE_DIGITS) + line[m.end():]
        elif op == 2 and lines:                         # delete a line
            del lines[at]
        elif op == 3 and lines:                         # duplicate a line somewhere
            lines.insert(rng.randrange(len(lines) + 1), line)
        elif op == 4 and len(line) > 1:                 # cut a few characters
            start = rng.randrange(len(line))
            lines[at] = line[:start] + line[start + rng.randint(1, 10):]
        elif op == 5 and len(lines) > 1:                # swap two lines
            other = rng.randrange(len(lines))
            lines[at], lines[other] = lines[other], lines[at]
        elif op in (0, 1, 2, 3, 4, 5):                 # the line had nothing to edit: another one
            continue
        else:                                           # a new line of any parameter
            lines.insert(rng.randrange(len(lines) + 1), _new_line(rng))
    return "\n".join(lines)


def _alarm(_signum, _frame):
    raise _WallTimeout()


def run_campaign(mutants: int = 1500, seed: int = 13) -> Outcome:
    """Run `mutants` seeded mutants (spread over the shipped configs); see the module doc."""
    rng = random.Random(seed)
    nodes, jobs, stop = workload()
    sources = [(path.name, path.read_text()) for path in CONFIGS]
    out = Outcome()
    replayed: set[str] = set()
    started = time.perf_counter()
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        for k in range(mutants):
            name, text = sources[k % len(sources)]
            kind = (k // len(sources)) % len(KINDS)
            mutant = mutate(text, rng, kind)
            out.mutants += 1
            label = f"{name}#{k}"
            before = (out.refused, out.loaded, len(out.stop_time_hits), len(out.stranded), len(out.failures))
            try:
                _one(label, mutant, nodes, jobs, stop, out, replayed)
            except Exception as e:              # noqa: BLE001 - counting is the point
                out.failures.append((mutant, f"{label}: {''.join(traceback.format_exception(e))}"))
            after = (out.refused, out.loaded, len(out.stop_time_hits), len(out.stranded), len(out.failures))
            counts = out.by_kind.setdefault(KINDS[kind], dict.fromkeys(
                ("mutants", "refused", "loaded", "stop", "stranded", "uncaught"), 0))
            counts["mutants"] += 1
            for col, b, a in zip(("refused", "loaded", "stop", "stranded", "uncaught"), before, after):
                counts[col] += a - b
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    out.seconds = time.perf_counter() - started
    return out


def _one(label: str, mutant: str, nodes, jobs, stop: int, out: Outcome, replayed: set[str]) -> None:
    """Load one mutant; when it loads, show it and replay it under both bounds (once per distinct
    set of settings: most edits of a line the replay does not read give the same configuration)."""
    try:
        cfg = parse_config(mutant, label)
    except ConfigError as e:
        out.refused += 1
        unnamed = [str(i) for i in e.issues if i.file != label or i.line < 1 or i.column < 1]
        if unnamed:
            raise AssertionError(f"issues without file:line:col: {unnamed}") from None
        return
    out.loaded += 1
    render(cfg, verbose=True)
    key = repr(sorted(cfg.snapshot().items(), key=repr))
    if key in replayed:             # the same settings as an earlier mutant: same replay
        return
    replayed.add(key)
    last = [0]
    options = SimOptions(stop_time=stop, on_cycle=lambda t, _result: last.__setitem__(0, t))
    signal.setitimer(signal.ITIMER_REAL, WALL_SECONDS)
    try:
        result = Simulation(nodes, jobs, cfg, options, label).run()
    except _WallTimeout:
        out.wall_hits.append(label)
        return
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    out.replayed += 1
    if result.unfinished:
        (out.stop_time_hits if last[0] > stop - 86400 else out.stranded).append(label)
    if not result.check.ok:
        out.violations.append(label)


if __name__ == "__main__":
    outcome = run_campaign(*(int(a) for a in sys.argv[1:3]))
    print(outcome.summary())
    print(outcome.table())
    for what, labels in (("stop-time hits", outcome.stop_time_hits), ("wall-clock hits", outcome.wall_hits),
                         ("never started", outcome.stranded),
                         ("schedule violations", outcome.violations)):
        if labels:
            print(f"{what}: {', '.join(labels[:20])}{' ...' if len(labels) > 20 else ''}")
    for mutant, error in outcome.failures[:5]:
        print(error)
    sys.exit(1 if outcome.failures else 0)
