"""Slurm output -> maui-py model, on output recorded from Slurm 22.05 on this project's
machines (data/slurm/SOURCES.md) and on damaged copies of it."""

from __future__ import annotations

import json
import warnings
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maui_py.adapters.slurm import hostlist
from maui_py.adapters.slurm.jobs import Pin
from maui_py.adapters.slurm.parse import (
    parse_job_ids, parse_scontrol_jobs, parse_scontrol_nodes, parse_scontrol_reservations,
    parse_sinfo_json, parse_squeue_json,
)
from maui_py.adapters.slurm.records import JOB_KEYS, NODE_KEYS, RecordError, parse_line
from maui_py.adapters.slurm.values import (
    UNLIMITED_WALLCLOCK, gres, mem_mb, node_state, time_limit_seconds, tres_gres,
)
from maui_py.model import HoldType, JobState, NodeState, Resources
from maui_py.rm import RecordWarning

DATA = Path(__file__).parent / "data" / "slurm"


def sample(name: str) -> str:
    return (DATA / name).read_text()


def by_id(jobs) -> dict:
    return {j.id: j for j in jobs}


def nodes_by_name(nodes) -> dict:
    return {n.name: n for n in nodes}


# ------------------------------------------------------------------ nodes
def test_sinfo_json_nodes_resources_features_partitions_gres_load():
    nodes = nodes_by_name(parse_sinfo_json(sample("sinfo-holdmode.json")))
    assert sorted(nodes) == ["node1", "node2", "node3", "node4"]
    assert nodes["node4"].resources == Resources.of(8, 8000, gpu=2)
    assert nodes["node1"].resources == Resources.of(8, 8000)
    assert nodes["node1"].features == {"fast"} and nodes["node3"].features == {"slow"}
    assert nodes["node1"].partitions == {"batch", "debug"} and nodes["node4"].partitions == {"batch"}
    assert [nodes[n].state for n in sorted(nodes)] == [
        NodeState.BUSY, NodeState.IDLE, NodeState.IDLE, NodeState.RUNNING]
    assert nodes["node4"].load == pytest.approx(2.03)


def test_drained_node_from_live_sample_in_both_forms():
    for nodes in (parse_sinfo_json(sample("sinfo-live.json")),
                  parse_scontrol_nodes(sample("scontrol-show-node-o-live.txt"))):
        assert nodes_by_name(nodes)["node3"].state is NodeState.DRAINED


@pytest.mark.parametrize("pair", [("sinfo-holdmode.json", "scontrol-show-node-o-holdmode.txt"),
                                  ("sinfo-live.json", "scontrol-show-node-o-live.txt")])
def test_scontrol_node_fallback_agrees_with_json(pair):
    assert parse_scontrol_nodes(sample(pair[1])) == parse_sinfo_json(sample(pair[0]))


@pytest.mark.parametrize("state, flags, expected", [
    ("idle", [], NodeState.IDLE), ("mixed", [], NodeState.RUNNING),
    ("allocated", [], NodeState.BUSY), ("idle", ["DRAIN"], NodeState.DRAINED),
    ("mixed", ["DRAIN"], NodeState.DRAINING), ("IDLE+DRAIN", [], NodeState.DRAINED),
    ("ALLOCATED+DRAIN", [], NodeState.DRAINING), ("down", [], NodeState.DOWN),
    ("DOWN*+DRAIN", [], NodeState.DOWN), ("IDLE*", [], NodeState.UNKNOWN),
    ("idle", ["NOT_RESPONDING"], NodeState.UNKNOWN), ("IDLE~", [], NodeState.DOWN),
    ("MIXED*", [], NodeState.UNKNOWN), ("IDLE*+DRAIN", [], NodeState.DRAINED),
    ("unknown*", [], NodeState.UNKNOWN), ("down", ["NOT_RESPONDING"], NodeState.DOWN),
    ("MIXED+FAIL", [], NodeState.DRAINING), ("future", [], NodeState.DOWN),
    ("unknown", [], NodeState.UNKNOWN), ("strange", [], NodeState.UNKNOWN),
    ("ALLOCATED+COMPLETING", [], NodeState.BUSY),
])
def test_node_state_mapping(state, flags, expected):
    assert node_state(state, flags) is expected


