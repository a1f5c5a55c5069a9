"""`setspri [-r] PRIORITY JOB`: set a job's system priority (Maui's setspri; admins only).

PRIORITY is 0-1000 as in Maui; a job with a system priority ranks above every job without
one (`-r`: relative, added to its computed priority instead); 0 removes it. It takes effect
at the daemon's next cycle (request.py); checkjob and diagnose -p show it (`*`).
"""

from __future__ import annotations

import argparse
from typing import TextIO

from .common import CommandError
from .request import add_request_arguments, job_requests, submit

HELP = "set a job's system priority, 0-1000 (Maui's setspri; ADMIN1 only)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-r", "--relative", action="store_true", help="add to the job's computed priority")
    parser.add_argument("priority", type=int, metavar="PRIORITY")
    parser.add_argument("job", metavar="JOB")
    add_request_arguments(parser)


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    def build(ctx):
        if not 0 <= args.priority <= 1000:
            raise CommandError("ERROR:  system priority must be in the range 0 - 1000", prefixed=False)
        return job_requests([args.job], ctx, {"priority": args.priority, "relative": args.relative},
                            f"system priority {'+' if args.relative else ''}{args.priority} on job {{job}}")
    return submit(args, "setspri", "setspri", build, out, err)
