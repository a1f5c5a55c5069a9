"""Runtime prediction for planning (issue 17): the predictor and correctors, the cycle that
plans with predictions while jobs are still killed at their request, shortest-first backfill
(BFPRIORITYPOLICY), the simulator's figures and wake-ups, and the store's round trip."""

from __future__ import annotations

import json

import pytest

from maui_py.cfg import parse_config
from maui_py.cfg.errors import ConfigError
from maui_py.core.cycle import run_cycle
from maui_py.core.state import SchedulerState
from maui_py.model import ClusterSnapshot, Job, JobRequest, JobState, Node, Resources, StartKind
from maui_py.predict import CorrectionPolicy, PredictionPolicy, corrected_span, learn, predict
from maui_py.predict.correctors import STEPS
from maui_py.sim.engine import SimOptions, Simulation
from maui_py.sim.metrics import figures
from maui_py.sim.swf import SimJob
from maui_py.store.state_rows import build_state, state_rows

USERAVERAGE = "PREDICTIONPOLICY USERAVERAGE\n"
TWO = tuple(Node(f"n{i}", Resources.of(1)) for i in range(2))


def job(jid, user, procs, request, submit=0, **kw):
    return Job(jid, user, JobRequest(procs), request, submit, **kw)


def running(jid, user, node, request, start):
    return Job(jid, user, JobRequest(1), request, start, state=JobState.RUNNING, start_time=start,
               allocation=((node, Resources.of(1)),))


# ------------------------------------------------------------------ predictor
def test_the_prediction_is_the_floored_mean_of_the_last_runtimes_capped_by_the_request():
    history = {}
    assert predict(PredictionPolicy.USERAVERAGE, history, "u", 100, 2).estimate == 100
    learn(history, "u", 7, 100, 2)
    one = predict(PredictionPolicy.USERAVERAGE, history, "u", 100, 2)
    assert one.estimate == 100 and "1 of 2" in one.source        # fewer than two: the request
    learn(history, "u", 10, 100, 2)
    assert predict(PredictionPolicy.USERAVERAGE, history, "u", 100, 2).estimate == 8   # (7+10)//2
    learn(history, "u", 30, 100, 2)
    assert history["u"] == ((10, 100), (30, 100))                 # only the last two are kept
    assert predict(PredictionPolicy.USERAVERAGE, history, "u", 15, 2).estimate == 15    # capped
    assert predict(PredictionPolicy.USERAVERAGE, history, "v", 50, 2).estimate == 50    # another user
    assert predict(PredictionPolicy.NONE, history, "u", 100, 2).estimate == 100


@pytest.mark.parametrize("policy, elapsed, want", [
    (CorrectionPolicy.REQUEST, 5, 10),           # not run out yet: the prediction
    (CorrectionPolicy.REQUEST, 10, 5000),        # run out: the request
    (CorrectionPolicy.INCREMENT, 10, 60),        # the first step past the time run
    (CorrectionPolicy.INCREMENT, 60, 300),
    (CorrectionPolicy.INCREMENT, 4000, 5000),    # capped by the request
    (CorrectionPolicy.DOUBLE, 10, 20),
    (CorrectionPolicy.DOUBLE, 35, 40),
    (CorrectionPolicy.DOUBLE, 4999, 5000),
])
def test_a_job_that_outlives_its_prediction_is_given_a_later_end(policy, elapsed, want):
    assert corrected_span(policy, 10, 5000, elapsed) == want
    assert corrected_span(policy, 10, 5000, elapsed) > min(elapsed, 4999)


def test_increments_are_increasing():
    assert list(STEPS) == sorted(set(STEPS))


def test_unknown_prediction_policy_is_a_config_error():
    with pytest.raises(ConfigError, match="PREDICTIONPOLICY"):
        parse_config("PREDICTIONPOLICY ORACLE\n")


# ------------------------------------------------------------------ the cycle
def easy(extra=""):
    return parse_config("RESERVATIONDEPTH 1\nBACKFILLPOLICY FIRSTFIT\n" + extra)


def test_planning_uses_the_prediction_and_a_correction_moves_the_reservation():
    """A runs (request 100, predicted 10 from alice's history); B needs both nodes; C (30 s)
    could backfill only if B's reservation were at 100, A's request."""
    jobs = (running("A", "alice", "n0", 100, 0), job("B", "bob", 2, 50, 1), job("C", "carol", 1, 30, 2))
    plain = run_cycle(ClusterSnapshot(5, TWO, jobs), easy())
    assert [(r.job_id, r.start) for r in plain.reservations()] == [("B", 100)]
    assert [s.job_id for s in plain.starts()] == ["C"]

    state = SchedulerState(history={"alice": ((10, 100), (10, 100))})
    cfg = easy(USERAVERAGE)
    first = run_cycle(ClusterSnapshot(5, TWO, jobs), cfg, state)
    assert [(r.job_id, r.start) for r in first.reservations()] == [("B", 10)]
    assert first.starts() == []                       # C would delay B's planned start
    assert first.state.predictions["A"].estimate == 10
    # at 10 A still runs: its plan is corrected to its request, B's reservation follows
    again = run_cycle(ClusterSnapshot(10, TWO, jobs), cfg, first.state)
    assert [(r.job_id, r.start) for r in again.reservations()] == [("B", 100)]
    assert [s.job_id for s in again.starts()] == ["C"]


