"""QUEUEPOLICY FBSNG: queue and section priorities, gaps, shifting (seed 001, spec §6.2)."""

import json

from maui_py.cfg import parse_config
from maui_py.core.cycle import run_cycle
from maui_py.priority.fbsng import FbsngPolicy, Round
from maui_py.priority.policy import PolicyView
from maui_py.priority.queues import make_queue_policy
from tests.scenarios.build import cluster, job, snapshot


def policy(text: str = "") -> FbsngPolicy:
    p = make_queue_policy(parse_config("QUEUEPOLICY FBSNG\n" + text, "t.cfg"))
    assert isinstance(p, FbsngPolicy)
    return p


def view(free: int):
    return PolicyView(0, [], {"procs": free}, {"procs": 100}, None)


def jobs(queue, *sizes, t0=0):
    return [job(f"{queue}{i}", s, 100, t0 + i, class_=queue) for i, s in enumerate(sizes)]


def test_configured_queues_start_at_qpmin():
    p = policy("QUEUECFG[hi] QPMIN=5\nQUEUECFG[lo] QPD=2\n")
    assert p.qp == {"hi": 5.0, "lo": 0.0}


def test_a_start_lowers_its_queue_and_shifts_all_when_a_bound_would_be_crossed():
    p = policy("QUEUECFG[a] QPD=3\nQUEUECFG[b] QPD=7 QPI=1\nQUEUECFG[c] QPMAX=4\n")
    r = Round({"a": 0.0, "b": 0.0, "c": 0.0}, {}, {"a": jobs("a", 1), "b": jobs("b", 1), "c": []})
    p.start(r, "a", 0)
    # a -3 (below QPMIN 0: everybody +3), b +1 (it has ready sections), c has none
    assert r.qp == {"a": 0.0, "b": 4.0, "c": 3.0}
    r.lists["a"] = jobs("a", 1)
    p.start(r, "b", 0)
    assert r.qp == {"a": 3.0, "b": 0.0, "c": 4.0}     # b 4-7=-3: +3 each; c clamped at 4


def test_sections_ahead_of_the_started_one_gain_up_to_spmax():
    p = policy("QUEUECFG[q] SPMAX=2\n")
    lst = jobs("q", 8, 8, 1, 1)
    r = Round({"q": 0.0}, {"q0": 2}, {"q": lst})
    p.start(r, "q", 2)
    assert r.sp == {"q0": 2, "q1": 1}
    assert [j.id for j in r.lists["q"]] == ["q0", "q1", "q3"]


def test_queue_threshold_holds_the_lower_queues_even_with_free_resources():
    p = policy("QUEUECFG[hi] QPMIN=5 QPG=7\n")
    p.qp = {"hi": 20.0, "bg": 10.0}
    arr = p.arrange(jobs("hi", 50) + jobs("bg", 1, 1), view(10))
    assert [j.id for j in arr.order] == ["hi0"]         # hi does not fit; bg is 10 below 20-7
    assert set(arr.held) == {"bg0", "bg1"} and "below the threshold 13" in arr.held["bg0"]
    p.qp = {"hi": 16.0, "bg": 10.0}
    arr = p.arrange(jobs("hi", 50) + jobs("bg", 1, 1), view(10))
    assert [j.id for j in arr.order] == ["bg0", "bg1", "hi0"] and arr.held == {}


def test_section_threshold_holds_small_sections_behind_a_passed_big_one():
    p = policy("QUEUECFG[q] SPG=2\n")
    p.sp = {"q0": 3}
    arr = p.arrange(jobs("q", 8, 1, 1), view(4))
    assert [j.id for j in arr.order] == ["q0"] and set(arr.held) == {"q1", "q2"}
    p.sp = {"q0": 2}
    arr = p.arrange(jobs("q", 8, 1, 1), view(4))        # q1 starts and passes q0: SP 3, q2 held
    assert [j.id for j in arr.order] == ["q1", "q0"] and set(arr.held) == {"q2"}


def test_one_start_at_a_time_alternates_queues_by_qpd():
    p = policy("QUEUECFG[a] QPD=3\nQUEUECFG[b] QPD=7\n")
    arr = p.arrange(jobs("a", *[1] * 10) + jobs("b", *[1] * 10, t0=100), view(10))
    picked = "".join(j.id[0] for j in arr.order[:10])
    assert picked == "abaabaabaa"                       # 7 : 3 (ties: the older queue)
    assert p.qp == {"a": 0.0, "b": 0.0}                 # arrange plays on copies


def test_observe_applies_the_real_starts():
    p = policy("QUEUECFG[a] QPD=3\n")
    order = jobs("q", 8, 1) + jobs("a", 1)
    p.arrange(order, view(1))
    p.observe([order[1]], view(1))                      # q1 started and passed q0
    assert p.sp == {"q0": 1} and p.qp == {"q": 0.0, "a": 1.0}
    again = policy("QUEUECFG[a] QPD=3\n")
    again.restore(json.loads(json.dumps(p.dump())))
    assert again.sp == p.sp and again.qp == p.qp


def test_in_the_cycle_held_queues_leave_processors_idle():
    cfg = parse_config("QUEUEPOLICY FBSNG\nRESERVATIONDEPTH 0\nQUEUECFG[hi] QPMIN=50 QPG=7\n", "t.cfg")
    nodes = cluster(4)
    busy = job("busy", 1, 1000, 0, class_="bg", start=0, nodes=("n0",))
    r = run_cycle(snapshot(0, nodes, [busy] + jobs("hi", 4) + jobs("bg", 1, 1)), cfg)
    assert r.starts() == []                             # 3 processors idle
    assert "held this cycle by QUEUEPOLICY FBSNG" in r.reports["bg0"].reason