# ------------------------------------------------------------------ jobs: hold-all mode
def test_holdmode_gate_is_not_a_hold_and_bad_constraints_is_reported():
    got = parse_squeue_json(sample("squeue-holdmode.json"), hold_all=True)
    jobs = by_id(got.jobs)
    gated = jobs["11"]
    assert gated.state is JobState.IDLE and not gated.holds
    assert got.reasons["11"] == "JobHeldUser"
    assert jobs["12"].state is JobState.IDLE and got.bad_constraints == {"12"}
    assert got.reasons["12"] == "BadConstraints"
    assert {jobs[i].state for i in ("3", "4", "7")} == {JobState.REMOVED}


def test_running_job_allocation_from_job_resources():
    jobs = by_id(parse_squeue_json(sample("squeue-holdmode.json")).jobs)
    assert jobs["8"].state is JobState.RUNNING and jobs["8"].start_time == 1795277999
    assert jobs["8"].allocation == (("node1", Resources.of(4, 400)),)
    assert jobs["13"].allocation == (("node4", Resources.of(1, 100, gpu=1)),)
    two = by_id(parse_squeue_json(sample("squeue.json"), hold_all=False).jobs)["2"]
    assert two.allocation == (("node1", Resources.of(4, 1000)), ("node2", Resources.of(2, 1000)))


def test_active_drops_finished_jobs_squeue_still_lists():
    got = parse_squeue_json(sample("squeue-holdmode.json")).active()
    assert sorted(j.id for j in got.jobs) == ["10", "11", "12", "13", "14", "8", "9"]
    assert got.bad_constraints == {"12"}


def test_user_hold_and_begin_time_outside_hold_all_mode():
    jobs = by_id(parse_squeue_json(sample("squeue.json"), hold_all=False).jobs)
    assert jobs["5"].holds == {HoldType.USER}
    assert jobs["7"].depends_satisfied is False          # Reason=BeginTime
    assert jobs["6"].request.nodes == 4 and jobs["6"].request.procs == 32
    assert jobs["3"].request.per_task == Resources.of(1, 500)   # --mem-per-cpu=500


def test_live_sample_fields():
    got = parse_squeue_json(sample("squeue-live.json"))
    jobs = by_id(got.jobs)
    assert sorted(i for i in jobs if i.startswith("1_")) == ["1_0", "1_1", "1_2", "1_3"]
    assert jobs["1_1"].state is JobState.RUNNING and jobs["1_1"].nodes == ("node1",)
    assert got.slurm_ids["1_1"] == 12 and got.slurm_ids["1_0"] == 1
    # pinned by the push, but the user asked for no nodes: AdminComment keeps that
    assert jobs["1_1"].request.hostlist == () and jobs["11"].request.hostlist == ()
    assert jobs["2"].request.exclusive and jobs["2"].wallclock == 93780   # 1-02:03:00
    assert jobs["3"].wallclock == UNLIMITED_WALLCLOCK
    fixed2 = jobs["3"].request                    # -N 2 --ntasks-per-node=3 -c 2 --mem=500
    assert (fixed2.tasks, fixed2.nodes, fixed2.tasks_per_node) == (6, 2, 3)
    assert fixed2.per_task == Resources.of(2, 167)
    assert jobs["4"].request.per_task == Resources.of(1, 100, gpu=1)    # --gpus-per-task=1
    assert jobs["5"].depends_satisfied is False                            # afterok unfulfilled
    assert jobs["6"].request.hostlist == ("node3",) and jobs["6"].request.nodes == 1
    assert jobs["7"].request.features == frozenset()                       # fast|slow: Slurm's
    assert jobs["10"].holds == {HoldType.SYSTEM}                           # scontrol hold
    assert jobs["8"].name == "evil\nJobId=99 JobName=x"
    assert jobs["9"].name == "lr=0.1 sweep UserId=x"
    assert all(j.user == "root" and j.class_ == "batch" for j in got.jobs)


