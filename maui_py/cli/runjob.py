"""`runjob JOB`: start a job at once (Maui's runjob; admins only).

The daemon's next cycle considers the job first, above every priority and past the
throttling limits (state.run_now); it starts where its resources are free now, else it gets
the first reservation. A held or running job is refused.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from .request import add_request_arguments, job_requests, submit

HELP = "start a job now, ahead of every other (Maui's runjob; ADMIN1 only)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("job", metavar="JOB")
    add_request_arguments(parser)


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    return submit(args, "runjob", "runjob", lambda ctx: job_requests([args.job], ctx, {}, "start job {job} now"),
                  out, err)
