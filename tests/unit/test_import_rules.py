"""What each room (package) may import, read from the table in docs/architecture.md and
checked against the imports of every module (ast, no import is run); and no import circle
between modules.

The table in the doc is the one source: a room's row lists the rooms (or single modules,
`core.records`) of maui_py it may import besides itself. Circles are looked for over the
imports a module runs when it is loaded: module level, TYPE_CHECKING blocks left out, and
a package's __init__ counted as imported with any of its submodules.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
MARKER = "<!-- import rules: read by tests/unit/test_import_rules.py -->"
KNOWN_CIRCLES: set[frozenset[str]] = set()
"""Circles another change removes (issue 15, the parameter table's split); a circle listed
here must still exist, so the entry goes when it does."""


def module_files() -> dict[str, Path]:
    """maui_py.x.y -> file, adapters/ mapped into maui_py.adapters as pyproject.toml does."""
    out = {}
    for base, prefix in ((ROOT / "maui_py", ("maui_py",)), (ROOT / "adapters", ("maui_py", "adapters"))):
        for path in base.rglob("*.py"):
            parts = prefix + path.relative_to(base).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


FILES = module_files()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
            or isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _module_level(body: list[ast.stmt]):
    """Import statements run when the module loads (not in functions or TYPE_CHECKING)."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _module_level(node.body)
            yield from _module_level(node.orelse)
        elif isinstance(node, ast.Try):
            for part in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                yield from _module_level(part)


def _resolve(name: str) -> str | None:
    while name and name not in FILES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str) -> set[str]:
    """The maui_py modules `module` imports at module level, each the deepest module named."""
    path = FILES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in _module_level(ast.parse(path.read_text(), str(path)).body):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in FILES else base for a in node.names]
        for t in targets:
            got = _resolve(t) if t.startswith("maui_py") else None
            if got and got != module:
                out.add(got)
    return out


def room_of(module: str) -> str:
    return module.split(".")[1] if "." in module else ""


def read_rules() -> dict[str, set[str]]:
    """room -> what it may import, from the table after MARKER in docs/architecture.md."""
    lines = DOC.read_text().split(MARKER, 1)[1].strip().splitlines()
    rules = {}
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        room, allowed = (c.strip() for c in line.strip("|").split("|")[:2])
        rules[room.strip("`")] = set(re.findall(r"`([a-z_.]+)`", allowed))
    return rules


def allowed(target: str, rule: set[str]) -> bool:
    rest = target.split(".", 1)[1]
    return any(rest == r or rest.startswith(r + ".") or r.startswith(rest + ".") for r in rule)


def test_the_doc_has_a_rule_for_every_room():
    rooms = {p.parent.name for p in (ROOT / "maui_py").glob("*/__init__.py")} | {"adapters"}
    assert set(read_rules()) == rooms


def test_every_module_imports_only_what_its_room_may():
    rules = read_rules()
    bad = []
    for module in sorted(FILES):
        room = room_of(module)
        if room not in rules:
            continue
        for target in sorted(imports_of(module)):
            if room_of(target) not in ("", room) and not allowed(target, rules[room]):
                bad.append(f"{module} imports {target}")
    assert not bad, "\n".join(bad)


def _loaded_with(module: str) -> set[str]:
    """What loading `module` loads first: its imports and their packages' __init__ (not
    its own packages', which Python has started loading already)."""
    own = {module.rsplit(".", k)[0] for k in range(1, module.count(".") + 1)}
    out = set()
    for target in imports_of(module):
        parts = target.split(".")
        out.update(".".join(parts[:i]) for i in range(2, len(parts) + 1))
    return {m for m in out if m in FILES} - own - {module}


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(frozenset(comp))
    return found


def test_no_import_circles():
    found = set(circles({m: _loaded_with(m) for m in FILES}))
    assert found - KNOWN_CIRCLES == set(), sorted(map(sorted, found - KNOWN_CIRCLES))
    assert KNOWN_CIRCLES <= found, "a known circle is gone: drop it from KNOWN_CIRCLES"


