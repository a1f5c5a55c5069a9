"""The user docs (README.md, docs/*.md) are written for someone with a clone and nothing
else: no reference to files only the developers have (a spec, seed documents, design notes,
the shared folder's READMEs), no development notes, and every link to a section of another
page lands on a heading that exists (issue 35, item 8)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_FOR_USERS = [
    (r"maui-spec", "the developers' spec"),
    (r"\bspec §|§\d", "a section of the developers' spec"),
    (r"\bseeds? 0\d\d\b|\bseed docs\b", "the developers' seed documents"),
    (r"DESIGN\.md", "the developers' design notes"),
    (r"shared/traces/README", "the shared folder's README"),
    (r"\bThe issue'?s? goal|\bthe issue\b", "a development note"),
]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_user_doc_cites_nothing_a_user_does_not_have(page):
    text = page.read_text()
    found = [f"{page.name}:{text[:m.start()].count(chr(10)) + 1}: {why} ({m.group(0)!r})"
             for pattern, why in NOT_FOR_USERS for m in re.finditer(pattern, text)]
    assert found == []


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


def test_every_link_to_a_section_lands_on_a_heading():
    broken = []
    for page in PAGES:
        for m in re.finditer(r"\]\(([^)\s]*?)#([^)\s]+)\)", page.read_text()):
            target = (page.parent / m.group(1)).resolve() if m.group(1) else page
            if not target.is_file() or m.group(2) not in _anchors(target):
                broken.append(f"{page.name}: {m.group(0)}")
    assert broken == []
    assert "who-may-do-what" in _anchors(ROOT / "docs" / "commands.md")


def test_the_readme_gives_timings_only_as_measured_on_a_named_machine():
    text = (ROOT / "README.md").read_text()
    timed = [line for line in text.splitlines()
             if line.startswith("    ") and re.search(r"#.*\b\d+(\.\d+)? ?(s|min|seconds)\b", line)]
    assert timed == []                               # no "about 2 s" beside a command
    prose = "\n".join(line if not line.startswith("    ") else "" for line in text.splitlines())
    measured = [p for p in prose.split("\n\n") if re.search(r"\b\d+(\.\d+)? (s|min)\b", p)]
    flat = [" ".join(p.split()) for p in measured]
    assert flat and all("2-core machine" in p and "load average" in p for p in flat), flat
