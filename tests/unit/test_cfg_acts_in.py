"""Every active parameter (and active *CFG attribute) is read in the module its acts_in names,
checked by `ast` on that module's source (no import of it is run).

A module reads a parameter when, outside docstrings, it
- has the parameter's (or attribute's) name as a string constant (`cfg.get("DEFERTIME")`,
  `rm.value("TIMEOUT")`, a tuple of names it looks up);
- reads a field of the cycle's Settings that core/context.py's `settings_of` makes from the
  parameter (`c.settings.bf_depth` for BACKFILLDEPTH), found by following settings_of's local
  names from `cfg.get("BACKFILLDEPTH")` to the `Settings(...)` keyword;
- or reads an attribute of the configuration that loader.py's SchedulerConfig makes from the
  parameter (`cfg.zone` for TIMEZONE).
A comment or a docstring naming the parameter is not a read: that is what the regular
expression of tests/unit/test_cfg_choices.py could not tell apart.
"""

from __future__ import annotations

import ast
import importlib.util
from functools import cache
from pathlib import Path

import pytest

from tests.unit.test_cfg_choices import active_rows

ROOT = Path(__file__).resolve().parents[2]
CONTEXT = ROOT / "maui_py" / "core" / "context.py"
LOADER = ROOT / "maui_py" / "cfg" / "loader.py"


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that stand alone as statements (docstrings)."""
    return {id(n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}


def _strings(node: ast.AST, skip: set[int] = frozenset()) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and id(n) not in skip}


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


@cache
def settings_fields() -> dict[str, set[str]]:
    """Parameter name -> the Settings fields settings_of makes from it (through its locals)."""
    fn = next(n for n in ast.walk(_tree(CONTEXT))
              if isinstance(n, ast.FunctionDef) and n.name == "settings_of")
    local: dict[str, set[str]] = {}
    for stmt in fn.body:
        if isinstance(stmt, ast.Assign):
            got = _strings(stmt.value) | {p for v in _names(stmt.value) for p in local.get(v, ())}
            for target in stmt.targets:
                for name in _names(target):
                    local[name] = got
    call = next(n for n in ast.walk(fn) if isinstance(n, ast.Call)
                and isinstance(n.func, ast.Name) and n.func.id == "Settings")
    out: dict[str, set[str]] = {}
    for kw in call.keywords:
        for param in _strings(kw.value) | {p for v in _names(kw.value) for p in local.get(v, ())}:
            out.setdefault(param, set()).add(kw.arg)
    return out


@cache
def config_attributes() -> dict[str, set[str]]:
    """Parameter name -> the SchedulerConfig attributes loader.py sets from it (`self.zone`)."""
    out: dict[str, set[str]] = {}
    for node in ast.walk(_tree(LOADER)):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id == "self" and not target.attr.startswith("_")):
                    for param in _strings(node.value):
                        out.setdefault(param, set()).add(target.attr)
    return out


def _holder(node: ast.expr, names: tuple[str, ...]) -> bool:
    """Is `node` a name, or an attribute, called one of `names` (`settings`, `c.settings`)?"""
    return (isinstance(node, ast.Name) and node.id in names
            or isinstance(node, ast.Attribute) and node.attr in names)


def reads(path: Path, name: str) -> bool:
    """Does the module at `path` read the parameter or attribute `name` (see the docstring)?"""
    tree = _tree(path)
    if name in _strings(tree, _docstrings(tree)):
        return True
    fields = settings_fields().get(name, set())
    attrs = config_attributes().get(name, set())
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if node.attr in fields and _holder(node.value, ("settings",)):
                return True
            if node.attr in attrs and _holder(node.value, ("cfg", "config")):
                return True
    return False


def module_path(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin, f"no module {module}"
    return Path(spec.origin)


@pytest.mark.parametrize("label, name, module", list(active_rows()), ids=lambda v: str(v))
def test_the_module_acts_in_names_reads_the_parameter(label, name, module):
    assert module, f"{label} is active but names no module (acts_in): add it to ACTS_IN in cfg/params.py"
    assert reads(module_path(module), name), (
        f"{module} does not read {label} (no string constant, Settings field or config attribute "
        f"made from it): fix its acts_in in cfg/params.py")


def test_the_rule_sees_a_wrong_acts_in(tmp_path):
    """The probe: a module that only names a parameter in a docstring or a comment does not
    read it; one that looks it up, or reads the Settings field or config attribute made from
    it, does; a real module read for a parameter it does not touch fails."""
    assert settings_fields()["BACKFILLDEPTH"] == {"bf_depth"}
    assert "bf_pass" in settings_fields()["BACKFILLPOLICY"]      # through the local bf_policy
    assert config_attributes()["TIMEZONE"] == {"zone"}
    named = tmp_path / "named.py"
    named.write_text('"""Acts on DEFERTIME."""\n# DEFERTIME\nX = 1\n')
    assert not reads(named, "DEFERTIME")
    looked_up = tmp_path / "looked_up.py"
    looked_up.write_text('def f(cfg):\n    return cfg.get("DEFERTIME")\n')
    assert reads(looked_up, "DEFERTIME") and not reads(looked_up, "DEFERCOUNT")
    fields = tmp_path / "fields.py"
    fields.write_text("def f(c, cfg):\n    return c.settings.bf_depth, cfg.zone\n")
    assert reads(fields, "BACKFILLDEPTH") and reads(fields, "TIMEZONE")
    assert not reads(fields, "BACKFILLMETRIC")
    other = tmp_path / "other.py"
    other.write_text("def f(c):\n    return c.other.bf_depth, c.zone\n")
    assert not reads(other, "BACKFILLDEPTH") and not reads(other, "TIMEZONE")
    assert reads(module_path("maui_py.policy.backfill"), "BACKFILLDEPTH")
    assert not reads(module_path("maui_py.policy.kept"), "BACKFILLDEPTH")
    # the module this test moved RMCFG TIMEOUT away from names it in its docstring only
    assert not reads(module_path("maui_py.daemon.rmcall"), "TIMEOUT")
