"""maui-py's parameters for running for real (state store, daemon): rows of the table."""

from __future__ import annotations

ROWS: list = []
