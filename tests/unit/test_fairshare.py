"""Maui fair share: windows, decay, charging, FSTARGET forms, caps, state (spec §2.4, §3.4)."""

import json

import pytest

from maui_py.cfg import FsTarget, parse_config
from maui_py.core.cycle import run_cycle
from maui_py.priority.fairshare import SYSTEM, FairShare, decayed, fs_subfactor
from maui_py.priority.policy import MauiFairShare, MauiOrder
from maui_py.priority.queues import make_queue_policy
from tests.scenarios.build import cluster, job, snapshot

H12 = 43200
CASE4 = "FSPOLICY DEDICATEDPS\nFSINTERVAL 12:00:00\nFSDEPTH 4\nFSDECAY 0.5\n"


def fair(text: str) -> FairShare:
    return FairShare(parse_config(text, "t.cfg"))


def running(jid, procs, start, wallclock=10**7, **cred):
    return job(jid, procs, wallclock, start, start=start, nodes=("n0",), per_node=procs, **cred)


def test_spec_case_4_johns_usage_from_restored_windows():
    """John 60/0/10/50, totals 110/125/100/150 (newest first): 68.75 / 216.25 = 31.79 %."""
    fs = fair(CASE4)
    now = 10 * H12 + 5
    windows = [[(10 - i) * H12, {"user:john": j, SYSTEM: t}]
               for i, (j, t) in enumerate(zip((60, 0, 10, 50), (110, 125, 100, 150)))]
    fs.restore({"last": now, "windows": windows})
    assert fs.usage("user:john") == pytest.approx(68.75)
    assert fs.usage(SYSTEM) == pytest.approx(216.25)
    assert round(fs.percent_of("user", "john"), 2) == 31.79


def test_spec_case_4_johns_usage_charged_by_running_jobs():
    """The same figures charged as jobs run through four windows (one cycle per window)."""
    fs = fair(CASE4)
    john = (50, 10, 0, 60)                 # oldest window first
    total = (150, 100, 125, 110)
    fs.charge(0, [])
    for w, (j, t) in enumerate(zip(john, total)):
        start, end = w * H12, (w + 1) * H12 - 1
        jobs = [running(f"o{w}", t - j, start, H12 - 1, user="other")]
        if j:
            jobs.append(running(f"j{w}", j, start, H12 - 1, user="john"))
        fs.note_started(jobs, start)
        fs.charge(end, jobs)
    assert round(fs.percent_of("user", "john"), 2) == 31.79


def test_decayed_sum():
    assert decayed([60, 0, 10, 50], 0.5) == pytest.approx(68.75)
    assert decayed([], 0.5) == 0


def test_charge_splits_a_run_over_window_boundaries_and_keeps_only_fsdepth_in_the_sum():
    fs = fair("FSPOLICY DEDICATEDPS\nFSINTERVAL 100\nFSDEPTH 2\nFSDECAY 1.0\n")
    fs.charge(50, [])
    fs.charge(250, [running("a", 2, 50, user="u")])      # 2 procs x 200 s over 3 windows
    assert {k: w["user:u"] for k, w in fs.windows.items()} == {0: 100.0, 1: 200.0, 2: 100.0}
    assert fs.usage("user:u") == 300.0                    # windows 2 and 1 (FSDEPTH 2)


def test_a_job_gone_since_the_last_cycle_is_charged_to_now_at_most_its_wallclock():
    fs = fair("FSPOLICY DEDICATEDPS\nFSINTERVAL 10000\n")
    fs.charge(0, [])
    a = job("a", 4, 100, 0, user="u")
    b = job("b", 1, 1000, 0, user="v")
    fs.note_started([a, b], 0)                           # started, never seen running
    fs.charge(300, [])                                   # both gone by now
    assert fs.usage("user:u") == 400.0                   # 4 procs x its 100 s limit
    assert fs.usage("user:v") == 300.0                   # 1 proc x 300 s
    fs.charge(600, [])
    assert fs.usage(SYSTEM) == 700.0                     # charged once


def test_dedicated_pes_charges_processor_equivalents():
    fs = fair("FSPOLICY DEDICATEDPES\nFSINTERVAL 10000\n")
    fs.set_totals(10, 1000)
    big_mem = job("m", 1, 100, 0, user="u", mem=500, start=0, nodes=("n0",))
    fs.charge(0, [])
    fs.charge(10, [big_mem])
    assert fs.usage("user:u") == pytest.approx(10 * 5.0)   # half the memory = 5 procs


@pytest.mark.parametrize("mode,below,above", [
    ("target", 10.0, -10.0), ("floor", 10.0, 0.0), ("ceiling", 0.0, -10.0), ("capabs", 0.0, 0.0),
    ("caprel", 0.0, 0.0)])
def test_fstarget_forms(mode, below, above):
    t = FsTarget(30.0, mode)
    assert fs_subfactor(t, 20.0) == below
    assert fs_subfactor(t, 40.0) == above


def test_percentage_fspolicy_is_relative_to_the_target():
    assert fs_subfactor(FsTarget(40.0), 10.0, percent_policy=True) == pytest.approx(0.75)
    assert fs_subfactor(FsTarget(40.0, "floor"), 60.0, percent_policy=True) == 0.0


def _two_users(extra: str = "") -> FairShare:
    fs = fair("FSPOLICY DEDICATEDPS\nFSINTERVAL 10000\n" + extra)
    fs.charge(0, [])
    fs.charge(100, [running("a", 3, 0, user="heavy", group="g"), running("b", 1, 0, user="light")])
    return fs                                             # heavy 75 %, light 25 %


