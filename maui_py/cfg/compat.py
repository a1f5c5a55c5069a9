"""Generate docs/maui-parameters.md: what maui-py does with each Maui 3.3.1 parameter.

    python -m maui_py.cfg.compat            # rewrite docs/maui-parameters.md
    python -m maui_py.cfg.compat --check    # exit 1 when the committed file is stale

One line per parameter, from the parameter table (params.py): acted on (and where), accepted
and ignored (check-config notes it), or read as another parameter; for a parameter maui-py acts
on, the values and attributes it reads but does not act on, and the values it reads as another.
The file is never edited by hand; a test compares it with `render()`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .params import ACCEPTED, ACTIVE, ALIASES, OBJECT, PARAMS, TABLE, Param
from .reference import cell, code, page_main
from .values import Choice, Flags

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "docs" / "maui-parameters.md"
REGENERATE = "python -m maui_py.cfg.compat"

_HEADER = f"""# What maui-py does with each Maui parameter

<!-- Generated from maui_py/cfg/params.py by `{REGENERATE}`. Do not edit by hand. -->

Every parameter of Maui 3.3.1 (its whole `MCfg[]` table, and the ones only its documentation
names) is read by maui-py; none is refused. Each is one of:

* **acted on**: maui-py does what the parameter says (the module named is where);
* **accepted, ignored**: the value is parsed, checked and shown (`showconfig -v`), and
  `maui-py check-config` notes it as "accepted but not acted on by maui-py" (with `--strict`,
  the check fails);
* **read as `X`**: another spelling of parameter `X` (or a legacy form of a `*CFG` attribute).

For a parameter maui-py acts on, the last column lists what it still does not act on (values,
flags, `*CFG` attributes: check-config notes each one a file sets) and the values it reads as
another. A value with no reading at all is an error naming file, line and column. The forms,
defaults and attribute tables are in [config-reference.md](config-reference.md); the choices
where Maui's documentation and source disagree in [compatibility.md](compatibility.md).
"""


def _origin(param: Param) -> str:
    return {"src": "3.3.1", "doc": "docs only", "maui-py": "maui-py"}[param.origin]


def _what(param: Param) -> str:
    if param.maps_to:
        kind, attr = param.maps_to
        row = PARAMS[kind].attrs.get(attr)
        status = ACCEPTED if row is None or PARAMS[kind].status == ACCEPTED else row.status
        return f"read as `{kind}[<index>] {attr}=` ({_status(status)})"
    if param.status == ACTIVE:
        return f"acted on ({code(param.acts_in)})" if param.acts_in else "acted on"
    return "accepted, ignored"


def _status(status: str) -> str:
    return "acted on" if status == ACTIVE else "accepted, ignored"


def _values(vtype) -> list[str]:
    """What a value type reads but does not act on, and reads as another value."""
    out = []
    if isinstance(vtype, Choice):
        out += [f"`{word}` not acted on ({cell(why)})" for word, why in vtype.not_acted.items()]
        targets: dict[str, list[str]] = {}
        for word, (canonical, _note) in vtype.aliases.items():
            targets.setdefault(str(canonical), []).append(f"`{word}`")
        out += [f"{', '.join(words)} read as `{target}`" for target, words in targets.items()]
    if isinstance(vtype, Flags) and vtype.acted != vtype.known:
        acted = ", ".join(f"`{f}`" for f in sorted(vtype.acted)) or "none"
        out.append(f"flags acted on: {acted}; the other {len(vtype.known - vtype.acted)} are read, not acted on")
    return out


def _not_acted(param: Param) -> str:
    if param.maps_to or param.status != ACTIVE:
        return ""
    parts = _values(param.type) if param.type is not None else []
    if param.scope == OBJECT:
        ignored = [a for a, row in param.attrs.items() if row.status != ACTIVE]
        if ignored:
            parts.append("attributes not acted on: " + ", ".join(f"`{a}`" for a in ignored))
        for name, row in param.attrs.items():
            if row.status == ACTIVE:
                parts += [f"{name}: {text}" for text in _values(row.type)]
    return "; ".join(parts)


def render() -> str:
    """The whole page as Markdown."""
    counts = {ACTIVE: 0, ACCEPTED: 0, "mapped": 0}
    rows = ["| Parameter | In | What maui-py does | Not acted on, or read as another |", "|---|---|---|---|"]
    for param in TABLE:
        counts["mapped" if param.maps_to else param.status] += 1
        rows.append(f"| `{param.name}` | {_origin(param)} | {_what(param)} | {_not_acted(param)} |")
    lines = [_HEADER, f"{len(TABLE)} parameters: {counts[ACTIVE]} acted on, {counts[ACCEPTED]} accepted and "
             f"ignored, {counts['mapped']} read as a `*CFG` attribute; {len(ALIASES)} other spellings.", "",
             "## Parameters", "", *rows, "", "## Other spellings", "",
             "| Name | Read as | Note |", "|---|---|---|"]
    for alias in ALIASES.values():
        lines.append(f"| `{alias.name}` | `{alias.target}` ({_what(PARAMS[alias.target])}) | {cell(alias.note)} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    return page_main(f"python -m {__name__}", __doc__, render, DEFAULT_PATH, REGENERATE, len(TABLE),
                     argv)


if __name__ == "__main__":
    sys.exit(main())
