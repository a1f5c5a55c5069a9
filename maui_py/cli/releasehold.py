"""`releasehold [-a | -b | -h user|system|batch] JOB...`: release holds (Maui's releasehold;
admins only). `-a` releases every hold and a defer; the default is the user hold. The
release takes effect at the daemon's next cycle (request.py).
"""

from __future__ import annotations

import argparse
from typing import TextIO

from .request import job_requests, submit
from .sethold import TYPES, add_hold_arguments

HELP = "release holds on jobs (Maui's releasehold; ADMIN1 only)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_hold_arguments(parser, (*TYPES, "all"))
    parser.add_argument("-a", dest="hold", action="store_const", const="all",
                        help="every hold type, and a defer (-h all)")


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    return submit(args, "releasehold", "releasehold",
                  lambda ctx: job_requests(args.jobs, ctx, {"hold": args.hold},
                                           f"release {args.hold} hold{'s' if args.hold == 'all' else ''} "
                                           "on job {job}"),
                  out, err)
