"""A replay always ends (issue 13): a job no recurring reservation leaves room for is
deferred, then held with its reason, and the jobs behind it run; a HOSTLIST that names no
node reserves nothing."""

from maui_py.sim.report import summary_text

from .build import cluster, job, replay

MONDAY_0800 = 1795420800  # Mon 2026-11-23 08:00:00 UTC
DAILY_HOUR = ("DEFERTIME 00:30:00\nDEFERCOUNT 2\nRESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n"
              "SRCFG[maint] STARTTIME=02:00:00 ENDTIME=03:00:00 PERIOD=DAY USERLIST=root\n")


def test_a_job_longer_than_the_gap_between_daily_instances_is_held_and_the_rest_run():
    nodes = cluster(4)
    jobs = [job("long", 4, 30 * 3600, MONDAY_0800),            # 30 h: never between two 02:00s
            job("short", 4, 3600, MONDAY_0800 + 60),
            job("after", 2, 7200, MONDAY_0800 + 120)]
    res, starts = replay(nodes, jobs, DAILY_HOUR)
    assert starts["long"] == (None, None)
    assert starts["short"][0] == MONDAY_0800 + 60 and starts["after"][0] is not None
    why = res.state.batch_holds["long"]
    assert "deferred 3 times" in why and "standing reservation(s) maint" in why
    assert "no window of 1:06:00:00" in why
    assert "long: deferred 3 times" in summary_text(res)


def test_a_job_that_fits_between_instances_waits_for_the_gap():
    nodes = cluster(4)
    res, starts = replay(nodes, [job("day", 4, 20 * 3600, MONDAY_0800)], DAILY_HOUR)
    start = starts["day"][0]
    assert start == MONDAY_0800 + 19 * 3600            # 03:00 Tuesday: 20 h before 02:00 Wed
    assert not res.state.batch_holds and not res.unfinished


def test_a_replay_stops_when_nothing_can_start_any_more():
    """A job only the reservation's users may run: no window ever, and a bounded replay."""
    nodes = cluster(2)
    text = ("RESERVATIONDEPTH 1\nDEFERTIME 1:00:00\nDEFERCOUNT 0\n"        # defer for ever
            "SRCFG[all] PERIOD=INFINITY USERLIST=root\n")
    res, starts = replay(nodes, [job("blocked", 1, 60, MONDAY_0800)], text,
                         stall_limit=86400)
    assert starts["blocked"] == (None, None)
    assert res.stalled is not None and set(res.stalled) == {"blocked"}
    assert "reservation" in res.stalled["blocked"]


def test_a_hostlist_naming_no_node_reserves_nothing():
    nodes = cluster(2, prefix="node00")
    text = "RESERVATIONDEPTH 1\nSRCFG[maint] HOSTLIST=node4 PERIOD=INFINITY USERLIST=root\n"
    res, starts = replay(nodes, [job("j", 2, 600, MONDAY_0800)], text)
    assert starts["j"][0] == MONDAY_0800
