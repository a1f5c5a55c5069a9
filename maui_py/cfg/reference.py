"""Generate docs/config-reference.md from the parameter table.

    python -m maui_py.cfg.reference            # rewrite docs/config-reference.md
    python -m maui_py.cfg.reference --check    # exit 1 when the committed file is stale

The file is never edited by hand: change params.py and regenerate. A test compares it with
`render()` so a stale reference fails the suite.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .params import ACTIVE, ALIASES, OBJECT, PARAMS, STACK, TABLE, Attr, Param

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "docs" / "config-reference.md"
REGENERATE = "python -m maui_py.cfg.reference"

_HEADER = f"""# maui.cfg reference

<!-- Generated from maui_py/cfg/params.py by `{REGENERATE}`. Do not edit by hand. -->

Every parameter maui-py reads, generated from its one parameter table. maui.cfg syntax:
`PARAM VALUE` or `PARAM=VALUE`, `#` comments, `\\` continues a line, `PARAM[index]` for partition,
stack level or object name, and `*CFG[name] ATTR=VALUE ...` attribute lists. Names are read in any
case (with a warning where Maui 3.3.1 would have ignored the line). Times are `[[[DD:]HH:]MM:]SS`
(hours may exceed 24), plain seconds or `INFINITY`; booleans TRUE/FALSE, ON/OFF, YES/NO, 1/0; lists
are separated by spaces, commas or colons; `[NONE]` means unset.

Columns:
* **Scope**: `global`; `partition` (`NAME[partition]`, no index = every partition); `stack`
  (`NAME[n]`, reservation stack level); `object` (`NAME[name] ATTR=VALUE ...`); `indexed` (legacy
  `NAME[index]` forms).
* **Status**: `active` = maui-py acts on it; `accepted` = parsed, validated and shown, and reported by
  `maui-py check-config` and `showconfig -v` as accepted but not acted on by maui-py. A legacy
  per-index form (`SRSTARTTIME[x]`) is stored as the attribute it replaces and has its status.
* **Default from**: `same` (docs and Maui 3.3.1 agree), `src` (the 3.3.1 source), `doc` (the Maui
  documentation), `maui-py`; where they disagree the other value is given and the choice is listed
  in docs/compatibility.md.
* **Origin**: parameters not in the 3.3.1 source are marked *(docs only)*.
* **Acts in**: the module that acts on an active parameter or attribute: where to read what it does.
"""


def cell(text: object) -> str:
    """Plain table text: pipes escaped, `<...>` kept visible."""
    return str(text).replace("|", "\\|").replace("<", "&lt;")


def code(text: object) -> str:
    return f"`{str(text).replace('|', chr(92) + '|')}`" if str(text) else ""


def _default(row: Param | Attr) -> str:
    if isinstance(row, Param) and row.scope == OBJECT:
        return ""
    shown = code(row.type.show(row.default))
    if isinstance(row, Param) and row.scope == STACK and row.stack_default is not None:
        shown += f" (levels > 0: {code(row.type.show(row.stack_default))})"
    return shown


def _source(row: Param | Attr) -> str:
    return row.default_source + (f" ({cell(row.other_default)})" if row.other_default else "")


def _name(param: Param) -> str:
    index = {"partition": "[<partition>]", "stack": "[<n>]", "object": "[<name>]", "indexed": "[<index>]"}
    return f"`{param.name}{index.get(param.scope, '')}`"


def _doc(param: Param) -> str:
    text = cell(param.doc)
    if param.maps_to:
        text += f"; stored as `{param.maps_to[0]}[<index>] {param.maps_to[1]}=`"
    aliases = [alias.name for alias in ALIASES.values() if alias.target == param.name]
    if aliases:
        text += "; also read as " + ", ".join(f"`{a}`" for a in aliases)
    if param.origin == "doc":
        text += " *(docs only)*"
    return text


def _param_table(rows: list[Param]) -> list[str]:
    out = ["| Parameter | Form | Default | Scope | Status | Acts in | Default from | Description |",
           "|---|---|---|---|---|---|---|---|"]
    for p in rows:
        out.append(f"| {_name(p)} | {code(p.form)} | {_default(p)} | {p.scope} | {p.status} | {code(p.acts_in)} "
                   f"| {_source(p)} | {_doc(p)} |")
    return out


def _attr_table(param: Param) -> list[str]:
    aliases = ", ".join(f"`{a}` = `{t}`" for a, t in param.attr_aliases.items())
    out = ["", f"### {param.name} attributes", ""]
    if aliases:
        out += [f"Attribute aliases: {aliases}.", ""]
    out += ["| Attribute | Form | Default | Status | Acts in | Default from | Description |",
            "|---|---|---|---|---|---|---|"]
    for a in param.attrs.values():
        name = f"`{a.name}[<CREDTYPE>[:<VALUE>]]`" if a.multidim else f"`{a.name}`"
        out.append(f"| {name} | {code(a.type.form)} | {_default(a)} | {a.status} | {code(a.acts_in)} | {_source(a)} "
                   f"| {cell(a.doc)} |")
    return out


def render() -> str:
    """The whole reference as Markdown."""
    active = sum(1 for p in TABLE if p.status == ACTIVE)
    lines = [_HEADER, f"{len(TABLE)} parameters ({active} active), {len(ALIASES)} aliases.", ""]
    groups: dict[str, list[Param]] = {}
    for param in TABLE:
        groups.setdefault(param.group, []).append(param)
    for title, rows in groups.items():
        lines += ["", f"## {title}", "", *_param_table(rows)]
        for param in rows:
            if param.scope == OBJECT:
                lines += _attr_table(param)
    lines += ["", "## Aliases", "", "| Name | Read as | Note | Warns |", "|---|---|---|---|"]
    for alias in ALIASES.values():
        lines.append(f"| `{alias.name}` | `{alias.target}` | {cell(alias.note)} | {'yes' if alias.warn else 'no'} |")
    return "\n".join(lines) + "\n"


def page_main(prog: str, doc: str, render_page, default_path: Path, regenerate: str, count: int,
              argv: list[str] | None = None) -> int:
    """The command line of a page generated from the parameter table: write it, or with
    --check exit 1 when the file differs from what the table gives."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.splitlines()[0])
    parser.add_argument("--output", type=Path, default=default_path, help="where to write (default: %(default)s)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the file differs from the table")
    args = parser.parse_args(argv)
    text = render_page()
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is stale: run `{regenerate}`", file=sys.stderr)
            return 1
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output} ({count} parameters)")
    return 0


def main(argv: list[str] | None = None) -> int:
    return page_main("python -m maui_py.cfg.reference", __doc__, render, DEFAULT_PATH, REGENERATE,
                     len(PARAMS), argv)


if __name__ == "__main__":
    sys.exit(main())
