"""The shipped systemd unit (data/mauid.service), with ExecStart made to fit this install.

    python -m maui_py.daemon.unit [-c /etc/maui-py/maui.cfg] > /etc/systemd/system/mauid.service

The file in the package names /usr/local/bin/mauid; printed here, ExecStart names the
`mauid` script beside the running Python (a virtual environment's bin/) when there is one.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

SHIPPED_EXEC = "/usr/local/bin/mauid"
SHIPPED_CONFIG = "/etc/maui-py/maui.cfg"


def shipped_unit() -> str:
    return resources.files("maui_py.daemon").joinpath("data/mauid.service").read_text()


def unit_for(mauid: str, config: str) -> str:
    """The unit with ExecStart running `mauid -c config --foreground`."""
    text = shipped_unit()
    line = f"ExecStart={SHIPPED_EXEC} -c {SHIPPED_CONFIG} --foreground"
    if line not in text:
        raise ValueError("the shipped unit has no ExecStart line to fill in")
    return text.replace(line, f"ExecStart={mauid} -c {config} --foreground")


def installed_mauid() -> str:
    script = Path(sys.executable).parent / "mauid"
    return str(script) if script.exists() else SHIPPED_EXEC


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m maui_py.daemon.unit", description=__doc__.splitlines()[0])
    parser.add_argument("-c", "--config", default=SHIPPED_CONFIG, metavar="FILE", help="the maui.cfg ExecStart names")
    args = parser.parse_args(argv)
    if any(c.isspace() for c in args.config):
        parser.error("the configuration path may not contain white space (systemd splits ExecStart on it)")
    sys.stdout.write(unit_for(installed_mauid(), str(Path(args.config).absolute())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
