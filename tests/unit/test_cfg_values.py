"""Value types: each form parses to its typed value, maps Maui's other spellings with a note,
rejects text with no reading, and formats back to text that parses to the same value."""

import pytest

from maui_py.cfg import INFINITY, FsTarget, Limit
from maui_py.cfg.errors import BadValue
from maui_py.cfg.params import (
    BACKFILL_POLICY, BACKFILL_METRIC, COMPONENT_WEIGHT, FS_POLICY, LIMIT, QOS_FLAGS, RM_TYPE, TIME_LIMIT,
)
from maui_py.cfg.values import (
    Boolean, Days, Double, FsTargetType, Integer, Name, ResourceSpec, String, StringList, Time, format_time,
)


def parse(vtype, text):
    notes = []
    return vtype.parse(text, notes.append), notes


@pytest.mark.parametrize("text, seconds", [
    ("0", 0), ("86400", 86400), ("30", 30), ("00:00:30", 30), ("1:00", 60), ("6:00:00", 21600),
    ("168:00:00", 168 * 3600), ("1:00:00:00", 86400), ("00:22:00:00", 22 * 3600), ("INFINITY", INFINITY),
    ("infinity", INFINITY), ("-1", -1), ("-5", -1), ("99999999999", INFINITY),
])
def test_time_forms(text, seconds):
    assert Time().parse(text) == seconds


@pytest.mark.parametrize("text", ["", "abc", "1:xx", "1.5", "1:2:3:4:5", ":30", "1::00", "- 1"])
def test_time_rejects(text):
    with pytest.raises(BadValue):
        Time().parse(text)


@pytest.mark.parametrize("seconds, text", [
    (0, "00:00:00"), (59, "00:00:59"), (3600, "01:00:00"), (86400, "1:00:00:00"), (90061, "1:01:01:01"),
    (INFINITY, "INFINITY"), (-1, "-1"),
])
def test_time_format_round_trips(seconds, text):
    assert format_time(seconds) == text
    assert Time().parse(text) == seconds


def test_integer_bounds_and_strictness():
    assert Integer().parse(" -12 ") == -12
    assert Integer(lo=0).form == "<INTEGER> >= 0"
    for text in ("1.5", "10abc", "", "0x10"):
        with pytest.raises(BadValue):
            Integer().parse(text)
    with pytest.raises(BadValue, match="out of range"):
        Integer(0, 9).parse("12")
    with pytest.raises(BadValue):
        Integer().check(True)


def test_component_weight_percent_is_read_with_a_note():
    value, notes = parse(COMPONENT_WEIGHT, "10%")
    assert value == 10 and "percent" in notes[0]
    assert parse(COMPONENT_WEIGHT, "10") == (10, [])


def test_double_and_boolean():
    assert Double().parse("0.80") == 0.8 and Double().parse("1e3") == 1000.0 and Double().parse("5") == 5.0
    assert Double().parse(Double().format(0.1)) == 0.1
    for text, value in (("TRUE", True), ("on", True), ("Yes", True), ("1", True), ("OFF", False), ("no", False)):
        assert Boolean().parse(text) is value
    with pytest.raises(BadValue):
        Boolean().parse("maybe")


def test_enum_maps_maui_spellings_with_warnings():
    assert parse(BACKFILL_POLICY, "BESTFIT") == ("BESTFIT", [])
    value, notes = parse(BACKFILL_POLICY, "firstfit")
    assert value == "FIRSTFIT" and "case" in notes[0]
    for text, value in (("ON", "FIRSTFIT"), ("TRUE", "FIRSTFIT"), ("OFF", "NONE"), ("false", "NONE"),
                        ("BESTTIMEFIT", "FIRSTFIT"), ("LAZY", "FIRSTFIT")):
        got, notes = parse(BACKFILL_POLICY, text)
        assert got == value and notes, text
    assert parse(BACKFILL_METRIC, "NODES")[0] == "PROCS"
    assert parse(BACKFILL_METRIC, "PESECONDS")[0] == "PROCS"
    with pytest.raises(BadValue, match="did you mean FIRSTFIT"):
        BACKFILL_POLICY.parse("FASTFIT")


def test_fs_policy_percent_and_aliases():
    assert parse(FS_POLICY, "DEDICATEDPES%") == ("DEDICATEDPES%", [])
    assert parse(FS_POLICY, "PSDEDICATED")[0] == "DEDICATEDPS"
    assert parse(FS_POLICY, "TRUE")[0] == "DEDICATEDPS"
    with pytest.raises(BadValue):
        FS_POLICY.parse("NONE%")