def test_gpu_per_node_job_is_one_node_sized_task():
    gpu = by_id(parse_squeue_json(sample("squeue.json"), hold_all=False).jobs)["4"].request
    assert (gpu.tasks, gpu.nodes, gpu.tasks_per_node) == (1, 1, 1)
    assert gpu.per_task == Resources.of(1, 100, gpu=1)
    two = by_id(parse_squeue_json(sample("squeue-holdmode.json")).jobs)["12"].request
    assert (two.tasks, two.nodes, two.per_task) == (2, 2, Resources.of(6, 1000))
    assert two.features == {"fast"}


def _edited(name: str, job_id: int, **changes) -> str:
    doc = json.loads(sample(name))
    for j in doc["jobs"]:
        if j["job_id"] == job_id:
            j.update(changes)
    return json.dumps(doc)


def test_released_pending_job_is_starting_on_its_pinned_nodes():
    text = _edited("squeue-holdmode.json", 10, priority=4294901750, state_reason="None")
    job = by_id(parse_squeue_json(text).jobs)["10"]
    assert job.state is JobState.STARTING
    assert job.allocation == (("node3", Resources.of(4, 400)),)
    idle = by_id(parse_squeue_json(text, hold_all=False).jobs)["10"]
    assert idle.state is JobState.IDLE and idle.allocation == ()


def test_pin_memory_restores_the_users_request_when_admin_comment_is_absent():
    text = sample("squeue-holdmode.json")      # recorded before the lua kept AdminComment
    plain = by_id(parse_squeue_json(text).jobs)["12"].request
    assert plain.hostlist == ("node2", "node3") and plain.nodes == 2
    pins = {"12": Pin(frozenset({"node2", "node3"}), (), 0)}     # the user fixed nothing
    restored = by_id(parse_squeue_json(text, pins=pins).jobs)["12"].request
    assert restored.hostlist == () and (restored.tasks, restored.nodes) == (1, 1)
    assert restored.per_task == Resources.of(12, 1000)             # one node-sized piece
    pins = {"12": Pin(frozenset({"node2", "node3"}), (), 2)}     # the user said -N 2
    assert by_id(parse_squeue_json(text, pins=pins).jobs)["12"].request.nodes == 2
    moved = {"12": Pin(frozenset({"node1"}), (), 0)}              # not what Slurm holds now
    assert by_id(parse_squeue_json(text, pins=moved).jobs)["12"].request.hostlist == ("node2", "node3")


@pytest.mark.parametrize("pair", [("squeue-holdmode.json", "scontrol-show-job-o-holdmode.txt"),
                                  ("squeue-live.json", "scontrol-show-job-o-live.txt")])
def test_scontrol_job_fallback_agrees_with_json(pair):
    from_json = by_id(parse_squeue_json(sample(pair[0])).active().jobs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RecordWarning)   # imitating names: next test
        text = parse_scontrol_jobs(sample(pair[1]), known_ids=_ids(pair))
    from_text = by_id(text.active().jobs)
    common = set(from_json) & set(from_text)
    assert len(common) >= 7
    for job_id in common:
        a, b = from_json[job_id], from_text[job_id]
        diff = [f.name for f in fields(a) if getattr(a, f.name) != getattr(b, f.name)]
        assert not diff, (job_id, diff)


def _ids(pair) -> list[int] | None:
    return parse_job_ids(sample("squeue-ids-live.txt")) if "live" in pair[1] else None


