"""How the time of parsing maui.cfg and of reading a Torque node listing grows with its size
(what tests/unit/test_cfg_loader.py and tests/reliability/test_bad_input_campaign.py check as
operation counts, here as wall time). Prints figures; not a test.

    python benchmarks/parse_scaling.py [--runs N]
"""

from __future__ import annotations

import argparse
import time
import warnings

from maui_py.adapters.torque.parse import parse_pbsnodes
from maui_py.cfg import parse_config


def best(fn, text: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn(text)
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    block = "".join(f"USERCFG[u{i}] PRIORITY={i} FSTARGET={i % 50}.0- MAXJOB=2,4\nQUEUETIMEWEIGHT {i}\n"
                    for i in range(40))
    print(f"{'input':40} {'x1 s':>9} {'x8 s':>9} {'ratio':>6}")
    small, large = best(parse_config, block, args.runs), best(parse_config, block * 8, args.runs)
    print(f"{'maui.cfg, 80 lines':40} {small:9.4f} {large:9.4f} {large / small:6.1f}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        small = best(parse_pbsnodes, "<Data>" + "<Node>" * 2_500 + "</Data>", args.runs)
        large = best(parse_pbsnodes, "<Data>" + "<Node>" * 20_000 + "</Data>", args.runs)
    print(f"{'pbsnodes -x, 2,500 unclosed <Node>':40} {small:9.4f} {large:9.4f} {large / small:6.1f}")


if __name__ == "__main__":
    main()
