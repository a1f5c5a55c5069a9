"""`sethold [-b | -h user|system|batch] JOB...`: hold jobs (Maui's sethold; admins only).

A batch hold is maui-py's own (the daemon keeps it in its state; showq shows BatchHold); a
user or system hold is pushed to the resource manager (Slurm: `scontrol hold`). The hold
takes effect at the daemon's next cycle (request.py). `-h` names the hold type as in Maui's
documentation (help is `--help`); the default is a user hold.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from .request import add_request_arguments, job_requests, submit

HELP = "put a hold on jobs (Maui's sethold; ADMIN1 only)"
TYPES = ("user", "system", "batch")


def add_hold_arguments(parser: argparse.ArgumentParser, types: tuple[str, ...]) -> None:
    parser.add_argument("-h", dest="hold", choices=types, default="user", type=str.lower,
                        help=f"hold type: {', '.join(types)} (default user)")
    parser.add_argument("-b", dest="hold", action="store_const", const="batch", help="batch hold (-h batch)")
    parser.add_argument("jobs", nargs="+", metavar="JOB")
    add_request_arguments(parser)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_hold_arguments(parser, TYPES)


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    return submit(args, "sethold", "sethold",
                  lambda ctx: job_requests(args.jobs, ctx, {"hold": args.hold}, f"{args.hold} hold on job {{job}}"),
                  out, err)
