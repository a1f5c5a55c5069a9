"""Numbered configuration cases: `good_NNN_*.cfg` must load, `bad_NNN_*.cfg` must fail.

Each case states its expectations in comment lines (comments never change a configuration):
    # expect-error: LINE:COL PARAMETER     every error, in order (bad cases)
    # expect-warning: LINE:COL PARAMETER   every warning, in order ("-" for no parameter)
    # expect: <Python expression>          true for the loaded `cfg` (bad cases: the `error`)
The lists are exact: an unexpected error or warning fails the case.
"""

import re
from pathlib import Path

import pytest

from maui_py.cfg import INFINITY, PARAMS, ConfigError, FsTarget, Limit, SchedulerConfig, parse_config

HERE = Path(__file__).parent
CASES = sorted(HERE.glob("*.cfg"))
_ISSUE = re.compile(r"#\s*expect-(error|warning):\s*(\d+):(\d+)\s+(.+?)\s*$")
_CHECK = re.compile(r"#\s*expect:\s*(.+?)\s*$")


def expectations(text):
    issues = {"error": [], "warning": []}
    checks = []
    for line in text.splitlines():
        if match := _ISSUE.match(line):
            kind, row, col, param = match.groups()
            issues[kind].append((int(row), int(col), "" if param == "-" else param))
        elif match := _CHECK.match(line):
            checks.append(match.group(1))
    return issues["error"], issues["warning"], checks


def located(issues):
    return [(i.line, i.column, i.parameter) for i in issues]


def test_there_are_enough_cases():
    assert len(CASES) >= 40
    assert {p.name.split("_")[0] for p in CASES} == {"good", "bad"}


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_case(path):
    text = path.read_bytes().decode("utf-8")
    errors, warnings, checks = expectations(text)
    names = {"PARAMS": PARAMS, "FsTarget": FsTarget, "Limit": Limit, "INFINITY": INFINITY,
             "SchedulerConfig": SchedulerConfig}
    if path.name.startswith("bad_"):
        assert errors, "a bad case names its errors"
        with pytest.raises(ConfigError) as failure:
            parse_config(text, path.name)
        assert located(failure.value.issues) == errors
        assert located(failure.value.warnings) == warnings
        names["error"] = failure.value
    else:
        assert not errors and (warnings or checks), "a good case states what it expects"
        cfg = parse_config(text, path.name)
        assert located(cfg.warnings) == warnings
        names["cfg"] = cfg
    for check in checks:
        assert eval(check, names), check  # noqa: S307 - expectations written in this directory
