"""What a file given as an SWF trace looks like when it is not one, so maui-sim can say in one
line what to do instead ("this looks like sacct -P output: use maui-sim whatif --format sacct
or maui-sim convert") rather than warn about every line and replay nothing."""

from __future__ import annotations

import re
import zlib
from pathlib import Path

HEAD = 65536
"""Bytes read to tell: enough for the first lines of any log."""

_TORQUE = re.compile(r"^\d\d/\d\d/\d{4} \d\d:\d\d:\d\d;[A-Z];")
_ADVICE = "use maui-sim whatif --format {fmt} or maui-sim convert (docs/whatif.md)"


def _head(path: Path) -> tuple[bytes, str]:
    """The first bytes of the file, gunzipped when it is gzip data, and a note on the name."""
    with open(path, "rb") as f:
        data = f.read(HEAD)
    note = ""
    if data[:2] == b"\x1f\x8b":
        try:
            data = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, HEAD)
        except zlib.error:
            return b"", ""
    elif path.name.endswith(".gz"):
        note = f" (named {path.suffix} but not gzip data)"
    return data, note


def describe(path: str | Path) -> str:
    """One phrase: what the file is and what to run, e.g. "this looks like sacct -P output:
    use ...", "the file is empty", "no line of it is an SWF job (18 numbers)"."""
    path = Path(path)
    data, note = _head(path)
    if not data.strip():
        return "the file is empty" + note if not data else "the file holds only white space" + note
    if b"\0" in data[:4096]:
        return "this is binary data, not an SWF trace" + note
    text = data.decode("utf-8", errors="replace")
    lines = [line for line in text.splitlines() if line.strip()]
    first = lines[0].lstrip() if lines else ""
    if first.startswith("JobID|") or first.count("|") >= 5:
        return "this looks like sacct -P output" + note + ": " + _ADVICE.format(fmt="sacct")
    if first.startswith("JobId="):
        return "this looks like a Slurm jobcomp/filetxt log" + note + ": " + _ADVICE.format(fmt="jobcomp")
    if _TORQUE.match(first):
        return "this looks like a Torque accounting file" + note + ": " + _ADVICE.format(fmt="torque")
    if first.startswith("<") and ("<Node>" in text or "<Data>" in text):
        return ("this looks like a pbsnodes -x listing (a cluster, not a workload)" + note
                + ": give it to maui-sim whatif --cluster")
    if first.startswith(("{", "[")):
        return "this looks like JSON, not an SWF trace" + note
    if all(line.lstrip().startswith(";") for line in lines):
        return "it has a header but no job line" + note
    return "no line of it is an SWF job (18 numbers)" + note