def test_lists_split_on_space_comma_colon_and_normalise_all():
    names = StringList()
    assert names.parse("hi low") == names.parse("hi,low") == names.parse("hi:low") == ("hi", "low")
    assert names.parse("[ALL]") == ("ALL",)
    value, notes = parse(names, "all")
    assert value == ("ALL",) and notes
    assert names.parse("[NONE]") == ()
    assert names.format(("a", "b")) == "a b" and names.format(("a", "b"), in_attr=True) == "a,b"


def test_qlist_markers_are_dropped_with_a_note():
    value, notes = parse(StringList(markers=True), "hi,low&")
    assert value == ("hi", "low") and "AND" in notes[0]
    assert parse(Name(), "hi^")[0] == "hi"


def test_flags_keep_known_and_drop_unknown_with_hint():
    value, notes = parse(QOS_FLAGS, "PREEMPTOR:IGNMAXJOB,nobf")
    assert value == frozenset({"PREEMPTOR", "NOBF"})
    assert any("IGNMAXJOB" in n for n in notes)
    assert QOS_FLAGS.format(value, in_attr=True) == "NOBF:PREEMPTOR"


def test_limits_soft_hard():
    assert LIMIT.parse("8") == Limit(8, 8)
    assert LIMIT.parse("2,8") == Limit(2, 8)
    assert LIMIT.parse("INFINITY") == Limit(-1, -1)
    assert TIME_LIMIT.parse("72:00:00") == Limit(259200, 259200)
    assert TIME_LIMIT.parse("1:00:00,2:00:00") == Limit(3600, 7200)
    assert LIMIT.format(Limit(2, 8)) == "2,8" and TIME_LIMIT.format(Limit(3600, 3600)) == "01:00:00"
    value, notes = parse(LIMIT, "9,3")
    assert value == Limit(9, 3) and "above" in notes[0]
    assert Limit(0, 0).hard_or_none is None and Limit(2, 5).soft_or_none == 2
    for text in ("1,2,3", "x", "1.5"):
        with pytest.raises(BadValue):
            LIMIT.parse(text)


@pytest.mark.parametrize("text, target", [
    ("10", FsTarget(10.0, "target")), ("10.0-", FsTarget(10.0, "ceiling")), ("5+", FsTarget(5.0, "floor")),
    ("10^", FsTarget(10.0, "capabs")), ("10%", FsTarget(10.0, "caprel")), ("25.5", FsTarget(25.5)),
])
def test_fstarget_suffixes(text, target):
    assert FsTargetType().parse(text) == target
    assert FsTargetType().parse(FsTargetType().format(target)) == target


def test_fstarget_rejects_and_checks_mode():
    for text in ("abc", "10*", "-5", "10--"):
        with pytest.raises(BadValue):
            FsTargetType().parse(text)
    with pytest.raises(ValueError):
        FsTarget(1.0, "sideways")


def test_resources_days_rmtype_string():
    assert ResourceSpec().parse("PROCS:4;MEM:1000") == (("PROCS", 4), ("MEM", 1000))
    assert ResourceSpec().parse("PROCS=2;MEM=512") == (("PROCS", 2), ("MEM", 512))
    with pytest.raises(BadValue):
        ResourceSpec().parse("PROCS")
    assert Days().parse("Mon,TUE|wednesday") == ("MON", "TUE", "WED")
    with pytest.raises(BadValue):
        Days().parse("FUNDAY")
    assert RM_TYPE.parse("SLURM") == "SLURM" and RM_TYPE.parse("PBS:RMS") == "PBS:RMS"
    assert parse(RM_TYPE, "TORQUE")[0] == "PBS"
    with pytest.raises(BadValue):
        RM_TYPE.parse("FOO")
    assert String().parse(" 'a b' ") == "a b" and String().format("a b", in_attr=True) == "'a b'"
    with pytest.raises(BadValue):
        String().parse("[NONE]")


def test_check_validates_python_values():
    assert LIMIT.check(5) == Limit(5, 5) and LIMIT.check((1, 2)) == Limit(1, 2)
    assert FsTargetType().check(10) == FsTarget(10.0)
    assert QOS_FLAGS.check({"nobf"}) == frozenset({"NOBF"})
    assert BACKFILL_POLICY.check("bestfit") == "BESTFIT"
    for vtype, value in ((Integer(), "1"), (Integer(), 1.5), (Boolean(), 1), (QOS_FLAGS, {"BOGUS"}),
                         (StringList(), "a"), (Time(), 1.0)):
        with pytest.raises(BadValue):
            vtype.check(value)
