"""Policy values are enums end to end (issue 15): each policy parameter's keywords are exactly
the keys of the table the code dispatches on; the loader yields enum members, defaults
included; every active row names the module that acts on it, and that module names the row;
cfg/params*.py import one another in no circle."""

from __future__ import annotations

import ast
import importlib
import re
from enum import StrEnum
from pathlib import Path

import pytest

from maui_py.cfg import PARAMS, SchedulerConfig, parse_config
from maui_py.cfg.params import ACTIVE, TABLE
from maui_py.cfg.values import Choice, FsPolicy
from maui_py.core import compat
from maui_py.planning import maui33, nodechoice
from maui_py.policy import backfill, deferral, kept, priority_pass
from maui_py.priority import fairshare
from maui_py.predict import correctors, predictors
from maui_py.daemon import forecasting
from maui_py.priority import policy as queue_policies
from maui_py.priority import queues

REGISTRIES = [
    ("BACKFILLPOLICY", backfill.PASSES),
    ("BACKFILLMETRIC", backfill.METRICS),
    ("RESERVATIONPOLICY", kept.REMAKES),
    ("RESERVATIONPOLICY", priority_pass.RESERVES),
    ("NODEALLOCATIONPOLICY", nodechoice.KEYS),
    ("NODEALLOCATIONPOLICY", maui33.KEYS),
    ("MAUICOMPAT", compat.COMPAT_RULES),
    ("JOBPRIOACCRUALPOLICY", deferral.ACCRUAL_RESETS),
    ("QUEUEPOLICY", queues.POLICIES),
    ("QUEUECREDENTIAL", queue_policies.CRED_ATTR),
    ("FSPOLICY", fairshare.FS_POLICIES),
    ("BFPRIORITYPOLICY", backfill.ORDERS),
    ("PREDICTIONPOLICY", predictors.PREDICTORS),
    ("PREDICTIONCORRECTION", correctors.CORRECTORS),
    ("FORECASTPOLICY", forecasting.DRAW_OF),
]


@pytest.mark.parametrize("name, registry", REGISTRIES, ids=[f"{n}-{i}" for i, (n, _r) in enumerate(REGISTRIES)])
def test_policy_values_are_the_dispatch_keys(name, registry):
    vtype = PARAMS[name].type
    assert isinstance(vtype, Choice) and vtype.enum is not None, name
    readings = {vtype.parse(word) for word in vtype.values}
    if isinstance(vtype, FsPolicy):
        readings |= {vtype.parse(word + "%") for word in vtype.values if word != "NONE"}
    assert readings == set(registry) == set(vtype.enum)
    assert all(type(key) is vtype.enum for key in registry)


def test_every_active_choice_parameter_has_a_registry():
    """A new enum-valued policy parameter must be added to REGISTRIES (and so dispatch on its enum)."""
    active = {row.name for row in TABLE
              if row.status == ACTIVE and not row.maps_to and isinstance(row.type, Choice)}
    assert active == {name for name, _r in REGISTRIES}


@pytest.mark.parametrize("name", sorted({n for n, _r in REGISTRIES}))
def test_loader_and_defaults_yield_enum_members(name):
    enum = PARAMS[name].type.enum
    default = SchedulerConfig.default().get(name)
    assert type(default) is enum and default == PARAMS[name].default
    for value in enum:
        got = parse_config(f"{name} {value.value.lower()}\n", "t.cfg").get(name)
        assert got is value and str(got) == value.value
        assert SchedulerConfig.default().with_overrides({name: value.value}).get(name) is value


def test_unknown_node_allocation_spellings_warn_once_at_load():
    cfg = parse_config("NODEALLOCATIONPOLICY CONTIGUOUS\n", "site.cfg")
    assert cfg.get("NODEALLOCATIONPOLICY") is nodechoice.NodeAllocation.LASTAVAILABLE
    [warning] = cfg.warnings
    assert (warning.file, warning.line) == ("site.cfg", 1) and "does not implement" in warning.message
    with pytest.raises(ValueError):
        nodechoice.NodeAllocation("CONTIGUOUS")


def active_rows():
    """(label, parameter or attribute name, acts_in) of every active row and attribute."""
    for row in TABLE:
        if row.status != ACTIVE or row.maps_to:
            continue
        yield row.name, row.name, row.acts_in
        for attr in row.attrs.values():
            if attr.status == ACTIVE:
                yield f"{row.name} {attr.name}", attr.name, attr.acts_in


@pytest.mark.parametrize("label, name, module", list(active_rows()), ids=lambda v: str(v))
def test_active_rows_name_where_they_act(label, name, module):
    assert module, f"{label} is active but names no module (acts_in): add it to ACTS_IN in cfg/params.py"
    source = Path(importlib.import_module(module).__file__).read_text(encoding="utf-8")
    assert re.search(rf"(?<![A-Z0-9_.]){re.escape(name)}(?![A-Z0-9_])", source), f"{module} never names {label}"


def test_params_modules_import_no_circle():
    cfg_dir = Path(PARAMS["QUEUEPOLICY"].type.__class__.__module__.replace(".", "/")).parent
    root = Path(importlib.import_module("maui_py").__file__).parent.parent
    graph = {}
    for path in sorted((root / cfg_dir).glob("*.py")):
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                found |= {node.module} if node.module else {a.name for a in node.names}
        graph[path.stem] = found & {p.stem for p in (root / cfg_dir).glob("*.py")}
    params = {name for name in graph if name.startswith("params")}
    for start in params:
        seen, todo = set(), list(graph[start])
        while todo:
            mod = todo.pop()
            assert mod != start, f"cfg/{start}.py imports itself through {sorted(seen)}"
            if mod not in seen:
                seen.add(mod)
                todo.extend(graph.get(mod, ()))


def test_report_status_and_limit_level_keep_their_wire_values():
    from maui_py.model.report import ReportStatus
    from maui_py.policy.limits import Level
    assert [s.value for s in ReportStatus] == ["started", "reserved", "waiting", "blocked", "deferred", "held",
                                               "running"]
    assert issubclass(ReportStatus, StrEnum) and issubclass(Level, StrEnum)
    assert ReportStatus("held") is ReportStatus.HELD
