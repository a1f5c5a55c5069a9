"""TIMEZONE: standing reservation windows and setres times are read in the configuration's
zone (cfg/zone.py), with calendar days, never in the process's $TZ."""

from __future__ import annotations

import time
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from maui_py.cfg import ConfigError, parse_config
from maui_py.cfg import zone as cfg_zone
from maui_py.cli.setres import parse_time
from maui_py.core.cycle import run_cycle
from maui_py.model import ClusterSnapshot, Job, JobRequest, Node, Resources
from maui_py.policy.standing import windows

STOCKHOLM = ZoneInfo("Europe/Stockholm")
SPRING = int(datetime(2026, 3, 28, 12, tzinfo=STOCKHOLM).timestamp())   # DST starts 29 March
AUTUMN = int(datetime(2026, 10, 24, 12, tzinfo=STOCKHOLM).timestamp())  # DST ends 25 October


@pytest.mark.parametrize("now, day, hours", [(SPRING, "20260329", 23), (AUTUMN, "20261025", 25)])
def test_a_whole_day_window_lasts_as_long_as_its_day(now, day, hours):
    got = {name: (s, e) for name, s, e in windows({"PERIOD": "DAY", "DEPTH": 3}, now, STOCKHOLM)}
    s, e = got[day]
    assert (e - s) == hours * 3600
    assert datetime.fromtimestamp(s, STOCKHOLM).hour == 0 == datetime.fromtimestamp(e, STOCKHOLM).hour


@pytest.mark.parametrize("now", [SPRING, AUTUMN])
def test_office_hours_stay_at_the_same_wall_clock_time_across_a_dst_change(now):
    attrs = {"PERIOD": "DAY", "STARTTIME": 9 * 3600, "ENDTIME": 17 * 3600, "DEPTH": 3}
    got = windows(attrs, now, STOCKHOLM)
    assert len(got) == 3
    for _name, s, e in got:
        assert (datetime.fromtimestamp(s, STOCKHOLM).hour, datetime.fromtimestamp(e, STOCKHOLM).hour) == (9, 17)
        assert e - s == 8 * 3600           # neither day holds the change between 9 and 17


def test_a_week_window_holding_a_dst_change_ends_at_the_next_sunday():
    (name, s, e), *_ = windows({"PERIOD": "WEEK", "DEPTH": 1}, SPRING + 86400, STOCKHOLM)
    assert name == "20260329" and e - s == 7 * 86400 - 3600
    assert datetime.fromtimestamp(e, STOCKHOLM).strftime("%a %H:%M") == "Sun 00:00"


def _standing_start(cfg_text: str) -> int:
    nodes = (Node("n0", Resources.of(1)),)
    cfg = parse_config(cfg_text + "SRCFG[day] PERIOD=DAY STARTTIME=09:00:00 ENDTIME=10:00:00 DEPTH=2\n")
    waiting = Job("j1", "user", JobRequest(tasks=1), 60, 1_800_000_000)
    result = run_cycle(ClusterSnapshot(1_800_000_000, nodes, (waiting,)), cfg)
    return min(r.start for r in result.held if r.name.startswith("day."))


def test_the_cycle_reads_the_zone_from_its_configuration_not_from_tz(monkeypatch):
    utc, tokyo = _standing_start("TIMEZONE UTC\n"), _standing_start("TIMEZONE Asia/Tokyo\n")
    assert datetime.fromtimestamp(utc, ZoneInfo("UTC")).hour == 9
    assert datetime.fromtimestamp(tokyo, ZoneInfo("Asia/Tokyo")).hour == 9
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        assert _standing_start("TIMEZONE UTC\n") == utc
        assert _standing_start("TIMEZONE Asia/Tokyo\n") == tokyo
    finally:
        monkeypatch.undo()
        time.tzset()


def test_an_unknown_zone_is_an_error_with_its_place():
    with pytest.raises(ConfigError, match=r"t\.cfg:2:\d+: error: .*unknown time zone 'Mars/Olympus'"):
        parse_config("RESERVATIONDEPTH 2\nTIMEZONE Mars/Olympus\n", "t.cfg")
    with pytest.raises(ConfigError) as got:
        parse_config("TIMEZONE " + "a" * 5000 + "\n", "t.cfg")
    assert len(str(got.value)) < 300


def test_without_timezone_the_configuration_takes_the_host_zone_read_once(monkeypatch):
    cfg_zone.host_zone.cache_clear()
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    try:
        assert parse_config("").zone == ZoneInfo("Asia/Tokyo")
        monkeypatch.setenv("TZ", "UTC")
        assert parse_config("").zone == ZoneInfo("Asia/Tokyo")      # read once per process
        assert parse_config("TIMEZONE UTC\n").zone == ZoneInfo("UTC")
    finally:
        cfg_zone.host_zone.cache_clear()


def test_setres_clock_times_are_read_in_the_zone():
    now = SPRING + 86400                                   # Sunday 29 March, 13:00 CEST
    at = parse_time("09:30_03/30", now, STOCKHOLM)
    assert datetime.fromtimestamp(at, STOCKHOLM).strftime("%m-%d %H:%M") == "03-30 09:30"
    assert parse_time("09:30_03/30", now, ZoneInfo("UTC")) - at == 2 * 3600
