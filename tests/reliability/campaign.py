"""The bad-input campaign: recorded resource-manager output, mutated, through the whole path.

Every case takes one recorded document (tests/adapters/data/slurm, .../torque), mutates it
(byte flips, truncations, huge and non-finite numbers, unicode digits, deep nesting,
duplicated records, hostlist bombs, negative values, impossible array specs...), and pushes
it through parse -> check_snapshot -> run_cycle -> Store.save_cycle, paired with the clean
document of the other half (nodes with jobs). A case ends in one of:

- clean: a refused document (the adapter's RMError), or warnings naming what was skipped,
  or nothing to report (the mutation was harmless);
- uncaught: any other exception, anywhere on the path;
- hang: more than HANG_SECONDS of CPU time (CPU, not wall time, so that other work on a
  shared machine does not make a case slow; cases are cut at CUT_SECONDS of wall time).

A case also fails when records went missing without a warning. Seeded: the same seed and
count give the same cases. `python -m tests.reliability.campaign` prints the table.
"""

from __future__ import annotations

import json
import random
import re
import signal
import sys
import tempfile
import time
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from maui_py.adapters.slurm.parse import (parse_scontrol_jobs, parse_scontrol_nodes,
                                          parse_sinfo_json, parse_squeue_json)
from maui_py.adapters.torque.parse import TorqueParseError, parse_pbsnodes, parse_qstat
from maui_py.cfg import parse_config
from maui_py.core.cycle import run_cycle
from maui_py.core.state import SchedulerState
from maui_py.model import ClusterSnapshot, JobState
from maui_py.rm.check import check_snapshot
from maui_py.store import Store
from maui_py.store.journal import capture, cycle_entries

DATA = Path(__file__).resolve().parent.parent / "adapters" / "data"
CONFIG = parse_config("RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n")
NOW = 1_800_000_000
HANG_SECONDS = 2.0
CUT_SECONDS = 10.0
SEED = 13

NASTY_NUMBERS = ["1e999", "-1e999", "NaN", "-1", "-60", "0", "9" * 400, "-" + "9" * 400,
                 str(2 ** 64), str(10 ** 18), "1.5", "\u0663\u0664", "\uff17",
                 "18446744073709551615", "4294967294", "4294967295", "1e308", "-0"]
NASTY_TEXT = ["", "(null)", "n[0-99999999]", "n[0-9][0-9][0-9][0-9][0-9][0-9]", "5-1",
              "0-9:0", "1,1,1", "n[1-3", "]", "\x00", "\u202e", "x" * 5000, "[[[[", "%",
              "gpu:99999999999999999999", "gres/gpu:1e999", "UNLIMITED", "-5-00:00:00",
              "99999999999:00:00", "1-2,2-3", "n[00-05]n[1-200]", "a" * 100 + "[1-9]"]


# ------------------------------------------------------------------ mutations
def _numbers(text: str) -> list[re.Match]:
    return list(re.finditer(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])", text))


def flip(rng: random.Random, text: str) -> str:
    """A few random bytes changed to random characters (control and non-ASCII included)."""
    chars = list(text)
    for _ in range(rng.randint(1, 8)):
        if chars:
            chars[rng.randrange(len(chars))] = chr(rng.choice([rng.randint(0, 127),
                                                               rng.randint(128, 0x2FFF)]))
    return "".join(chars)


def truncate(rng: random.Random, text: str) -> str:
    return text[:rng.randrange(len(text) + 1)]


def cut_span(rng: random.Random, text: str) -> str:
    i = rng.randrange(len(text) + 1)
    return text[:i] + text[i + rng.randint(1, 200):]


def huge_number(rng: random.Random, text: str) -> str:
    """Random numbers replaced by huge, negative, non-finite or unicode ones."""
    found = _numbers(text)
    if not found:
        return text + rng.choice(NASTY_NUMBERS)
    out, last = [], 0
    for m in sorted(rng.sample(found, min(len(found), rng.randint(1, 4))), key=lambda m: m.start()):
        out += [text[last:m.start()], rng.choice(NASTY_NUMBERS)]
        last = m.end()
    return "".join(out) + text[last:]


def deep_nesting(rng: random.Random, text: str) -> str:
    depth = rng.choice([50, 990, 5_000, 100_000])
    i = rng.randrange(len(text) + 1)
    o, c = rng.choice([("[", "]"), ("{\"a\":", "}"), ("<a>", "</a>"), ("(", ")")])
    return text[:i] + o * depth + "1" + c * depth + text[i:]