def test_a_job_that_ends_teaches_its_users_history():
    cfg = easy(USERAVERAGE + "PREDICTIONHISTORY 1\n")
    state = run_cycle(ClusterSnapshot(0, TWO, (job("A", "alice", 1, 100),)), cfg).state
    assert state.predictions["A"].estimate == 100
    started = (running("A", "alice", "n0", 100, 0),)
    state = run_cycle(ClusterSnapshot(5, TWO, started), cfg, state).state
    # D is submitted as A ends: predicted without A, as the published simulator orders them
    state = run_cycle(ClusterSnapshot(40, TWO, (job("D", "alice", 1, 100, 40),)), cfg, state).state
    assert state.history == {"alice": ((40, 100),)}
    assert "A" not in state.predictions
    assert state.predictions["D"].estimate == 100
    state = run_cycle(ClusterSnapshot(41, TWO, (job("D", "alice", 1, 100, 40),
                                                job("E", "alice", 1, 100, 41))), cfg, state).state
    assert state.predictions["E"].estimate == 40


def test_per_qos_prediction_overrides_the_global_policy():
    cfg = easy("PREDICTIONPOLICY NONE\nQOSCFG[fast] PREDICTION=USERAVERAGE\n")
    state = SchedulerState(history={"alice": ((10, 100), (10, 100))})
    got = run_cycle(ClusterSnapshot(0, TWO, (job("A", "alice", 1, 100, qos="fast"),
                                             job("B", "alice", 1, 100))), cfg, state).state
    assert got.predictions["A"].estimate == 10 and got.predictions["B"].estimate == 100


# ------------------------------------------------------------------ backfill order
def backfill_starts(extra, history=None):
    jobs = (running("R", "x", "n0", 100, 0), job("B", "bob", 2, 50, 1),
            job("C1", "u1", 1, 80, 2), job("C2", "u2", 1, 20, 3))
    res = run_cycle(ClusterSnapshot(5, TWO, jobs), easy(extra), SchedulerState(history=history or {}))
    return [(s.job_id, s.kind) for s in res.starts()]


def test_backfill_in_priority_order_by_default_and_shortest_first_with_duration():
    assert backfill_starts("") == [("C1", StartKind.BACKFILL)]
    assert backfill_starts("BFPRIORITYPOLICY DURATION\n") == [("C2", StartKind.BACKFILL)]


def test_hwduration_weighs_the_request_by_the_users_past_accuracy():
    # u1 used a tenth of its requests: 80 x 0.1 = 8 ranks before u2's 20 x 1.0
    history = {"u1": ((10, 100), (10, 100)), "u2": ((50, 50),)}
    assert backfill_starts("BFPRIORITYPOLICY HWDURATION\n", history) == [("C1", StartKind.BACKFILL)]
    history = {"u1": ((100, 100),), "u2": ((50, 50),)}
    assert backfill_starts("BFPRIORITYPOLICY HWDURATION\n", history) == [("C2", StartKind.BACKFILL)]


# ------------------------------------------------------------------ the simulator
def test_the_simulator_kills_at_the_request_corrects_and_reports_prediction_quality():
    cfg = parse_config("RESERVATIONDEPTH 1\n" + USERAVERAGE)
    node = (Node("n0", Resources.of(1)),)
    # alice's first two jobs run 10 s: her third (request 500) is predicted 10 but runs 300
    jobs = [SimJob(job("a1", "alice", 1, 500, 0), 10), SimJob(job("a2", "alice", 1, 500, 1), 10),
            SimJob(job("a3", "alice", 1, 500, 30), 300), SimJob(job("w", "bob", 1, 100, 31), 100)]
    res = Simulation(node, jobs, cfg, SimOptions(check_table=True)).run()
    assert res.check.ok
    r = res.records
    assert (r["a1"].estimate, r["a2"].estimate, r["a3"].estimate) == (500, 500, 10)
    assert r["a3"].end - r["a3"].start == 300 and not r["a3"].killed
    assert r["a3"].corrections == 1
    assert r["w"].start == r["a3"].end
    f = figures(r.values(), 1)
    assert f.predicted == 4 and f.corrections == 1
    assert f.pred_under == 0.25 and f.pred_over == 0.5           # w ran exactly its request
    assert f.pred_mae == ((490 + 490 + 290 + 0) / 4)


