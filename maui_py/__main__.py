"""`python -m maui_py ...`: the `maui-py` command (maui_py/cli/main.py)."""

import sys

from .cli.main import main

if __name__ == "__main__":
    sys.exit(main())