def test_subfactors_use_the_own_target_else_the_default_one():
    fs = _two_users("USERCFG[DEFAULT] FSTARGET=50\nUSERCFG[light] FSTARGET=10-\nGROUPCFG[g] FSTARGET=60+\n")
    assert fs.subfactors(job("x", 1, 10, user="heavy", group="g")) == {"FSUSER": -25.0}
    assert fs.subfactors(job("y", 1, 10, user="light")) == {"FSUSER": -15.0}
    assert fs.subfactors(job("z", 1, 10, user="new", group="g")) == {"FSUSER": 50.0}


def test_no_fair_share_before_any_usage_or_when_off():
    assert fair("FSPOLICY DEDICATEDPS\nUSERCFG[u] FSTARGET=50\n").subfactors(job("x", 1, 10, user="u")) == {}
    fs = fair("USERCFG[u] FSTARGET=50\n")
    fs.charge(0, [])
    fs.charge(10, [running("a", 1, 0, user="u")])
    assert fs.subfactors(job("x", 1, 10, user="u")) == {} and fs.usage(SYSTEM) == 0


def test_absolute_and_relative_caps_block_jobs_that_would_cross_them():
    fs = _two_users("USERCFG[heavy] FSTARGET=400^\nUSERCFG[light] FSTARGET=30%\n")
    assert fs.cap_violation(job("x", 1, 100, user="heavy")) is None            # 300 + 100 = 400
    assert "exceed 400.0^" in fs.cap_violation(job("x", 1, 101, user="heavy"))
    assert fs.cap_violation(job("y", 1, 20, user="light")) is None             # 120/400 = 30 %
    assert "exceed 30.0%" in fs.cap_violation(job("y", 1, 21, user="light"))
    assert fs.subfactors(job("x", 1, 10, user="heavy")) == {}                 # caps add no priority


def test_a_cap_blocks_the_job_in_the_cycle_even_on_an_idle_machine():
    cfg = parse_config("FSPOLICY DEDICATEDPS\nFSINTERVAL 10000\nUSERCFG[u] FSTARGET=100^\n", "t.cfg")
    nodes = cluster(2)
    r = run_cycle(snapshot(0, nodes, [running("old", 1, 0, 100, user="u")]), cfg)
    r = run_cycle(snapshot(90, nodes, [running("old", 1, 0, 100, user="u"),
                                       job("new", 1, 50, 50, user="u")]), cfg, r.state)
    assert r.reports["new"].status == "blocked" and "fair-share cap user u" in r.reports["new"].reason
    assert not r.starts()


def test_fair_share_moves_priority_in_the_cycle():
    cfg = parse_config("FSPOLICY DEDICATEDPS\nFSINTERVAL 10000\nFSWEIGHT 1\nFSUSERWEIGHT 100\n"
                       "USERCFG[DEFAULT] FSTARGET=50\nQUEUETIMEWEIGHT 0\n", "t.cfg")
    nodes = cluster(1)
    hog = running("hog", 1, 0, 1000, user="a")
    r = run_cycle(snapshot(0, nodes, [hog]), cfg)
    r = run_cycle(snapshot(500, nodes, [hog, job("a2", 1, 10, 400, user="a"),
                                        job("b1", 1, 10, 450, user="b")]), cfg, r.state)
    assert r.order == ["b1", "a2"]                        # b never ran: below its target
    assert r.priorities["a2"].subfactors["FSUSER"] == -50.0
    assert r.priorities["b1"].subfactors["FSUSER"] == 50.0
    assert r.priorities["b1"].clipped > r.priorities["a2"].clipped


def test_dump_is_json_and_restores_the_same_usage_even_with_another_interval():
    fs = _two_users("USERCFG[heavy] FSTARGET=50\n")
    data = json.loads(json.dumps(fs.dump()))
    again = fair("FSPOLICY DEDICATEDPS\nFSINTERVAL 10000\nUSERCFG[heavy] FSTARGET=50\n")
    again.restore(data)
    assert again.usage("user:heavy") == fs.usage("user:heavy") == 300.0
    assert again.subfactors(job("x", 1, 1, user="heavy")) == fs.subfactors(job("x", 1, 1, user="heavy"))
    coarse = fair("FSPOLICY DEDICATEDPS\nFSINTERVAL 20000\n")
    coarse.restore(data)
    assert coarse.usage(SYSTEM) == 400.0


def test_the_maui_policy_is_free_without_fair_share_and_carries_windows_across_policies():
    assert type(make_queue_policy(parse_config("", "t.cfg"))) is MauiOrder
    on = make_queue_policy(parse_config("FSPOLICY DEDICATEDPS\n", "t.cfg"))
    assert type(on) is MauiFairShare and on.name == "MAUI"
    on.fs.restore(_two_users().dump())
    armada = make_queue_policy(parse_config("FSPOLICY DEDICATEDPS\nFSINTERVAL 10000\nQUEUEPOLICY ARMADA\n"
                                            "USERCFG[heavy] FSTARGET=50\n", "t.cfg"))
    armada.restore(json.loads(json.dumps(on.dump())))
    assert armada.fs.usage(SYSTEM) == 400.0
    assert armada.subfactors(job("x", 1, 1, user="heavy")) == {"FSUSER": -25.0}   # fair share composes
