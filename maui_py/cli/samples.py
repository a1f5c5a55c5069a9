"""`maui-py samples [NAME]`: the sample maui.cfg files shipped with maui-py.

Without NAME, one line per sample: its name, its path (in the installed package: the folder
config/ of a source tree, maui_py/samples/ of a wheel) and its first comment line. With NAME,
the file itself on stdout, to start a site's configuration from:

    maui-py samples slurm > /etc/maui-py/maui.cfg
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path
from typing import TextIO

HELP = "list the sample maui.cfg files shipped with maui-py, or print one"
PACKAGE = "maui_py.samples"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", metavar="NAME", help="print this sample (e.g. slurm, easy)")


def samples() -> dict[str, Path]:
    """name -> path of every shipped sample, by name."""
    folder = resources.files(PACKAGE)
    return {Path(str(f)).stem: Path(str(f)) for f in sorted(folder.iterdir(), key=lambda f: f.name)
            if f.name.endswith(".cfg")}


def _title(path: Path) -> str:
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("#") and line.strip("# "):
            return line.strip("# ")
    return ""


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    found = samples()
    if args.name is None:
        width = max(map(len, found), default=0)
        for name, path in found.items():
            out.write(f"{name:<{width}}  {path}  {_title(path)}\n")
        return 0
    path = found.get(args.name.removesuffix(".cfg"))
    if path is None:
        err.write(f"maui-py samples: no sample {args.name!r} (there are: {', '.join(found)})\n")
        return 1
    out.write(path.read_text())
    return 0
