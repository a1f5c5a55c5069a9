"""Standing and administrative reservations with access control (issue 9)."""

import time
from zoneinfo import ZoneInfo

import pytest

from maui_py.core.cycle import run_cycle
from maui_py.model import Acl, ClusterSnapshot, Reservation, ReservationKind
from maui_py.policy.standing import windows

from .build import cluster, config, job, replay, snapshot

MONDAY_0800 = 1795420800  # Mon 2026-11-23 08:00:00 UTC
UTC = ZoneInfo("UTC")


def held(result, name_prefix):
    return [r for r in result.held if r.name.startswith(name_prefix)]


def test_period_day_office_hours_on_weekdays_only():
    attrs = {"PERIOD": "DAY", "DAYS": ("MON", "TUE", "WED", "THU", "FRI"),
             "STARTTIME": 9 * 3600, "ENDTIME": 17 * 3600, "DEPTH": 7}
    got = windows(attrs, MONDAY_0800, UTC)
    assert [time.strftime("%a %H:%M", time.gmtime(s)) for _n, s, _e in got] == [
        "Mon 09:00", "Tue 09:00", "Wed 09:00", "Thu 09:00", "Fri 09:00"]
    assert all(e - s == 8 * 3600 for _n, s, e in got)


def test_period_week_and_week_offsets_with_days():
    week = windows({"PERIOD": "WEEK", "STARTTIME": 86400 + 3600, "ENDTIME": 86400 + 7200,
                    "DEPTH": 2}, MONDAY_0800, UTC)
    assert [time.strftime("%a %d %H:%M", time.gmtime(s)) for _n, s, _e in week] == ["Mon 30 01:00"]
    night = windows({"DAYS": ("MON",), "WSTARTTIME": 22 * 3600, "WENDTIME": 86400 + 6 * 3600},
                    MONDAY_0800, UTC)
    s, e = night[0][1], night[0][2]
    assert time.strftime("%a %H:%M", time.gmtime(s)) == "Mon 22:00"
    assert time.strftime("%a %H:%M", time.gmtime(e)) == "Tue 06:00"


def test_period_infinity_with_a_regex_hostlist_from_a_real_site():
    cfg = config("SRCFG[grp] HOSTLIST=^n[0-1]$ PERIOD=INFINITY USERLIST=alice,bob\n")
    nodes = cluster(4)
    jobs = [job("carol1", 4, 100, 0, user="carol"), job("alice1", 2, 100, 1, user="alice")]
    r = run_cycle(snapshot(10, nodes, jobs), cfg)
    (sr,) = held(r, "grp")
    assert sr.nodes == ("n0", "n1") and sr.end > 10**15
    starts = {d.job_id: d.nodes for d in r.starts()}
    assert starts == {"alice1": ("n0", "n1")}          # inside, preferring it
    assert "can only run inside reservation(s) grp.0" in r.reports["carol1"].reason


@pytest.mark.parametrize("acl,admitted", [
    ("USERLIST=alice", {"u"}), ("GROUPLIST=chem", {"g"}), ("ACCOUNTLIST=proj", {"a"}),
    ("CLASSLIST=interactive", {"c"}), ("QOSLIST=hi", {"q"}), ("TIMELIMIT=0:10:00", {"short"}),
])
def test_each_access_list(acl, admitted):
    cfg = config(f"SRCFG[r] PERIOD=INFINITY HOSTLIST=n0 {acl}\n")
    jobs = [job("u", 1, 3600, 0, user="alice"), job("g", 1, 3600, 0, group="chem"),
            job("a", 1, 3600, 0, account="proj"), job("c", 1, 3600, 0, class_="interactive"),
            job("q", 1, 3600, 0, qos="hi"), job("short", 1, 300, 0),
            job("none", 1, 3600, 0)]
    for j in jobs:
        r = run_cycle(snapshot(10, cluster(1), [j]), cfg)
        assert bool(r.starts()) == (j.id in admitted), (acl, j.id)


