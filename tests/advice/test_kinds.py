"""One test per kind of advice, each on a small cluster whose answer is worked out by hand
in the test (nodes of one processor unless said, jobs running to their limits, default priorities:
the earlier submission ranks first)."""

from dataclasses import replace

from maui_py.advice import Situation, advise, start_of
from maui_py.forecast.engine import Moment
from maui_py.model import HoldType, Job, JobRequest

from .situations import NOW, queued, running, situation


def _by(advised, change):
    got = [a for a in advised.advice if a.change == change]
    assert len(got) <= 1
    return got[0] if got else None


def _waits(advised):
    return {a.value: a for a in advised.advice if a.change == "waits"}


def test_walltime_that_fits_before_the_top_jobs_reservation_starts_now():
    # node1-2 busy until NOW+2000, node3 until NOW+1000, node4 free. A (4 procs) is
    # reserved at NOW+2000 on every node, so B (1 proc) may use node4 for 2000 s only.
    s = situation("4x1", [running("r1", ["node1", "node2"], NOW - 1000, 3000),
                          running("r2", ["node3"], NOW - 500, 1500),
                          queued("A", 4, 3600, NOW - 200), queued("B", 1, 7200, NOW - 100)])
    got = advise(s, "B")
    w = _by(got, "walltime")
    assert (w.value, w.start) == (2000, NOW)
    assert "with <= 00:33:20 walltime the job starts now" in w.reason
    assert "behind the reservation of job A" in _waits(got)["reservation"].reason
    assert _by(got, "procs") is None                    # one processor: nothing to lower


def test_walltime_that_fits_a_later_gap_starts_sooner():
    # node1-3 free at NOW+1000, node4 at NOW+5000; A (4 procs, top) is reserved at
    # NOW+5000 and B (3 procs, 10000 s) after it, at NOW+8600. From NOW+1000 three nodes
    # stay free until A's reservation: B with <= 4000 s starts at NOW+1000.
    s = situation("4x1", [running("r1", ["node1", "node2", "node3"], NOW - 1000, 2000),
                          running("r2", ["node4"], NOW - 1000, 6000),
                          queued("A", 4, 3600, NOW - 200), queued("B", 3, 10000, NOW - 100)])
    got = advise(s, "B")
    assert got.planned == NOW + 8600
    w = _by(got, "walltime")
    assert (w.value, w.start) == (4000, NOW + 1000)
    assert "starts in 00:16:40" in w.reason and "2:06:40 sooner" in w.reason     # 7600 s


def test_fewer_procs_start_now_on_what_is_free():
    # Three of five nodes are free; A asks for 4: with 3 it starts now.
    s = situation("5x1", [running("r1", ["node1", "node2"], NOW - 100, 5000),
                          queued("A", 4, 3600, NOW - 200)])
    got = advise(s, "A")
    p = _by(got, "procs")
    assert (p.value, p.start) == (3, NOW) and "with 3 procs (of 4)" in p.reason
    assert "needs 4 procs, 3 free now" in _waits(got)["resources"].reason
    assert _by(got, "walltime") is None                 # no walltime makes 3 nodes 4


def test_fewer_nodes_for_a_job_asking_whole_nodes_by_count():
    # Nodes of 2 processors; the job asks for 3 nodes x 2 tasks, two nodes are free.
    whole = Job("A", "u0", JobRequest(6, nodes=3, tasks_per_node=2), 3600, NOW - 200)
    s = situation("4x2", [running("r1", ["node1"], NOW - 100, 5000, procs=2),
                          running("r2", ["node2"], NOW - 100, 5000, procs=2), whole])
    got = advise(s, "A")
    n = _by(got, "nodes")
    assert (n.value, n.start) == (2, NOW)


def test_a_user_limit_says_how_much_is_in_use_and_fewer_procs_fit_under_it():
    cfg = "USERCFG[u0] MAXPROC=3\n"
    s = situation("6x1", [running("r1", ["node1", "node2"], NOW - 100, 5000),
                          queued("A", 2, 3600, NOW - 200)], cfg)
    got = advise(s, "A")
    assert _waits(got)["limit"].reason == "user limit MAXPROC 3 reached: 2 in use (user u0)"
    p = _by(got, "procs")
    assert (p.value, p.start) == (1, NOW)


def test_a_held_job_is_told_so_and_offered_no_change():
    s = situation("4x1", [queued("A", 1, 3600, NOW - 200, holds=frozenset({HoldType.USER}))])
    got = advise(s, "A")
    assert list(_waits(got)) == ["hold"] and "held: job has hold in place (User)" in got.advice[0].reason
    assert len(got.advice) == 1