def garbage(rng: random.Random, text: str) -> str:
    """100 KB of text no parser expects, at a random place (the quadratic regex's food)."""
    unit = rng.choice(["<Job>", "<Job><Job_Id>", "[", "a=", "n[1-2],", "\"", "<", "x"])
    i = rng.randrange(len(text) + 1)
    return text[:i] + unit * (100_000 // len(unit)) + text[i:]


def value_swap(rng: random.Random, text: str) -> str:
    """The value of a random field (JSON, Key=Value or XML element) set to nasty text."""
    fields = list(re.finditer(r'(": ?)("[^"\n]*"|-?[\d.]+)|(=)([^ \n]*)|(>)([^<>\n]*)(?=</)', text))
    if not fields:
        return text
    m = rng.choice(fields)
    value = rng.choice(NASTY_TEXT + NASTY_NUMBERS)
    if m.group(1):
        new = json.dumps(value) if rng.random() < 0.6 else (value if _numbers(value) else "null")
        return text[:m.start(2)] + new + text[m.end(2):]
    g = 4 if m.group(3) else 6
    value = value.replace("<", "&lt;").replace("&", "&amp;") if g == 6 else value.replace(" ", "")
    return text[:m.start(g)] + value + text[m.end(g):]


def duplicate(rng: random.Random, text: str) -> str:
    """A record (JSON list element, line, XML element) repeated, possibly changed."""
    if text.lstrip().startswith("{"):
        try:
            doc = json.loads(text)
        except ValueError:
            return text
        items = doc.get("jobs") or doc.get("nodes")
        if isinstance(items, list) and items:
            for _ in range(rng.randint(1, 3)):
                copy = json.loads(json.dumps(rng.choice(items)))
                if rng.random() < 0.5 and isinstance(copy, dict):
                    key = rng.choice(list(copy))
                    copy[key] = rng.choice([None, -1, 10 ** 30, "x", [], {}])
                items.insert(rng.randrange(len(items) + 1), copy)
        return json.dumps(doc)
    for tag in ("Job", "Node"):
        blocks = list(re.finditer(rf"<{tag}>.*?</{tag}>", text, re.DOTALL))
        if blocks:
            b = rng.choice(blocks)
            return text[:b.end()] + b.group() * rng.randint(1, 3) + text[b.end():]
    lines = text.splitlines()
    if not lines:
        return text
    k = rng.randrange(len(lines))
    lines[k:k] = [lines[k]] * rng.randint(1, 3)
    return "\n".join(lines)


def array_spec(rng: random.Random, text: str) -> str:
    """Job array specs that name no task, repeat tasks or are huge."""
    spec = rng.choice(["5-1", "0-9:0", "1-3,2-4", "0-99999999999", "1,1", "-3-1", "3-1:-1",
                       "0-" + "9" * 40])
    if text.lstrip().startswith("{"):
        text = re.sub(r'"array_job_id": ?\d+', '"array_job_id": 77', text, count=1)
        return re.sub(r'"array_task_string": ?"[^"]*"', json.dumps(spec).join(['"array_task_string": ', '']),
                      text, count=1).replace('"array_task_id": null', '"array_task_id": null')
    text = re.sub(r"ArrayJobId=\S*", "ArrayJobId=77", text, count=1)
    text = re.sub(r"JobId=\d+ ", "JobId=77 ArrayJobId=77 ", text, count=1) \
        if "ArrayJobId" not in text else text
    return re.sub(r"ArrayTaskId=\S*", "ArrayTaskId=" + spec, text, count=1) \
        if "ArrayTaskId=" in text else text.replace("ArrayJobId=77", "ArrayJobId=77 ArrayTaskId=" + spec, 1)


def hostlist_bomb(rng: random.Random, text: str) -> str:
    bomb = rng.choice(["n[0-99999999]", "a[1-1000]b[1-1000]", "n[" + "0-9," * 30000 + "1]",
                       "n" + "[1-2]" * 40, "n[1-" + "9" * 300 + "]"])
    keys = [r'("(?:nodes|required_nodes)": ?)"[^"]*"', r"((?:NodeList|ReqNodeList)=)\S*",
            r"(<exec_host>)[^<]*", r"(<nodes>)[^<]*"]
    for key in rng.sample(keys, len(keys)):
        if re.search(key, text):
            rep = json.dumps(bomb) if key.startswith('("') else bomb
            return re.sub(key, lambda m: m.group(1) + rep, text, count=rng.randint(1, 3))
    return text + bomb


MUTATIONS: dict[str, Callable[[random.Random, str], str]] = {
    "byte flips": flip, "truncation": truncate, "cut span": cut_span,
    "huge/non-finite/unicode numbers": huge_number, "nasty field values": value_swap,
    "deep nesting": deep_nesting, "100 KB garbage": garbage, "duplicated records": duplicate,
    "array specs": array_spec, "hostlist bombs": hostlist_bomb,
}


# ------------------------------------------------------------------ the path
@dataclass(frozen=True)
class Source:
    """One recorded document and how to turn it, with its partner, into a snapshot."""

    name: str
    rm: str          # slurm-json | slurm-text | torque
    part: str        # nodes | jobs
    partner: str


def sources() -> list[Source]:
    s = DATA / "slurm"
    out = []
    for flavour in ("", "-live", "-holdmode"):
        out += [Source(f"slurm/squeue{flavour}.json", "slurm-json", "jobs", f"slurm/sinfo{flavour}.json"),
                Source(f"slurm/sinfo{flavour}.json", "slurm-json", "nodes", f"slurm/squeue{flavour}.json"),
                Source(f"slurm/scontrol-show-job-o{flavour}.txt", "slurm-text", "jobs",
                       f"slurm/scontrol-show-node-o{flavour}.txt"),
                Source(f"slurm/scontrol-show-node-o{flavour}.txt", "slurm-text", "nodes",
                       f"slurm/scontrol-show-job-o{flavour}.txt")]
    t = "torque/torque-"
    for q in ("qstat-f-x.xml", "qstat-f-x-held.xml", "qstat-f-x-queued.xml", "qstat-f-x-completed.xml"):
        out.append(Source(t + q, "torque", "jobs", t + "pbsnodes-x.xml"))
    out += [Source(t + "pbsnodes-x.xml", "torque", "nodes", t + "qstat-f-x.xml"),
            Source(t + "pbsnodes-x-2.xml", "torque", "nodes", t + "qstat-f-x-queued.xml")]
    assert all((DATA / x.name).exists() and (DATA / x.partner).exists() for x in out), s
    return out


def _records_in(src: Source, text: str) -> int | None:
    """How many records the parser should account for (None: the document is refused or,
    for malformed XML, only 'some' is known)."""
    if src.rm == "slurm-json":
        try:
            doc = json.loads(text)
        except (ValueError, RecursionError):
            return None
        items = doc.get(src.part) if isinstance(doc, dict) else None
        return len(items) if isinstance(items, list) else None
    if src.rm == "slurm-text":
        return len([ln for ln in text.splitlines() if ln.strip() and not ln.startswith("No ")])
    try:
        return len(ET.fromstring(text.strip()).findall("Job" if src.part == "jobs" else "Node"))
    except ET.ParseError:
        return None


class Refused(Exception):
    """The document as a whole was refused: what the adapter turns into RMError."""


def snapshot_of(src: Source, text: str, partner: str) -> tuple[ClusterSnapshot, int]:
    """(snapshot, records the parsers kept from `text`) the way the adapters build them."""
    nodes_text, jobs_text = (text, partner) if src.part == "nodes" else (partner, text)
    try:
        if src.rm == "torque":
            nodes = parse_pbsnodes(nodes_text)
            records = parse_qstat(jobs_text, now=NOW, node_names={n.name for n in nodes})
            jobs = tuple(r.job for r in records
                         if r.job.state is not JobState.COMPLETED and not r.is_array_parent)
            kept = len(nodes) if src.part == "nodes" else len(records)
            return ClusterSnapshot(NOW, tuple(nodes), jobs), kept
        if src.rm == "slurm-json":
            nodes = parse_sinfo_json(nodes_text)
            parsed = parse_squeue_json(jobs_text)
        else:
            nodes = parse_scontrol_nodes(nodes_text)
            parsed = parse_scontrol_jobs(jobs_text)
    except (ValueError, TorqueParseError) as e:
        raise Refused(str(e)[:200]) from None
    kept = len(nodes) if src.part == "nodes" else len(set(parsed.slurm_ids.values()))
    return ClusterSnapshot(NOW, tuple(nodes), parsed.active().jobs), kept


class _Cut(Exception):
    pass


def _alarm(_sig, _frame):
    raise _Cut()


@dataclass
class Row:
    cases: int = 0
    clean: int = 0          # refused or warned
    quiet: int = 0          # nothing to report
    uncaught: int = 0
    hangs: int = 0
    silent_skips: int = 0
    slowest: float = 0.0
    failures: list[str] = field(default_factory=list)


def run_case(src: Source, text: str, partner: str, store: Store) -> tuple[str, float, str]:
    """('clean' | 'quiet' | 'uncaught' | 'silent', CPU seconds, detail) for one mutated
    document."""
    t0 = time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            snap, kept = snapshot_of(src, text, partner)
        except Refused as e:
            return "clean", time.process_time() - t0, str(e)
        checked, problems = check_snapshot(snap)
        state = SchedulerState()
        before = capture(state)
        result = run_cycle(checked, CONFIG, state)
        store.save_cycle(result, checked, journal=cycle_entries(before, result, checked))
    elapsed = time.process_time() - t0
    told = len(caught) + len(problems)
    expected = _records_in(src, text)
    if expected is not None and kept + told < expected:
        return "silent", elapsed, f"{expected} records, {kept} kept, {told} warnings"
    if expected is None and src.rm == "torque" and kept < text.count(
            "<Job>" if src.part == "jobs" else "<Node>") and told == 0:
        return "silent", elapsed, "records of a malformed document lost without a warning"
    return ("clean" if told else "quiet"), elapsed, ""


def run(count: int = 3000, seed: int = SEED, progress: Callable[[str], None] | None = None
        ) -> dict[str, Row]:
    """`count` cases spread over every mutation and source; the table by mutation."""
    rng = random.Random(seed)
    srcs = sources()
    texts = {p: (DATA / p).read_text() for s in srcs for p in (s.name, s.partner)}
    rows = {name: Row() for name in MUTATIONS}
    old = signal.signal(signal.SIGALRM, _alarm)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(Path(tmp) / "campaign.db")
        store.conn.execute("PRAGMA synchronous = OFF")
        try:
            for i in range(count):
                name = list(MUTATIONS)[i % len(MUTATIONS)]
                src = srcs[(i // len(MUTATIONS)) % len(srcs)]
                case_rng = random.Random(rng.getrandbits(64))
                mutated = MUTATIONS[name](case_rng, texts[src.name])
                if case_rng.random() < 0.3:
                    mutated = MUTATIONS[case_rng.choice(list(MUTATIONS))](case_rng, mutated)
                row = rows[name]
                row.cases += 1
                signal.setitimer(signal.ITIMER_REAL, CUT_SECONDS)
                t0 = time.process_time()
                try:
                    outcome, elapsed, detail = run_case(src, mutated, texts[src.partner], store)
                except _Cut:
                    outcome, elapsed, detail = "hang", time.process_time() - t0, "cut"
                except Exception as e:  # noqa: BLE001 - counting them is the point
                    outcome, elapsed = "uncaught", time.process_time() - t0
                    detail = f"{type(e).__name__}: {str(e)[:160]}"
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                row.slowest = max(row.slowest, elapsed)
                if elapsed > HANG_SECONDS and outcome != "hang":
                    outcome, detail = "hang", f"{elapsed:.1f} s"
                if outcome == "clean":
                    row.clean += 1
                elif outcome == "quiet":
                    row.quiet += 1
                else:
                    setattr(row, {"uncaught": "uncaught", "hang": "hangs",
                                  "silent": "silent_skips"}[outcome],
                            getattr(row, {"uncaught": "uncaught", "hang": "hangs",
                                          "silent": "silent_skips"}[outcome]) + 1)
                    row.failures.append(f"case {i} {name} on {src.name}: {outcome}: {detail}")
                    if progress:
                        progress(row.failures[-1])
        finally:
            signal.signal(signal.SIGALRM, old)
            store.close()
    return rows


def table(rows: dict[str, Row]) -> str:
    head = ("| input kind | cases | clean errors/warnings | nothing to report | uncaught "
            "| hangs (> 2 s) | silent skips | slowest case (CPU s) |")
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|---:|"]
    total = Row()
    for name, r in rows.items():
        lines.append(f"| {name} | {r.cases} | {r.clean} | {r.quiet} | {r.uncaught} | {r.hangs} "
                     f"| {r.silent_skips} | {r.slowest:.2f} |")
        for k in ("cases", "clean", "quiet", "uncaught", "hangs", "silent_skips"):
            setattr(total, k, getattr(total, k) + getattr(r, k))
        total.slowest = max(total.slowest, r.slowest)
    lines.append(f"| **all** | {total.cases} | {total.clean} | {total.quiet} | {total.uncaught} "
                 f"| {total.hangs} | {total.silent_skips} | {total.slowest:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    rows = run(args.cases, args.seed, progress=lambda s: print(s, file=sys.stderr))
    print(table(rows))
    print(f"\n{args.cases} cases, seed {args.seed}, {time.perf_counter() - t0:.0f} s")
    return 1 if any(r.uncaught or r.hangs or r.silent_skips for r in rows.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