def test_a_job_ending_at_the_next_event_is_learned():
    """Regression: a job whose end is the first event after its start is never seen running
    by a snapshot; its runtime must still reach the history."""
    cfg = parse_config(USERAVERAGE + "PREDICTIONHISTORY 1\n")
    node = (Node("n0", Resources.of(1)),)
    jobs = [SimJob(job("a1", "alice", 1, 500, 0), 7), SimJob(job("a2", "alice", 1, 500, 100), 7)]
    res = Simulation(node, jobs, cfg, SimOptions()).run()
    assert res.records["a2"].estimate == 7


def test_without_prediction_nothing_is_predicted_or_woken():
    node = (Node("n0", Resources.of(1)),)
    jobs = [SimJob(job(f"j{k}", "alice", 1, 500, k), 10) for k in range(4)]
    res = Simulation(node, jobs, parse_config(""), SimOptions()).run()
    assert all(r.estimate is None and r.corrections == 0 for r in res.records.values())
    assert res.state.predictions == {} and res.state.history == {}


# ------------------------------------------------------------------ the store
def test_predictions_and_history_survive_the_store():
    cfg = easy(USERAVERAGE)
    state = SchedulerState(history={"alice": ((10, 100), (12, 100))})
    state = run_cycle(ClusterSnapshot(0, TWO, (job("A", "alice", 1, 100),)), cfg, state).state
    rows = state_rows(state)
    back = build_state({j: json.loads(t) for j, t in rows.jobs.items()}, {},
                       {k: json.loads(v) for k, v in rows.kv.items()})
    assert back.history == state.history
    assert back.predictions == state.predictions
    assert back.predictions["A"].estimate == 11


# ------------------------------------------------------------------ the commands
def test_checkjob_and_showstart_show_the_prediction(tmp_path, capsys):
    from maui_py.cli.main import maui_sim_main, run_single
    cfg = tmp_path / "p.cfg"
    cfg.write_text("RESERVATIONDEPTH 1\n" + USERAVERAGE + "PREDICTIONHISTORY 1\n")
    db = tmp_path / "sim.db"
    assert maui_sim_main(["--synthetic", "300", "-q", "-c", str(cfg), "--store", str(db),
                          "--store-at", "30000"]) == 0
    capsys.readouterr()
    assert run_single("showq", ["--store", str(db), "--json"]) == 0
    q = json.loads(capsys.readouterr().out)["data"]
    jobs = [j["id"] for j in q["active"] + q["idle"]]
    assert jobs
    learned = 0
    for jid in jobs:
        assert run_single("checkjob", [jid, "--store", str(db), "--json"]) == 0
        d = json.loads(capsys.readouterr().out)["data"]
        p = d["prediction"]
        assert p is not None and 1 <= p["estimate"] <= d["wclimit"]
        learned += p["source"].startswith("mean of")
        assert run_single("checkjob", [jid, "--store", str(db)]) == 0
        text = capsys.readouterr().out
        assert "Predicted: " in text and p["source"] in text
    assert learned, "no job was predicted from a user's history"
    idle = [j["id"] for j in q["idle"]]
    assert idle, "the replay moment has no queued job"
    assert run_single("showstart", [idle[0], "--store", str(db), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)["data"]
    assert run_single("checkjob", [idle[0], "--store", str(db), "--json"]) == 0
    p = json.loads(capsys.readouterr().out)["data"]["prediction"]
    assert s["end"] - s["start"] == p["estimate"]


def test_a_restarted_daemon_predicts_from_the_stored_history(tmp_path):
    """What mauid saves each cycle and loads at start: the history and the predictions."""
    from maui_py.store import Store
    from maui_py.store.journal import capture, cycle_entries
    cfg = easy(USERAVERAGE + "PREDICTIONHISTORY 1\n")
    store = Store.open(tmp_path / "s.db")

    def cycle(state, now, jobs):
        snap = ClusterSnapshot(now, TWO, tuple(jobs))
        before = capture(state)
        result = run_cycle(snap, cfg, state)
        store.save_cycle(result, snap, journal=cycle_entries(before, result, snap))
        return result.state
    state = cycle(SchedulerState(), 0, [job("A", "alice", 1, 100)])
    state = cycle(state, 1, [running("A", "alice", "n0", 100, 0)])
    state = cycle(state, 31, [job("B", "alice", 1, 100, 31)])       # A ended after 31 s
    store.close()
    again = Store.open(tmp_path / "s.db").load_state()
    assert again.history == {"alice": ((31, 100),)}
    assert again.predictions["B"].estimate == 100                   # submitted as A ended
    after = run_cycle(ClusterSnapshot(40, TWO, (job("B", "alice", 1, 100, 31), job("C", "alice", 1, 100, 40))),
                      cfg, again)
    assert after.state.predictions["C"].estimate == 31
    assert after.state.predictions["B"].estimate == 100