def test_another_qos_the_user_may_use():
    # QOS lo allows one processor at a time; the user may also use QOS hi, without limit.
    cfg = "QOSCFG[lo] MAXPROC=1\nUSERCFG[u0] QLIST=lo,hi QDEF=lo\n"
    s = situation("4x1", [running("r1", ["node1"], NOW - 100, 5000, qos="lo"),
                          queued("A", 2, 3600, NOW - 200, qos="lo")], cfg)
    got = advise(s, "A")
    q = _by(got, "qos")
    assert (q.value, q.start) == ("hi", NOW) and q.reason.startswith("under QOS hi the job starts now")
    assert "QOS limit MAXPROC 1 reached: 1 in use (qos lo)" == _waits(got)["limit"].reason


def test_a_qos_not_listed_for_the_user_is_never_offered():
    cfg = "QOSCFG[lo] MAXPROC=1\nUSERCFG[u1] QLIST=hi\n"
    s = situation("4x1", [running("r1", ["node1"], NOW - 100, 5000, qos="lo"),
                          queued("A", 2, 3600, NOW - 200, qos="lo")], cfg)
    assert _by(advise(s, "A"), "qos") is None


def test_another_class_in_the_users_plist():
    # The job's class batch has two nodes, both busy; class short has two free ones.
    cfg = "USERCFG[u0] PLIST=batch,short\n"
    s = situation("2x1:partition=batch+2x1:partition=short",
                  [running("r1", ["node1", "node2"], NOW - 100, 5000, class_="batch"),
                   queued("A", 2, 3600, NOW - 200, class_="batch")], cfg)
    got = advise(s, "A")
    c = _by(got, "class")
    assert (c.value, c.start) == ("short", NOW)


def test_a_job_that_starts_as_it_is_needs_no_advice():
    # The cycle at NOW left A waiting (node1 busy); in a moment where r1 has gone, the
    # replay's first cycle starts A as it is: nothing to advise.
    s = situation("1x1", [running("r1", ["node1"], NOW - 100, 5000), queued("A", 1, 60, NOW - 10)])
    gone = Situation(Moment(NOW, s.moment.nodes, tuple(j for j in s.moment.jobs if j.id != "r1")),
                     s.cfg, s.state)
    got = advise(gone, "A")
    assert got.starts_now and got.advice == [] and got.replays == 1
    assert not advise(s, "A").starts_now


def test_a_running_job_past_its_limit_ends_a_second_after_now():
    # At NOW, r1 (node1) should have ended at NOW-100 and still runs; A (2 procs) waits
    # for it. Taken to end at NOW+1, it leaves A a start at NOW+1 as it is, and with 1
    # proc A starts now on node2; no replay runs a cycle before the moment.
    s = situation("2x1", [running("r1", ["node1"], NOW - 1000, 5000), queued("A", 2, 600, NOW - 50)])
    late = tuple(replace(j, wallclock=900) if j.id == "r1" else j for j in s.moment.jobs)
    s = Situation(Moment(NOW, s.moment.nodes, late), s.cfg, s.state)
    got = advise(s, "A")
    p = _by(got, "procs")
    assert (p.value, p.start) == (1, NOW)
    assert start_of(s, next(j for j in late if j.id == "A"), NOW + 10).start == NOW + 1


def test_a_job_deferred_over_the_per_job_limit_fits_it_when_its_defer_ends():
    # SYSTEMMAXPROCPERJOB 2: A (3 procs) is deferred for DEFERTIME (1:00:00) although four
    # nodes are free; with 2 procs it starts when the defer ends, at NOW+1:00:00.
    s = situation("4x1", [queued("A", 3, 600, NOW - 50)], "SYSTEMMAXPROCPERJOB 2\n")
    got = advise(s, "A")
    assert "exceeds system proc/job limit (3 > 2)" in _waits(got)["deferred"].reason
    p = _by(got, "procs")
    assert (p.value, p.start) == (2, NOW + 3600) and "starts in 1:00:00" in p.reason
    assert _by(got, "walltime") is None                 # no walltime makes 3 procs 2


def test_a_job_that_never_starts_costs_at_most_max_cycles_a_replay(monkeypatch):
    # A asks for a feature no node has: no change of walltime or size starts it. With
    # MAX_CYCLES 3, every replay stops after three cycles and no claim rests on one cut.
    from maui_py.advice import replay
    monkeypatch.setattr(replay, "MAX_CYCLES", 3)
    jobs = [running(f"r{k}", [f"node{k}"], NOW - 100, 1000 + 100 * k) for k in range(1, 4)]
    jobs.append(Job("A", "u0", JobRequest(2, features=frozenset({"gpu"})), 600, NOW - 50))
    s = situation("4x1", jobs)
    got = advise(s, "A")
    assert all(a.change == "waits" for a in got.advice)
    assert got.cycles <= 3 * got.replays