def test_dedicated_and_shared_standing_reservations():
    nodes = cluster(2)
    base = ("SRCFG[a] PERIOD=INFINITY TASKCOUNT=1 USERLIST=alice\n"
            "SRCFG[b] PERIOD=INFINITY TASKCOUNT=1 USERLIST=bob ACCESS={}\n")
    ded = run_cycle(snapshot(0, nodes, []), config(base.format("DEDICATED")))
    assert {r.name: r.nodes for r in ded.held} == {"a.0": ("n0",), "b.0": ("n1",)}
    shared = run_cycle(snapshot(0, nodes, []), config(base.format("SHARED")))
    assert {r.name: r.nodes for r in shared.held} == {"a.0": ("n0",), "b.0": ("n0",)}


def test_maintenance_reservation_drains_busy_nodes():
    running = job("long", 1, 10_000, 0, start=0, nodes=("n0",))
    maint = Reservation("maint", ReservationKind.USER, 1000, 5000, hosts=("n0", "n1"))
    waiting = [job("a", 1, 3000, 1), job("b", 1, 500, 2)]
    r = run_cycle(ClusterSnapshot(10, cluster(2), (running, *waiting), (maint,)), config())
    m = [x for x in r.held if x.name == "maint"][0]
    assert m.nodes == ("n0", "n1") and m.start == 1000
    assert [d.job_id for d in r.starts()] == ["b"]       # ends at 510, before 1000
    reserved = {d.job_id: d.start for d in r.reservations()}
    assert reserved["a"] >= 5000                          # a would run into the maintenance


def test_admin_reservation_with_an_access_list_expires_by_itself():
    adm = Reservation("course", ReservationKind.USER, 0, 1000, hosts=("n0",),
                      acl=Acl(groups=frozenset({"students"})))
    jobs = [job("s", 1, 100, 0, group="students"), job("x", 2, 100, 0)]
    r = run_cycle(ClusterSnapshot(10, cluster(2), tuple(jobs), (adm,)), config())
    assert {d.job_id: d.nodes for d in r.starts()} == {"s": ("n0",)}
    assert r.reports["x"].start == 1000
    later = run_cycle(ClusterSnapshot(1000, cluster(2), tuple(jobs[1:]), (adm,)), config(), r.state)
    assert [d.job_id for d in later.starts()] == ["x"] and not held(later, "course")


def test_office_hours_reservation_on_a_replayed_trace():
    """Only the allowed users' jobs run on the reserved nodes during office hours; nobody
    else's job overlaps a reservation instance (KTH-SP2 has no queue numbers, so access is
    by user)."""
    from maui_py.sim.swf import clean, read_swf, to_sim_jobs
    from ..traces import trace_path
    header, records = read_swf(trace_path("KTH-SP2-1996-2.1-cln.swf.gz"))
    kept, _ = clean(records, header.max_procs)
    jobs = [s.job for s in to_sim_jobs(kept[:1500])]
    allowed = {"user36", "user25"}
    nodes = [f"node{i:03d}" for i in range(1, 21)]
    cfg = ("SRCFG[office] PERIOD=DAY DAYS=MON,TUE,WED,THU,FRI STARTTIME=9:00:00 "
           f"ENDTIME=17:00:00 HOSTLIST={','.join(nodes)} USERLIST=user36,user25\n")
    instances = {}

    def note(t, result):
        for r in result.held:
            if r.name.startswith("office."):
                instances[r.name] = (r.start, r.end, set(r.nodes))
    from maui_py.sim.cluster import from_trace_header
    res, _got = replay(from_trace_header(header), jobs, cfg, on_cycle=note)
    assert len(instances) >= 10
    inside = outside = 0
    for rec in res.records.values():
        for start, end, where in instances.values():
            if rec.start < end and start < rec.end and where & set(rec.nodes):
                assert rec.job.user in allowed, (rec.job.id, rec.job.user)
                inside += 1
        outside += rec.job.user not in allowed
    assert inside > 0 and outside > 0
