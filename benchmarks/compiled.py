"""What compiling the replay's hot modules with mypyc would give (issue 12). Prints figures;
asserts nothing. Not part of maui-py: it needs mypy (`pip install mypy`) and a C compiler.

Copies this checkout's maui_py into a temporary directory, compiles the modules of HOT there
with mypyc, then replays one cleaned trace with the pure-Python package and with the compiled
copy, alternating, each in its own process (benchmarks/compare.py's child), and prints CPU
seconds, their median ratio and how many start times differ. The modules compile with type
errors switched off (RELAXED): the configuration's keyword enums are made by a function
(cfg/choices.py), which mypy cannot see through, and a few annotations are looser than
mypyc's run-time checks accept anywhere but on the paths these replays take.

    python benchmarks/compiled.py                                  # KTH-SP2, FCFS EASY
    python benchmarks/compiled.py --trace HPC2N-2002-2.2-cln.swf.gz --rounds 3
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import compare  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HOT = ["maui_py/planning/counts.py", "maui_py/core/changes.py", "maui_py/policy/priority_pass.py",
       "maui_py/policy/backfill.py", "maui_py/policy/kept.py", "maui_py/planning/sync.py",
       "maui_py/sim/rm.py"]
"""The modules a processor-count replay spends most of its time in (py-spy on HPC2N EASY)
that compile as they are."""
RELAXED = ["attr-defined", "valid-type", "assignment", "arg-type", "union-attr", "return-value",
           "var-annotated", "misc", "operator", "index"]


def build(dest: Path) -> None:
    """A copy of maui_py under dest (adapters/ as maui_py/adapters, as installed) with the HOT
    modules compiled in place."""
    shutil.copytree(ROOT / "maui_py", dest / "maui_py",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    shutil.copytree(ROOT / "adapters", dest / "maui_py" / "adapters",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    cmd = [sys.executable, "-m", "mypyc", "--follow-imports=silent", "--ignore-missing-imports"]
    for code in RELAXED:
        cmd += ["--disable-error-code", code]
    subprocess.run(cmd + HOT, cwd=dest, check=True, capture_output=True, text=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default=compare.DEFAULT_TRACE)
    ap.add_argument("--policy", choices=sorted(compare.POLICIES), default="easy")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    try:
        import mypyc  # noqa: F401
    except ImportError:
        print("needs mypy (pip install mypy) and a C compiler")
        return 2
    if not shutil.which(str(sysconfig.get_config_var("CC") or "cc").split()[0]):
        print("needs a C compiler (CC)")
        return 2
    with tempfile.TemporaryDirectory(prefix="maui-compiled-") as d:
        tmp = Path(d)
        try:
            build(tmp / "copy")
        except subprocess.CalledProcessError as e:
            print("mypyc failed:\n" + (e.stdout or "")[-3000:] + (e.stderr or "")[-3000:])
            return 1
        swf = tmp / "cleaned.swf"
        _procs, jobs = compare.prepare(compare.TRACES / args.trace, None, swf)
        cpu: dict[str, list[float]] = {"python": [], "compiled": []}
        starts = {}
        for _ in range(args.rounds):
            for name, root in (("python", None), ("compiled", str(tmp / "copy"))):
                out = tmp / f"{name}.txt"
                figures = compare.run_maui(swf, args.policy, None, out, root=root)
                cpu[name].append(figures["cpu_s"])
                starts[name] = compare.read_starts(out)
    py, cc = statistics.median(cpu["python"]), statistics.median(cpu["compiled"])
    differ = sum(1 for j, s in starts["python"].items() if starts["compiled"].get(j) != s)
    print(f"{args.trace}  {args.policy}  {len(jobs)} jobs  {args.rounds} rounds")
    print(f"  modules compiled: {', '.join(Path(m).stem for m in HOT)}")
    print(f"  cpu_s python {py:.2f}  compiled {cc:.2f}  ratio compiled/python {cc / py:.2f}")
    print(f"  start times differ: {differ} of {len(jobs)} jobs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
