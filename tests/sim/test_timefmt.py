"""Durations in human units and the trace's dates (UnixStartTime, TimeZoneString)."""

import time
from datetime import timezone

import pytest

from maui_py.sim.swf import SwfHeader
from maui_py.sim.timefmt import (TraceClock, clock_for, clock_from_dict, clock_from_header,
                                 human_duration, maui_dates, short_duration, sim_clock)
from maui_py.model.times import multodstring

KTH_START = 843480031          # the KTH-SP2 header: "StartTime: Mon Sep 23 14:00:31 CEST 1996"


@pytest.mark.parametrize("seconds, text", [
    (0, "00:00:00"), (59, "00:00:59"), (3600, "01:00:00"), (86399, "23:59:59"),
    (86400, "1d 00:00:00"), (3 * 86400 + 4 * 3600 + 12 * 60, "3d 04:12:00"),
    (-300, "-00:05:00"), (125.6, "00:02:06"), (400 * 86400 + 1, "400d 00:00:01")])
def test_human_duration(seconds, text):
    assert human_duration(seconds) == text


def test_short_duration_for_axes():
    assert [short_duration(s) for s in (1, 45, 600, 3600, 5400, 86400, 7 * 86400)] == \
        ["1s", "45s", "10m", "1h", "1.5h", "1d", "7d"]


def test_dates_come_from_the_header_in_the_sites_zone():
    header = SwfHeader((f"; UnixStartTime: {KTH_START}", "; TimeZone: 3600",
                        "; TimeZoneString: Europe/Stockholm"))
    assert header.time_zone == "Europe/Stockholm" and header.time_zone_offset == 3600
    clock, warning = clock_from_header(header)
    assert warning is None and clock.absolute
    assert clock.date(0) == "1996-09-23 14:00:31 CEST"
    assert clock.date(60 * 86400) == "1996-11-22 13:00:31 CET"     # after the switch to winter time
    assert clock.maui_date(0) == "Mon Sep 23 14:00:31 1996\n"
    assert clock.day(86400) == "1996-09-24"


def test_the_machine_zone_does_not_matter(monkeypatch):
    clock, _ = clock_for(KTH_START, "US/Pacific")
    before = clock.date(1000)
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        assert clock.date(1000) == before == "1996-09-23 05:17:11 PDT"
    finally:
        monkeypatch.undo()
        time.tzset()


def test_unknown_zone_falls_back_to_the_offset_then_utc_with_a_warning():
    clock, warning = clock_for(KTH_START, "Mars/Olympus", 3600)
    assert clock.date(0) == "1996-09-23 13:00:31 UTC+01:00"
    assert "unknown time zone 'Mars/Olympus'" in warning and "UTC+01:00" in warning
    clock, warning = clock_for(KTH_START, "../../etc/passwd")
    assert clock.zone is timezone.utc and "using UTC" in warning
    clock, warning = clock_for(KTH_START, None, 99 * 3600)          # not a real offset
    assert clock.zone_name == "UTC" and warning is None


@pytest.mark.parametrize("start", [None, 0, -5, 10**17])
def test_no_real_start_time_gives_relative_days(start):
    clock, warning = clock_for(start, "Europe/Paris")
    assert not clock.absolute and warning is None
    assert clock.date(3 * 86400 + 4 * 3600 + 12 * 60) == "day 4 04:12:00"
    assert clock.day(0) == "day 1" and clock.maui_date(59) == "day 1 00:00:59\n"


def test_a_date_past_any_calendar_is_relative_not_a_crash():
    clock, _ = clock_for(KTH_START, "UTC")
    assert clock.date(10**15).startswith("day ")


def test_the_clock_survives_a_round_trip_and_only_sim_stores_get_trace_dates():
    clock, _ = clock_for(KTH_START, "Europe/Stockholm")
    again = clock_from_dict(clock.as_dict())
    assert again.date(0) == clock.date(0)
    assert clock_from_dict({"unix_start": "843480031"}) is None
    assert clock_from_dict({"unix_start": True}) is None
    assert clock_from_dict(None) is None and clock_from_dict({}) is None
    record = {"rm": "sim", "clock": clock.as_dict()}
    assert sim_clock(record) == {"unix_start": KTH_START, "time_zone": "Europe/Stockholm"}
    assert maui_dates(sim_clock(record))(0) == "Mon Sep 23 14:00:31 1996\n"
    assert sim_clock({"rm": "slurm", "clock": clock.as_dict()}) is None
    assert sim_clock({"rm": "sim"}) is None                     # a store of an older maui-sim
    assert maui_dates(None) is multodstring                     # a daemon's store: Maui's dates
    relative = sim_clock({"rm": "sim", "clock": TraceClock().as_dict()})
    assert maui_dates(relative)(90000) == "day 2 01:00:00\n"
