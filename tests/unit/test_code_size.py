"""The size rules of the style guide, checked on every module of maui_py/ and adapters/: no
module over 600 lines, no function over 80, except the named hot loops (HOT_LOOPS), each
under 150 lines with its invariants stated in its docstring."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_MODULE, MAX_FUNCTION, MAX_HOT_LOOP = 600, 80, 150
HOT_LOOPS = {("maui_py/planning/scan.py", "scan"), ("maui_py/planning/countplan.py", "replan")}
"""(module, function) of the hot loops allowed past MAX_FUNCTION (issue 33)."""


def _modules() -> list[Path]:
    return sorted(p for d in ("maui_py", "adapters") for p in (ROOT / d).rglob("*.py"))


def oversized(path: Path, rel: str) -> list[str]:
    """What in the module at `path` breaks the size rules, one line each."""
    src = path.read_text()
    found = []
    if src.count("\n") > MAX_MODULE:
        found.append(f"{rel}: {src.count(chr(10))} lines (at most {MAX_MODULE})")
    for node in ast.walk(ast.parse(src)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        length = node.end_lineno - node.lineno + 1
        hot = (rel, node.name) in HOT_LOOPS
        limit = MAX_HOT_LOOP if hot else MAX_FUNCTION
        if length > limit:
            found.append(f"{rel}:{node.lineno} {node.name}: {length} lines (at most {limit})")
        elif hot and "nvariant" not in (ast.get_docstring(node) or ""):
            found.append(f"{rel}:{node.lineno} {node.name}: a hot loop states no invariant")
    return found


def test_no_module_or_function_is_over_its_size():
    found = [line for p in _modules() for line in oversized(p, p.relative_to(ROOT).as_posix())]
    assert not found, "\n".join(found)


def test_every_named_hot_loop_exists():
    names = {(p.relative_to(ROOT).as_posix(), n.name) for p in _modules()
             for n in ast.walk(ast.parse(p.read_text()))
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    assert HOT_LOOPS <= names, HOT_LOOPS - names


def test_the_size_check_sees_what_it_forbids(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION))
    long_fn = tmp_path / "m.py"
    long_fn.write_text(f"def f():\n{body}\n")
    assert oversized(long_fn, "m.py") == [f"m.py:1 f: {MAX_FUNCTION + 1} lines (at most {MAX_FUNCTION})"]
    big = tmp_path / "big.py"
    big.write_text("x = 1\n" * (MAX_MODULE + 1))
    assert len(oversized(big, "big.py")) == 1
    hot = tmp_path / "scan.py"
    hot.write_text(f"def scan():\n    '''No word of what holds.'''\n{body}\n")
    assert oversized(hot, "maui_py/planning/scan.py") == [
        "maui_py/planning/scan.py:1 scan: a hot loop states no invariant"]
    short = tmp_path / "ok.py"
    short.write_text("def g():\n    return 1\n")
    assert oversized(short, "ok.py") == []
