"""`releaseres RESID...`: remove administrative reservations (Maui's releaseres; admins only).

Only reservations made with setres can be released (standing ones come from SRCFG, job
reservations from the scheduler). It takes effect at the daemon's next cycle (request.py).
"""

from __future__ import annotations

import argparse
from typing import TextIO

from .common import CommandError
from .request import add_request_arguments, submit

HELP = "release administrative reservations (Maui's releaseres; ADMIN1 only)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="+", metavar="RESID")
    add_request_arguments(parser)


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    def build(ctx):
        for name in args.names:
            if name not in ctx.admin_reservations and name not in ctx.unreadable:
                raise CommandError(f"ERROR:    cannot locate reservation '{name}'", prefixed=False)
        return [({"names": list(args.names)}, "release " + ", ".join(args.names))]
    return submit(args, "releaseres", "releaseres", build, out, err)