def test_the_checks_see_a_rule_broken_and_a_circle():
    assert "maui_py.core.records" in imports_of("maui_py.policy.deferral")
    assert not allowed("maui_py.core.cycle", read_rules()["policy"])
    assert allowed("maui_py.core.records", read_rules()["policy"])
    assert not allowed("maui_py.core.state", read_rules()["policy"])
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]


# ---------------------------------------------------------------- issue 33: the planners
CONCRETE_PLANNERS = {"maui_py.planning.table", "maui_py.planning.counts"}
"""Modules outside planning/ hold a planning.api.Planner; which one is planning's choice
(planning/sync.py), so none of them imports these."""
KNOWN_FULL_CIRCLES: set[frozenset[str]] = set()
"""Circles through TYPE_CHECKING blocks or in-function imports not removed yet (the cycle
module's went: core/changes.py and core/selection.py type against core/context.py). An entry
must still exist, so it goes when its circle does."""


def every_import_of(module: str) -> set[str]:
    """The maui_py modules `module` imports anywhere: module level, TYPE_CHECKING blocks
    and inside functions, each the deepest module named."""
    path = FILES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in FILES else base
                       for a in node.names]
        else:
            continue
        for t in targets:
            got = _resolve(t) if t.startswith("maui_py") else None
            if got and got != module:
                out.add(got)
    return out


def _outside_planning() -> list[str]:
    return [m for m in sorted(FILES) if room_of(m) != "planning"]


def test_no_module_outside_planning_imports_a_concrete_planner():
    bad = [f"{m} imports {t}" for m in _outside_planning()
           for t in sorted(every_import_of(m) & CONCRETE_PLANNERS)]
    assert not bad, "\n".join(bad)


def _planning_names(tree: ast.Module, module: str) -> set[str]:
    """Names a module binds to planning modules or to what it imports from them."""
    package = module if FILES[module].name == "__init__.py" else module.rpartition(".")[0]
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            if base == "maui_py.planning" or base.startswith("maui_py.planning."):
                names.update(a.asname or a.name for a in node.names)
    return names


def private_reads(module: str) -> list[str]:
    """`x._name` reads (not dunders) where x is a planner (a name or attribute called
    `table`, as the cycle, the state and the passes hold it) or a name bound to planning."""
    path = FILES[module]
    tree = ast.parse(path.read_text(), str(path))
    planning = _planning_names(tree, module)
    out = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            base = node.value
            name = base.id if isinstance(base, ast.Name) else (
                base.attr if isinstance(base, ast.Attribute) else None)
            if name == "table" or isinstance(base, ast.Name) and base.id in planning:
                rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                out.append(f"{rel}:{node.lineno} {ast.unparse(node)}")
    return out


def test_no_private_planning_attribute_is_read_from_outside_planning():
    bad = [x for m in _outside_planning() for x in private_reads(m)]
    assert not bad, "\n".join(bad)


def test_no_import_circles_counting_type_checking_and_in_function_imports():
    found = set(circles({m: every_import_of(m) for m in FILES}))
    assert found - KNOWN_FULL_CIRCLES == set(), sorted(map(sorted, found - KNOWN_FULL_CIRCLES))
    assert KNOWN_FULL_CIRCLES <= found, "a known circle is gone: drop it from KNOWN_FULL_CIRCLES"


def test_the_planner_checks_see_what_they_forbid(tmp_path):
    assert "maui_py.planning.table" in every_import_of("maui_py.planning.counts")
    assert "maui_py.planning.nodechoice" in every_import_of("maui_py.planning.table")
    src = tmp_path / "x.py"
    src.write_text("from maui_py.planning import owners\n"
                   "def f(c):\n    return c.table._T, owners._x, c.other._y, c.table.__class__\n")
    FILES["maui_py.sim.x_probe"] = src
    try:
        got = private_reads("maui_py.sim.x_probe")
        assert sorted(g.split(" ", 1)[1] for g in got) == ["c.table._T", "owners._x"]
    finally:
        del FILES["maui_py.sim.x_probe"]


