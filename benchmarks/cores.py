"""This checkout's core against an older checkout's, job for job (issue 12: a schedule change
is checked against the old schedule). Prints figures; asserts nothing.

Both replay the same cleaned file (benchmarks/compare.py's cleaning), each in its own process
with its own core; prints CPU seconds of each, their ratio, bounded slowdowns and how many
start times differ, with the first that does.

    git worktree add /tmp/old <commit>
    python benchmarks/cores.py --old /tmp/old                                   # KTH, FCFS EASY
    python benchmarks/cores.py --old /tmp/old --policy conservative --maui-config config/easy.cfg
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import compare  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="the older checkout (its maui_py is imported)")
    ap.add_argument("--trace", default=compare.DEFAULT_TRACE)
    ap.add_argument("--policy", choices=sorted(compare.POLICIES), default="easy")
    ap.add_argument("--maui-config", default="", help="a maui.cfg instead of the policy's")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="maui-cores-") as d:
        tmp = Path(d)
        swf = tmp / "cleaned.swf"
        _procs, jobs = compare.prepare(compare.TRACES / args.trace, None, swf)
        runs = {}
        for name, root in (("new", None), ("old", args.old)):
            out = tmp / f"{name}.txt"
            figures = compare.run_maui(swf, args.policy, args.maui_config or None, out, root=root)
            runs[name] = (figures, compare.read_starts(out))
    (new, new_starts), (old, old_starts) = runs["new"], runs["old"]
    differ = sorted((j for j in new_starts if new_starts[j] != old_starts.get(j)),
                    key=lambda j: (min(new_starts[j], old_starts.get(j, new_starts[j])), j))
    print(f"{args.trace}  {args.policy}  maui config: {args.maui_config or 'default'}")
    print(f"  cpu_s new {new['cpu_s']}  old {old['cpu_s']}  ratio new/old "
          f"{new['cpu_s'] / old['cpu_s']:.2f}")
    print(f"  bsld new {new['bsld']}  old {old['bsld']}")
    print(f"  start times differ: {len(differ)} of {len(jobs)} jobs")
    if differ:
        j = differ[0]
        print(f"  first: job {j} new {new_starts[j]} old {old_starts.get(j)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
