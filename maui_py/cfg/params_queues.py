"""maui-py's parameters for queue policies (fair share, ARMADA, FBSNG): rows of the table."""

from __future__ import annotations

ROWS: list = []
