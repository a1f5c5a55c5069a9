"""Numbers in maui.cfg are bounded (issue 13): a value that passes the loader cannot break the
scheduler later. Non-finite floats (inf, nan, 1e400) anywhere a number is read, integer literals
of thousands of digits, digits of other scripts, out-of-range FSDECAY and weights are a
ConfigError naming file, line, column and parameter; nothing else is ever raised."""

from __future__ import annotations

import pytest

from maui_py.cfg import PARAMS, ConfigError, parse_config
from maui_py.cfg.loader import MAX_STACK
from maui_py.cfg.params import OBJECT
from maui_py.cfg.values import (
    MAX_DIGITS, ComponentWeight, Double, FsTargetType, Integer, LimitType, ResourceSpec, Time,
)

NUMERIC = (Integer, Double, Time, LimitType, FsTargetType, ResourceSpec)
HUGE = "9" * 5000
NON_FINITE = ("1e400", "-1e400", "inf", "nan", "NaN", "Infinity", "9" * 400 + ".5")


def only_error(text: str):
    """The single issue of a text that must not load."""
    with pytest.raises(ConfigError) as failure:
        parse_config(text, "site.cfg")
    issues = failure.value.issues
    assert len(issues) == 1, [str(i) for i in issues]
    return issues[0]


def rows():
    """(line prefix, value type, id) for every parameter and *CFG attribute of the table."""
    for name, param in sorted(PARAMS.items()):
        if param.scope == OBJECT:
            for attr, row in sorted(param.attrs.items()):
                yield f"{name}[x] {attr}=", row.type, f"{name}.{attr}"
        elif param.type is not None and not param.maps_to:
            yield f"{name} ", param.type, name


ROWS = list(rows())
NUMERIC_ROWS = [(prefix, vtype) for prefix, vtype, _id in ROWS if isinstance(vtype, NUMERIC)]


@pytest.mark.parametrize("value", ["1e400", "inf", "nan", "-0.5", "1.5", HUGE])
def test_fsdecay_outside_0_1_is_an_error_with_file_line_column_and_parameter(value):
    issue = only_error(f"# decay\nFSDECAY  {value}\n")
    assert (issue.file, issue.line, issue.column, issue.parameter) == ("site.cfg", 2, 10, "FSDECAY")
    assert len(str(issue)) < 300                     # a 5000-digit value is cut in the message


@pytest.mark.parametrize("value", ["1", "0.5", "1e-3", "0"])
def test_fsdecay_in_range_loads(value):
    assert parse_config(f"FSDECAY {value}\n").get("FSDECAY") == float(value)


@pytest.mark.parametrize("value", NON_FINITE)
def test_a_non_finite_number_is_an_error_wherever_a_double_is_read(value):
    doubles = [(p, v) for p, v in NUMERIC_ROWS if isinstance(v, (Double, FsTargetType))]
    assert len(doubles) > 20
    for prefix, _vtype in doubles:
        issue = only_error(f"{prefix}{value}\n")
        assert issue.file == "site.cfg" and issue.line == 1 and issue.column == len(prefix) + 1, prefix
        assert issue.parameter and issue.parameter.split("[")[0] == prefix.split("[")[0].split()[0], prefix


@pytest.mark.parametrize("value", [HUGE, "9" * 4301, "1" + "0" * MAX_DIGITS])
def test_integer_literals_are_bounded_in_digits_before_int_is_called(value):
    assert len(NUMERIC_ROWS) > 100
    for prefix, vtype in NUMERIC_ROWS:
        text = f"{prefix}{'PROCS:' if isinstance(vtype, ResourceSpec) else ''}{value}\n"
        issue = only_error(text)
        assert issue.line == 1 and issue.parameter, prefix


def test_the_largest_allowed_integer_still_loads():
    assert parse_config(f"USERCFG[a] PRIORITY={'9' * MAX_DIGITS}\n").object("USERCFG", "a")["PRIORITY"] \
        == 10 ** MAX_DIGITS - 1
    assert parse_config(f"USERCFG[a] PRIORITY=000{'9' * MAX_DIGITS}\n").object("USERCFG", "a")["PRIORITY"] \
        == 10 ** MAX_DIGITS - 1                      # leading zeros are not significant


@pytest.mark.parametrize("digit", ["²", "٣", "５", "𝟗"])
def test_digits_of_other_scripts_are_not_numbers(digit):
    for prefix, vtype in NUMERIC_ROWS:
        text = f"{prefix}{'PROCS:' if isinstance(vtype, ResourceSpec) else ''}1{digit}\n"
        only_error(text)


@pytest.mark.parametrize("index", ["²", "٣", "1²", "５"])
def test_a_stack_index_takes_ascii_digits_only(index):
    issue = only_error(f"RESERVATIONDEPTH[{index}] 3\n")
    assert (issue.line, issue.column, issue.parameter) == (1, 18, f"RESERVATIONDEPTH[{index}]")
    assert "ASCII" in issue.message


def test_a_huge_stack_index_is_clamped_without_converting_it():
    cfg = parse_config(f"RESERVATIONDEPTH[{HUGE}] 3\nRESERVATIONDEPTH[0003] 4\n")
    assert cfg.indexed("RESERVATIONDEPTH")[MAX_STACK] == 3
    assert cfg.indexed("RESERVATIONDEPTH")[3] == 4
    warning = next(w for w in cfg.warnings if "clamped" in w.message)
    assert len(str(warning)) < 300


@pytest.mark.parametrize("line", ["QUEUETIMEWEIGHT 1000000001", "XFACTORWEIGHT -1000000001",
                                  "SERVICEWEIGHT 1000000001%", "QOSCFG[hi] QTWEIGHT=2000000000",
                                  "FSCAP 1e16", "ARMADAMAXFRACTIONPERQUEUE 1.5", "QUEUECFG[a] PRIORITYFACTOR=0"])
def test_weights_caps_and_factors_are_bounded(line):
    issue = only_error(line + "\n")
    assert issue.parameter.split()[0].split("[")[0] == line.split()[0].split("[")[0]


def test_weights_at_the_bound_load():
    cfg = parse_config("QUEUETIMEWEIGHT 1000000000\nSERVICEWEIGHT -1000000000\n")
    assert (cfg.get("QUEUETIMEWEIGHT"), cfg.get("SERVICEWEIGHT")) == (10**9, -10**9)


def test_times_are_bounded_and_a_huge_clock_field_is_an_error():
    assert parse_config("RMPOLLINTERVAL 9999999999999\n").get("RMPOLLINTERVAL") == 2**31 - 1   # INFINITY
    issue = only_error(f"RMPOLLINTERVAL 1:{HUGE}\n")
    assert issue.parameter == "RMPOLLINTERVAL" and "digits" in issue.message


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 10**400])
def test_overrides_are_checked_like_the_file(value):
    with pytest.raises(ConfigError):
        parse_config("").with_overrides({"FSDECAY": value})


def test_no_value_of_any_row_raises_anything_but_config_error():
    """Every row of the table with every hostile value: loads, or a ConfigError with a position."""
    values = (HUGE, *NON_FINITE, "²", "-²", "1e-400", "-1", "0", "", "[NONE]", "ALL", "1:2:3:4:5")
    for prefix, _vtype, _id in ROWS:
        for value in values:
            try:
                parse_config(f"{prefix}{value}\n", "site.cfg")
            except ConfigError as e:
                assert all(i.line == 1 and i.column >= 1 for i in e.issues), (prefix, value)


def test_component_weight_form_names_its_bound():
    assert "1000000000" in ComponentWeight().form