def test_scontrol_text_refuses_names_that_imitate_records():
    with pytest.warns(RecordWarning) as caught:
        got = parse_scontrol_jobs(sample("scontrol-show-job-o-live.txt"),
                                  known_ids=parse_job_ids(sample("squeue-ids-live.txt")))
    ids = by_id(got.jobs)
    assert "99" not in ids                       # the line a newline in a job name made up
    assert "8" not in ids and "9" not in ids      # the jobs whose names imitate fields
    assert "2" in ids and "11" in ids
    text = " ".join(str(w.message) for w in caught)
    assert "99" in text and "UserId appears twice" in text
    with pytest.warns(RecordWarning):
        unchecked = by_id(parse_scontrol_jobs(sample("scontrol-show-job-o-live.txt")).jobs)
    assert "99" in unchecked                      # why the adapter passes known_ids


# ------------------------------------------------------------------ malformed input
def test_malformed_json_records_are_skipped_with_a_warning_and_the_rest_kept():
    doc = json.loads(sample("squeue-holdmode.json"))
    job = {j["job_id"]: j for j in doc["jobs"]}
    job[8]["time_limit"] = "soon"
    del job[9]["job_state"]
    doc["jobs"].insert(0, "not an object")
    with pytest.warns(RecordWarning) as caught:
        got = parse_squeue_json(json.dumps(doc))
    assert sorted(j.id for j in got.jobs) == ["10", "11", "12", "13", "14", "3", "4", "7"]
    messages = [str(w.message) for w in caught]
    assert any("job_id=8" in m for m in messages) and any("job_id=9" in m for m in messages)
    assert any("not a JSON object" in m for m in messages)


def test_malformed_node_records_are_skipped():
    doc = json.loads(sample("sinfo.json"))
    del doc["nodes"][1]["cpus"]
    with pytest.warns(RecordWarning, match="name='node2'"):
        nodes = parse_sinfo_json(json.dumps(doc))
    assert [n.name for n in nodes] == ["node1", "node3", "node4"]
    text = "garbage here\n" + sample("scontrol-show-node-o.txt").replace("CPUEfctv=8", "CPUEfctv=x", 1)
    with pytest.warns(RecordWarning) as caught:
        nodes = parse_scontrol_nodes(text)
    assert [n.name for n in nodes] == ["node2", "node3", "node4"] and len(caught) == 2


def test_garbage_lines_in_scontrol_jobs_are_skipped():
    lines = sample("scontrol-show-job-o-holdmode.txt").splitlines()
    lines.insert(3, "%%% not a record")
    lines[5] = lines[5].replace("UserId=root(0) ", "")
    with pytest.warns(RecordWarning) as caught:
        got = parse_scontrol_jobs("\n".join(lines))
    assert len(caught) == 2 and len(got.jobs) == len(lines) - 2


def test_not_json_at_all_is_an_error_not_a_warning():
    with pytest.raises(ValueError, match="not JSON"):
        parse_squeue_json("squeue: error: Unable to contact slurm controller")
    with pytest.raises(ValueError, match="no 'nodes' list"):
        parse_sinfo_json('{"meta": {}}')


# ------------------------------------------------------------------ reservations
def test_our_mirrors_never_come_back_and_site_reservations_do():
    text = sample("scontrol-show-reservation-o.txt").replace("maui.r", "maui.1")
    nodes = parse_sinfo_json(sample("sinfo.json"))
    assert parse_scontrol_reservations(text, nodes) == []      # all named maui.<job id>
    site = text.replace("maui.15", "site.maint").replace("maui.14", "site.part")
    jobs = [j for j in parse_squeue_json(sample("squeue.json"), hold_all=False).jobs if j.id == "1"]
    res = {r.name: r for r in parse_scontrol_reservations(site, nodes, jobs)}
    assert sorted(res) == ["site.maint", "site.part"]
    maint = res["site.maint"]
    assert maint.hosts == ("node1", "node2", "node3", "node4") and maint.owner == "root,alice"
    assert maint.end - maint.start == 2 * 3600 and "MAINT" in maint.flags
    assert res["site.part"].allocation == (("node1", Resources(procs=4)),)   # CoreCnt=4 of 8


