"""Many scontrol commands through one `scontrol` process on stdin, errors mapped back.

scontrol reading stdin runs every line and keeps going after an error; its errors go to
stderr without naming the line (`Invalid node name specified for job 4`, or just
`slurm_suspend error: Invalid job id specified`). So a marker line, a word scontrol does
not know, goes before every command and after the last one: scontrol answers it on stderr
with `invalid keyword: <marker>` and does nothing else (no RPC), and everything on stderr
between marker i and marker i+1 belongs to command i. A command whose closing marker never
came (scontrol died or timed out) is reported as failed with that reason.

Commands are built only from validated parts (job ids, node names, times, our own
reservation names): nothing a user wrote reaches scontrol's stdin. Linear in the number of
commands plus the size of stderr.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Hashable

MARK = "maui-py-mark-"
_MARK_LINE = re.compile(r"invalid keyword: " + re.escape(MARK) + r"(\d+)\s*$")
JOB_ID = re.compile(r"^\d+(_\d+)?$")
NODE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_SAFE_LINE = re.compile(r"^[A-Za-z0-9 =,._:+\-\[\]]+$")


class UnsafeCommand(ValueError):
    """A command line holding something other than the characters commands are made of."""


@dataclass
class Batch:
    """Commands keyed by what they are for (e.g. ("start", "12")), in order."""

    commands: list[tuple[Hashable, str]] = field(default_factory=list)

    def add(self, key: Hashable, command: str) -> None:
        if not _SAFE_LINE.match(command):
            raise UnsafeCommand(f"refusing to send {command!r} to scontrol")
        self.commands.append((key, command))

    def __len__(self) -> int:
        return len(self.commands)

    def script(self) -> str:
        """The stdin text: marker 0, command 0, marker 1, ..., command n-1, marker n."""
        lines = []
        for i, (_, command) in enumerate(self.commands):
            lines += [f"{MARK}{i}", command]
        lines.append(f"{MARK}{len(self.commands)}")
        return "\n".join(lines) + "\n"

    def outcome(self, stderr: str) -> tuple[dict[Hashable, str], list[str]]:
        """({key: error text} for the commands that failed, stderr lines outside any
        command). A command without its closing marker failed with "no answer"."""
        per_index: dict[int, list[str]] = {}
        outside: list[str] = []
        current: int | None = None
        last_mark = -1
        for line in stderr.splitlines():
            m = _MARK_LINE.search(line)
            if m:
                current = last_mark = int(m.group(1))
                continue
            if not line.strip():
                continue
            if current is None or current >= len(self.commands):
                outside.append(line.strip())
            else:
                per_index.setdefault(current, []).append(line.strip())
        failed: dict[Hashable, str] = {}
        for i, (key, _) in enumerate(self.commands):
            if i in per_index:
                failed[key] = "; ".join(per_index[i])
            elif i >= last_mark:
                failed[key] = "no answer from scontrol for this command"
        return failed, outside