# ---------------------------------------------------------------- issue 33: no `_private` across modules
KNOWN_PRIVATE_READS: set[str] = set()
"""`module: what` reads of another module's `_private` names that are still allowed: none (the
planning modules' shared step helpers are public names of planning/steps.py and countplan.py);
an entry must still be found, so it goes when its read does."""


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _import_base(node: ast.ImportFrom, module: str) -> str:
    package = module if FILES[module].name == "__init__.py" else module.rpartition(".")[0]
    base = node.module or ""
    if node.level:
        up = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join(up + ([node.module] if node.module else []))
    return base


def cross_private_reads(module: str) -> list[str]:
    """What `module` reads of another maui_py module's `_private` names: `from x import _y`,
    or `m._y` where m is a name an import of a maui_py module (or of something from one)
    binds, anywhere in the module (functions and TYPE_CHECKING blocks too). Dunders are
    not private."""
    path = FILES[module]
    tree = ast.parse(path.read_text(), str(path))
    bound: set[str] = set()
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "maui_py":
                    bound.add(a.asname or a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            base = _import_base(node, module)
            if not base.startswith("maui_py"):
                continue
            for a in node.names:
                if _is_private(a.name):
                    out.append(f"{module}: from {base} import {a.name}")
                bound.add(a.asname or a.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            base = node.value
            while isinstance(base, ast.Attribute) and not _is_private(base.attr):
                base = base.value
            if isinstance(base, ast.Name) and base.id in bound:
                out.append(f"{module}: {ast.unparse(node)}")
    return out


def test_no_private_name_is_read_across_modules():
    found = {x for m in sorted(FILES) for x in cross_private_reads(m)}
    assert found - KNOWN_PRIVATE_READS == set(), "\n".join(sorted(found - KNOWN_PRIVATE_READS))
    assert KNOWN_PRIVATE_READS <= found, "a known read is gone: drop it from KNOWN_PRIVATE_READS"


def test_the_private_rule_sees_what_it_forbids(tmp_path):
    src = tmp_path / "x.py"
    src.write_text("import maui_py.cfg.values as v\n"
                   "from maui_py.cfg import loader\n"
                   "from maui_py.cfg.values import _hidden, Choice\n"
                   "from os import _exit\n"
                   "def f(obj, _own):\n"
                   "    from ..planning import owners\n"
                   "    return (v._x, loader.SchedulerConfig._lookup, owners._k, Choice._y,\n"
                   "            obj._z, _own._w, loader.__name__, _exit)\n")
    FILES["maui_py.sim.x_probe"] = src
    try:
        got = sorted(g.split(": ", 1)[1] for g in cross_private_reads("maui_py.sim.x_probe"))
        assert got == ["Choice._y", "from maui_py.cfg.values import _hidden",
                       "loader.SchedulerConfig._lookup", "owners._k", "v._x"]
    finally:
        del FILES["maui_py.sim.x_probe"]


def freed_reads(module: str) -> list[str]:
    """Where `module` reads an attribute named `freed` (a planner's epoch), by AST."""
    path = FILES[module]
    tree = ast.parse(path.read_text())
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    return [f"{rel}:{node.lineno} {ast.unparse(node)}" for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr == "freed"]


def test_the_planner_epoch_is_read_outside_planning_only_through_planning_memo():
    """issue 33: "what is free only shrinks until `freed` moves" has one home,
    planning/memo.py (ShrinkMemo and epoch()); the passes and the cycle ask it."""
    bad = [x for m in _outside_planning() for x in freed_reads(m)]
    assert not bad, "\n".join(bad)


def test_the_epoch_check_sees_a_read(tmp_path):
    src = tmp_path / "x.py"
    src.write_text("def f(c):\n    return c.table.freed\n")
    FILES["maui_py.sim.x_probe2"] = src
    try:
        got = freed_reads("maui_py.sim.x_probe2")
        assert [x.split(" ", 1)[1] for x in got] == ["c.table.freed"]
    finally:
        del FILES["maui_py.sim.x_probe2"]