# ------------------------------------------------------------------ values and records
@pytest.mark.parametrize("text, expected", [
    ("gpu:2", {"gpu": 2}), ("gpu:tesla:2", {"gpu": 2}), ("gpu:tesla:2(S:0)", {"gpu": 2}),
    ("gpu:a100:1(S:0-1),gpu:v100:2(S:0,1)", {"gpu": 3}), ("gpu:2,mps:100", {"gpu": 2, "mps": 100}),
    ("gpu", {"gpu": 1}), ("(null)", {}), ("", {}), ("gpu:1(IDX:0)", {"gpu": 1}),
])
def test_gres_strings(text, expected):
    assert gres(text) == expected


def test_tres_strings_keep_only_gres():
    assert tres_gres("gres:gpu:1") == {"gpu": 1}
    assert tres_gres("gres/gpu=2,cpu:3,license/x:1") == {"gpu": 2}
    assert tres_gres("gres:gpu:tesla:2") == {"gpu": 2}


def test_times_and_memory():
    assert [time_limit_seconds(v) for v in ("00:05:00", "1-02:03:00", "5", "5:30", "2-3")] == [
        300, 93780, 300, 330, 183600]
    assert time_limit_seconds(5) == 300
    assert time_limit_seconds("UNLIMITED") is None and time_limit_seconds(None) is None
    assert (mem_mb("400M"), mem_mb("8G"), mem_mb(100), mem_mb("(null)")) == (400, 8192, 100, None)


def test_record_values_with_blanks_and_free_text():
    node = parse_line(sample("scontrol-show-node-o-live.txt").splitlines()[2], NODE_KEYS)
    assert node["OS"].startswith("Linux ") and " #1 SMP" in node["OS"]
    assert node["Reason"].startswith("maint window test [root@")
    assert node["RealMemory"] == "8000"
    job = parse_line("JobId=5 JobName=run lr=0.1 a=b UserId=bob(7) TRES=cpu=4,mem=1G", JOB_KEYS)
    assert job == {"JobId": "5", "JobName": "run lr=0.1 a=b", "UserId": "bob(7)", "TRES": "cpu=4,mem=1G"}
    with pytest.raises(RecordError):
        parse_line("JobId=5 JobName=x UserId=eve(0) UserId=bob(7)", JOB_KEYS)


# ------------------------------------------------------------------ hostlists
@pytest.mark.parametrize("expr, names", [
    ("node[1-3,5]", ["node1", "node2", "node3", "node5"]),
    ("gpu[01-04]", ["gpu01", "gpu02", "gpu03", "gpu04"]),
    ("a1,b[2-3]", ["a1", "b2", "b3"]), ("node[9-11]", ["node9", "node10", "node11"]),
    ("r[1-2]n[1-2]", ["r1n1", "r1n2", "r2n1", "r2n2"]), ("single", ["single"]),
    ("(null)", []), ("", []),
])
def test_expand(expr, names):
    assert hostlist.expand(expr) == names


@pytest.mark.parametrize("names, expr", [
    (["node1", "node2", "node3", "node5"], "node[1-3,5]"), (["gpu01", "gpu02", "gpu04"], "gpu[01-02,04]"),
    (["node2", "node1"], "node[1-2]"), (["login"], "login"), (["n9", "n10"], "n[9-10]"),
])
def test_compress(names, expr):
    assert hostlist.compress(names) == expr


@pytest.mark.parametrize("bad", ["node[1-", "node]1[", "node[a-b]", "node[3-1]"])
def test_bad_hostlists_raise(bad):
    with pytest.raises(hostlist.HostlistError):
        hostlist.expand(bad)


_host = st.builds(lambda p, n, w: p + (str(n).zfill(w) if w else str(n)),
                  st.sampled_from(["node", "gpu", "r1n", "a-", "x.y"]),
                  st.integers(0, 120), st.sampled_from([0, 0, 2, 3]))


@given(st.lists(st.one_of(_host, st.sampled_from(["login", "head"])), min_size=1, max_size=40))
def test_compress_expand_round_trip(names):
    expr = hostlist.compress(names)
    assert sorted(hostlist.expand(expr)) == sorted(set(names))
    assert hostlist.compress(hostlist.expand(expr)) == expr
