"""The cycle's context is typed: every attribute a pass reads on the cycle is declared on
core.cycle.Cycle, the settings are read from the configuration in one place (core/context.py)
and frozen, and the state's caches are apart from what the store writes."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from maui_py.cfg import parse_config
from maui_py.cfg.choices import BackfillPolicy
from maui_py.core.caches import CycleCaches
from maui_py.core.context import Settings, settings_of
from maui_py.core.cycle import Cycle
from maui_py.core.state import SchedulerState
from maui_py.policy import backfill

ROOT = Path(__file__).resolve().parents[2] / "maui_py"
PASSES = [ROOT / "policy" / f for f in ("backfill.py", "kept.py", "priority_pass.py", "highest.py",
                                        "deferral.py")]
DRIVERS = [ROOT / "core" / f for f in ("cycle.py", "changes.py", "selection.py", "passes.py")]


def _reads_of(path: Path, name: str = "c", klass: str | None = None) -> set[str]:
    """Attributes read or written on the variable `name` in a module (in class `klass`)."""
    out = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if klass is not None:
        tree = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == klass)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == name:
            out.add(node.attr)
    return out


def _declared() -> set[str]:
    names = set(getattr(Cycle, "__annotations__", {}))
    for klass in Cycle.__mro__:
        names.update(k for k in vars(klass) if not k.startswith("__"))
    return names


def test_every_attribute_the_passes_use_is_declared_on_the_cycle():
    used = set()
    for path in PASSES + [ROOT / "policy" / "prediction.py", ROOT / "core" / "changes.py", ROOT / "core" / "selection.py",
                          ROOT / "core" / "passes.py"]:
        used |= _reads_of(path)
    used |= _reads_of(ROOT / "core" / "cycle.py", "self", "Cycle")
    assert used, "the scan found nothing: the check would pass whatever the code does"
    missing = sorted(used - _declared())
    assert not missing, f"read on the cycle but not declared on core.cycle.Cycle: {missing}"


def test_the_check_sees_an_undeclared_attribute(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def p(c):\n    return c.no_such_field\n")
    assert "no_such_field" in _reads_of(bad) and "no_such_field" not in _declared()


@pytest.mark.parametrize("path", PASSES + DRIVERS, ids=lambda p: p.name)
def test_passes_and_drivers_read_no_parameter_themselves(path):
    """A cycle's parameters are read once, in core/context.py: a pass reads c.settings."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get" and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
                and node.args[0].value.isupper()):
            raise AssertionError(f"{path.name}:{node.lineno} reads {node.args[0].value} itself")


def test_settings_are_frozen_and_typed():
    s = settings_of(parse_config("BACKFILLDEPTH 7\nQOSCFG[hi] QFLAGS=NOBF\n", "maui.cfg"))
    assert s.bf_depth == 7 and s.no_backfill == frozenset({"hi"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.bf_depth = 1   # type: ignore[misc]
    assert all(f.type for f in dataclasses.fields(Settings))


def test_the_state_keeps_its_caches_apart():
    names = {f.name for f in dataclasses.fields(SchedulerState)}
    assert "caches" in names and not names & {f.name for f in dataclasses.fields(CycleCaches)}
    assert SchedulerState().caches is not SchedulerState().caches


@pytest.mark.parametrize("policy", list(BackfillPolicy), ids=str)
def test_a_backfill_policy_is_described_by_its_row_alone(policy):
    """The cycle learns what it may assume about a backfill policy from its PASSES row: the
    count planner and the incremental driver read the row, never the policy's name."""
    s = settings_of(parse_config(f"BACKFILLPOLICY {policy.value}\n", "maui.cfg"))
    row = backfill.PASSES[policy]
    assert s.bf_pass is row and s.count_policy == row.countable
    assert s.may_reserve == (row.run is not None)


def test_no_module_but_the_backfill_pass_names_a_backfill_policy():
    named = []
    for path in ROOT.rglob("*.py"):
        if path.parent.name == "cfg" or path == ROOT / "policy" / "backfill.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id == "BackfillPolicy"):
                named.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not named, named
