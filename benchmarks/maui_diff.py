"""maui-py against the real Maui 3.3 on every recorded fixture (tests/fixtures/maui/).

For each fixture: replays its jobs in maui-py (tests/fixtures/maui/load.py: policy.cfg plus
the extra lines given here) and prints the jobs, how many start times differ from Maui's,
how many host sets differ among the jobs that start at the same time, the first job whose
start differs (earliest in simulated time, with both starts), and the mean bounded slowdown
(threshold 10 s) of Maui and of maui-py. Prints figures; asserts nothing.

    python benchmarks/maui_diff.py                        # today's rules
    python benchmarks/maui_diff.py "MAUICOMPAT 3.3"       # extra config lines
    python benchmarks/maui_diff.py --only kth-cons-highest --only kth-easy-minresource
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "tests" / "fixtures" / "maui"
BSLD_THRESHOLD = 10


def _load_module():
    spec = importlib.util.spec_from_file_location("maui_fixture_load", FIXTURES / "load.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, mod)     # dataclasses look the module up
    spec.loader.exec_module(mod)
    return mod


def jobs_of(path: Path) -> dict[str, tuple[int, int]]:
    """SWF job number -> (submit, runtime) of a fixture's jobs.swf."""
    out = {}
    for line in path.read_text().splitlines():
        f = line.split()
        if len(f) == 18 and not line.startswith(";"):
            out[f[0]] = (int(f[1]), int(f[3]))
    return out


def bsld(starts: dict, jobs: dict[str, tuple[int, int]]) -> float:
    """Mean max(1, (wait + run) / max(run, 10)) over the jobs that started."""
    vals = []
    for jid, (start, _hosts) in starts.items():
        if start is None:
            continue
        submit, run = jobs[jid]
        vals.append(max(1.0, (start - submit + run) / max(run, BSLD_THRESHOLD)))
    return sum(vals) / len(vals) if vals else float("nan")


def compare(fx, got: dict, jobs: dict) -> dict:
    """The figures of one fixture's row."""
    want = fx.expected
    differ = [j for j in want if got.get(j, (None,))[0] != want[j][0]]
    hosts = [j for j in want if j not in differ and got[j][1] != want[j][1]]
    first = ""
    if differ:
        j = min(differ, key=lambda k: (min(t for t in (want[k][0], got.get(k, (None,))[0])
                                             if t is not None), int(k)))
        first = f"{j} (Maui {want[j][0]}, maui-py {got.get(j, (None,))[0]})"
    return {"jobs": len(want), "starts": len(differ), "hosts": len(hosts), "first": first,
            "bsld_maui": bsld(want, jobs), "bsld_py": bsld(got, jobs)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("extra", nargs="*", help="config lines appended to each policy.cfg")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="only this fixture (repeatable)")
    args = ap.parse_args(argv)
    load = _load_module()
    names = args.only or load.names()
    print(f"extra config: {' / '.join(args.extra) or '(none)'}\n")
    print("| fixture | jobs | starts differ | hosts differ (same start) | first differing job "
          "| BSLD Maui | BSLD maui-py | maui-py CPU s |")
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        fx = load.load(name)
        t0 = time.process_time()
        got = load.replay(fx, args.extra)
        cpu = time.process_time() - t0
        r = compare(fx, got, jobs_of(fx.jobs_path))
        print(f"| {name} | {r['jobs']} | {r['starts']} | {r['hosts']} | {r['first'] or '-'} "
              f"| {r['bsld_maui']:.2f} | {r['bsld_py']:.2f} | {cpu:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
