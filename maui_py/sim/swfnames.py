"""The names behind an SWF trace's numbers, from its header's Note lines.

SWF keeps numbers only; `maui-sim convert` writes what each stands for as header notes
(`; Note: user 3 = alice`, `; Note: queue 1 = batch`, `; Note: partition (account) 2 =
proj-a`), so a converted log replays with its own class, user, group and account names
rather than queue1, user3. A trace without such notes keeps the numbered names. A note whose
name is not one printable word of at most MAX_NAME characters is ignored (the names reach
reports and terminals)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Iterable

from .swf import SimJob, SwfHeader

MAX_NAME = 128
_NOTE = re.compile(r"^(user|group|queue|partition \(account\)) ([0-9]{1,9}) = (\S+)$")
KINDS = {"user": "user", "group": "group", "queue": "class_", "partition (account)": "account"}
"""Note label -> the Job field it names."""
_NUMBERED = {"user": "user", "group": "group", "class_": "queue"}
"""Job field -> the prefix to_sim_jobs gives the number."""


def header_names(header: SwfHeader) -> dict[str, dict[int, str]]:
    """Job field ("user", "group", "class_", "account") -> {number: name} from the notes."""
    out: dict[str, dict[int, str]] = {}
    for note in (header.get("Note") or "").split("\n"):
        m = _NOTE.match(note.strip())
        if not m:
            continue
        kind, num, name = m.groups()
        if len(name) <= MAX_NAME and name.isprintable():
            out.setdefault(KINDS[kind], {})[int(num)] = name
    return out


def name_jobs(jobs: Iterable[SimJob], names: dict[str, dict[int, str]]) -> list[SimJob]:
    """The jobs (of swf.to_sim_jobs) with the numbered user, group and class (`user3`,
    `queue1`) replaced by the notes' names; what the notes do not cover is kept as it is."""
    jobs = list(jobs)
    if not names:
        return jobs
    out = []
    for sj in jobs:
        changes = {}
        for field, prefix in _NUMBERED.items():
            table = names.get(field)
            value = getattr(sj.job, field)
            if table and value.startswith(prefix) and value[len(prefix):].isdigit():
                name = table.get(int(value[len(prefix):]))
                if name is not None:
                    changes[field] = name
        out.append(replace(sj, job=replace(sj.job, **changes)) if changes else sj)
    return out
