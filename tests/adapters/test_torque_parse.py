"""Torque's XML and value formats -> maui-py's model, on recorded real output and edge cases."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maui_py.adapters.torque.nodespec import (NodeGroup, NodesSpec, format_nodes_spec,
                                              job_request, parse_nodes_spec, qrun_hosts)
from maui_py.adapters.torque.parse import (TorqueParseError, node_state, parse_pbsnodes,
                                           parse_qstat)
from maui_py.adapters.torque.values import (duration_s, exec_host, node_jobs, size_mb,
                                            slot_count, status_fields)
from maui_py.model import HoldType, JobRequest, JobState, NodeState, Resources
from maui_py.rm import RecordWarning

DATA = Path(__file__).parent / "data" / "torque"


def sample(name: str) -> str:
    return (DATA / name).read_text()


def jobs_of(name: str, **kw) -> dict:
    return {t.job.id: t for t in parse_qstat(sample(name), now=5, **kw)}


# ------------------------------------------------------------------ recorded qstat -f -x
def test_running_job_from_fyrd_sample():
    t = jobs_of("torque-qstat-f-x.xml", default_wallclock=777)["665199.superserver.stanford.edu"]
    j = t.job
    assert (j.user, j.group, j.account, j.class_, j.name) == (
        "johnfox", "johnfox", "", "interactive", "int_tmux")
    assert j.state is JobState.RUNNING and j.holds == frozenset()
    assert j.request == JobRequest(tasks=1, per_task=Resources(1, 4096), nodes=1, tasks_per_node=1)
    assert j.wallclock == 777  # no walltime requested: the default given
    assert (j.submit_time, j.start_time) == (1479339279, 1479339665)
    assert j.allocation == (("node01", Resources(1, 4096)),)


def test_queued_ncpus_job_and_completed_and_array_records():
    jobs = jobs_of("torque-qstat-f-x.xml")
    q = jobs["667999.superserver.stanford.edu"].job
    assert q.state is JobState.IDLE and q.wallclock == 23 * 3600 + 59 * 60
    assert q.request == JobRequest(tasks=1, per_task=Resources(1, 32 * 1024), nodes=1)
    assert jobs["673174.superserver.stanford.edu"].job.state is JobState.COMPLETED
    parents = [i for i, t in jobs.items() if t.is_array_parent]
    assert parents == ["673175[].superserver.stanford.edu"]
    assert "673175[19].fruster.stanford.edu" in jobs and len(jobs) == 6


def test_queued_ppn_job_splits_job_memory_over_tasks():
    j = jobs_of("torque-qstat-f-x-queued.xml")["4499334.pbsserver"].job
    assert j.user == "otp-data"  # no euser: Job_Owner's user part
    assert j.request == JobRequest(tasks=4, per_task=Resources(1, 9472), nodes=1, tasks_per_node=4)
    assert j.wallclock == 5 * 3600 and j.submit_time == 1522255162


def test_completed_job_keeps_depend_and_is_not_active():
    t = jobs_of("torque-qstat-f-x-completed.xml")["4564045.pbsserver"]
    assert t.job.state is JobState.COMPLETED and t.job.allocation == ()
    assert t.depend.startswith("afterok:6059780.pbsserver@pbsserver")
    assert t.job.depends_satisfied  # no system hold: Torque is not holding it for them


def test_user_held_job():
    t = jobs_of("torque-qstat-f-x-held.xml")["15020227.testServer"]
    j = t.job
    assert j.state is JobState.IDLE and j.holds == {HoldType.USER} and t.hold_types == "u"
    assert (j.user, j.group, j.class_, j.wallclock) == ("test", "testGroup", "fast", 1200)
    assert j.request.per_task == Resources(1, 5120)


# ------------------------------------------------------------------ recorded pbsnodes -x
def test_pbsnodes_64_nodes():
    nodes = parse_pbsnodes(sample("torque-pbsnodes-x.xml"))
    assert len(nodes) == 64
    by = {n.name: n for n in nodes}
    n1 = by["n001"]
    assert n1.state is NodeState.DRAINED and n1.features == {"compute", "enc1"}
    assert n1.resources == Resources(8, 32941056 // 1024)
    assert by["n064"].state is NodeState.RUNNING  # "free" with one job slot in use
    counts = {s: sum(n.state is s for n in nodes) for s in NodeState}
    assert (counts[NodeState.IDLE], counts[NodeState.BUSY], counts[NodeState.DRAINED]) == (53, 7, 3)


def test_pbsnodes_torque4_states_load_and_draining():
    by = {n.name: n for n in parse_pbsnodes(sample("torque-pbsnodes-x-2.xml"))}
    assert by["node1"].state is NodeState.IDLE and by["node1"].features == {"testing"}
    assert by["node14"].state is NodeState.DOWN
    assert by["node150"].state is NodeState.BUSY and by["node150"].load == 12.01
    assert by["node163"].state is NodeState.DRAINING  # "offline,job-exclusive": jobs still run
    assert by["node1"].resources == Resources(12, 24660000 // 1024)


@pytest.mark.parametrize("state,jobs,expected", [
    ("free", False, NodeState.IDLE), ("free", True, NodeState.RUNNING),
    ("job-sharing", True, NodeState.RUNNING), ("job-exclusive", True, NodeState.BUSY),
    ("busy", False, NodeState.BUSY), ("offline", False, NodeState.DRAINED),
    ("offline,job-exclusive", True, NodeState.DRAINING), ("down,offline", False, NodeState.DOWN),
    ("down", True, NodeState.DOWN), ("state-unknown,down", False, NodeState.DOWN),
    ("unknown", False, NodeState.UNKNOWN), ("no-such-state", False, NodeState.UNKNOWN),
])
def test_node_states(state, jobs, expected):
    assert node_state(state, jobs) is expected


def test_node_gpus_job_ranges_and_missing_status():
    xml = ("<Data><Node><name>g1</name><state>free</state><np>16</np><properties>gpu,ib</properties>"
           "<jobs>0-3/7.srv,4/8.srv</jobs><gpus>4</gpus></Node></Data>")
    [n] = parse_pbsnodes(xml)
    assert n.resources == Resources.of(16, 0, gpu=4) and n.state is NodeState.RUNNING
    assert n.features == {"gpu", "ib"}


# ------------------------------------------------------------------ tolerance
JOB = ("<Job><Job_Id>{id}</Job_Id><Job_Owner>u@h</Job_Owner><job_state>{state}</job_state>"
       "<queue>batch</queue><qtime>100</qtime><Hold_Types>{holds}</Hold_Types>{extra}"
       "<Resource_List>{res}</Resource_List></Job>")


def job(id="1.srv", state="Q", holds="n", res="<nodes>1</nodes>", extra=""):
    return JOB.format(id=id, state=state, holds=holds, res=res, extra=extra)


def test_malformed_records_are_skipped_with_a_warning_naming_them():
    xml = "<Data>" + "".join([
        job("1.srv"), job("2.srv", res="<walltime>ab:cd</walltime>"), job("3.srv", state="Z"),
        job("4.srv", res="<nodes>2:ppn=0</nodes>"), job("5.srv", state="R"),
        "<Job><job_state>Q</job_state></Job>", job("6.srv", res="<mem>lots</mem>"), job("7.srv"),
    ]) + "</Data>"
    with pytest.warns(RecordWarning) as rec:
        jobs = parse_qstat(xml, now=0)
    assert [t.job.id for t in jobs] == ["1.srv", "7.srv"]
    text = " | ".join(str(w.message) for w in rec)
    for name in ("'2.srv'", "'3.srv'", "'4.srv'", "'5.srv'", "without Job_Id", "'6.srv'"):
        assert name in text
    assert "exec_host" in text and "job_state 'Z'" in text


def test_bad_node_is_skipped_rest_kept():
    xml = ("<Data><Node><name>a</name><np>x</np><state>free</state></Node>"
           "<Node><name>b</name><np>2</np><state>free</state></Node></Data>")
    with pytest.warns(RecordWarning, match="'a'.*bad np"):
        assert [n.name for n in parse_pbsnodes(xml)] == ["b"]


def test_one_record_that_breaks_xml_does_not_hide_the_others():
    xml = "<Data>" + job("1.srv", extra="<Job_Name>bad\x01name</Job_Name>") + job("2.srv") + "</Data>"
    with pytest.warns(RecordWarning, match="'1.srv'.*not well-formed"):
        assert [t.job.id for t in parse_qstat(xml, now=0)] == ["2.srv"]


@pytest.mark.parametrize("text", ["<Data><Job>", "qstat: cannot connect to server", "<Other/>"])
def test_output_that_is_not_torque_xml_raises(text):
    with pytest.raises(TorqueParseError):
        parse_qstat(text, now=0)


def test_empty_output_means_no_jobs():
    assert parse_qstat("", now=0) == [] and parse_pbsnodes("\n") == []


# ------------------------------------------------------------------ states and holds
@pytest.mark.parametrize("state,holds,depend,want_state,want_holds,deps_ok", [
    ("H", "u", "", JobState.IDLE, {HoldType.USER}, True),
    ("H", "o", "", JobState.IDLE, {HoldType.SYSTEM}, True),
    ("H", "uos", "", JobState.IDLE, {HoldType.USER, HoldType.SYSTEM}, True),
    ("H", "s", "afterok:9.srv", JobState.IDLE, set(), False),
    ("H", "us", "afterany:9.srv", JobState.IDLE, {HoldType.USER}, False),
    ("H", "s", "beforeok:9.srv", JobState.IDLE, {HoldType.SYSTEM}, True),
    ("H", "n", "", JobState.IDLE, {HoldType.BATCH}, True),
    ("W", "n", "", JobState.DEFERRED, {HoldType.DEFER}, True),
    ("T", "n", "", JobState.DEFERRED, {HoldType.DEFER}, True),
    ("S", "n", "", JobState.SUSPENDED, set(), True),
])
def test_states_and_holds(state, holds, depend, want_state, want_holds, deps_ok):
    extra = f"<depend>{depend}</depend>" + ("<exec_host>n1/0</exec_host>" if state == "S" else "")
    [t] = parse_qstat("<Data>" + job(state=state, holds=holds, extra=extra) + "</Data>", now=0)
    assert (t.job.state, t.job.holds, t.job.depends_satisfied) == (want_state, want_holds, deps_ok)


def test_exiting_job_holds_its_nodes_and_exec_host_ranges_count():
    extra = "<exec_host>n1/0-3,5+n2/0+n1/7</exec_host><start_time>50</start_time><Priority>-10</Priority>"
    [t] = parse_qstat("<Data>" + job(state="E", extra=extra,
                                     res="<nodes>2:ppn=3</nodes><pmem>1gb</pmem>") + "</Data>", now=99)
    assert t.job.state is JobState.RUNNING and t.job.start_time == 50 and t.priority == -10
    assert t.job.allocation == (("n1", Resources(6, 6 * 1024)), ("n2", Resources(1, 1024)))


def test_running_job_without_start_time_started_now():
    [t] = parse_qstat("<Data>" + job(state="R", extra="<exec_host>n1/0</exec_host>") + "</Data>", now=42)
    assert t.job.start_time == 42


# ------------------------------------------------------------------ node specs -> requests
def req(**res):
    return job_request({k: str(v) for k, v in res.items()}, node_names={"n01", "n02"})


def test_nodes_ppn_and_properties():
    r = req(nodes="2:ppn=4:fast:ib")
    assert (r.tasks, r.per_task, r.nodes, r.tasks_per_node) == (8, Resources(1), 2, 4)
    assert r.features == {"fast", "ib"} and not r.exclusive


def test_plus_groups_with_different_ppn_sum_tasks_over_all_nodes():
    r = req(nodes="2:ppn=4:fast+1:ppn=2")
    assert (r.tasks, r.per_task.procs, r.nodes, r.tasks_per_node, r.features) == (10, 1, 3, 0, {"fast"})


def test_gpus_per_task_when_ppn_divides_them_else_whole_node_tasks():
    r = req(nodes="2:ppn=2:gpus=2")
    assert (r.tasks, r.per_task, r.tasks_per_node) == (4, Resources.of(1, gpu=1), 2)
    r = req(nodes="2:ppn=4:gpus=1")
    assert (r.tasks, r.per_task, r.nodes, r.tasks_per_node) == (2, Resources.of(4, gpu=1), 2, 1)
    r = req(nodes="1:ppn=4:gpus=2+1:ppn=2")
    assert (r.tasks, r.per_task, r.nodes) == (2, Resources.of(4, gpu=2), 2)


def test_named_nodes_become_a_hostlist_and_unknown_words_properties():
    r = req(nodes="n01:ppn=2+n02:ppn=2")
    assert r.hostlist == ("n01", "n02") and (r.tasks, r.nodes) == (4, 2) and r.features == set()
    assert req(nodes="bigmem:ppn=2").features == {"bigmem"}


def test_procs_ncpus_memory_and_exclusive():
    assert req(procs=6) == JobRequest(tasks=6)
    assert req(ncpus=4, mem="2gb") == JobRequest(tasks=1, per_task=Resources(4, 2048), nodes=1)
    r = req(nodes="1:ppn=3", mem="1000mb", pmem="100mb")
    assert r.per_task.mem == 334  # mem over tasks (rounded up) beats pmem 100
    assert req(nodes="1:ppn=2", pmem="1gb").per_task.mem == 1024
    assert req(nodes="2#excl").exclusive and req(nodes="1", naccesspolicy="singlejob").exclusive
    assert req() == JobRequest()


@pytest.mark.parametrize("spec", ["", "0:ppn=2", "2:ppn=x", "2:ppn", "a b", "2#bogus", "2:gpus=-1", "+"])
def test_bad_node_specs(spec):
    with pytest.raises(ValueError):
        parse_nodes_spec(spec)


def test_qrun_host_list_merges_nodes_and_adds_gpus():
    alloc = (("n1", Resources(4)), ("n2", Resources.of(2, gpu=1)), ("n1", Resources(2)), ("n3", Resources(1)))
    assert qrun_hosts(alloc) == "n1:ppn=6+n2:ppn=2:gpus=1+n3"
    for bad in ((), (("n1+n2", Resources(1)),), (("a b", Resources(1)),), (("007", Resources(1)),)):
        with pytest.raises(ValueError):
            qrun_hosts(bad)


_words = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True).filter(lambda w: w not in ("ppn", "gpus"))
_groups = st.builds(
    NodeGroup, count=st.integers(1, 64), ppn=st.integers(1, 64), gpus=st.integers(0, 8),
    features=st.frozensets(_words, max_size=3), name=st.none(),
) | st.builds(NodeGroup, ppn=st.integers(1, 64), gpus=st.integers(0, 8),
              features=st.frozensets(_words, max_size=3), name=_words)


@given(st.builds(NodesSpec, groups=st.lists(_groups, min_size=1, max_size=4).map(tuple),
                 exclusive=st.booleans()))
def test_nodes_spec_round_trip(spec):
    assert parse_nodes_spec(format_nodes_spec(spec)) == spec


# ------------------------------------------------------------------ values
@pytest.mark.parametrize("text,mb", [("4gb", 4096), ("512mb", 512), ("100kb", 1), ("1048576", 1),
                                     ("1tb", 1024 * 1024), ("2GB", 2048), ("1kw", 1), ("3mb", 3)])
def test_sizes(text, mb):
    assert size_mb(text) == mb


def test_sizes_round_down_for_capacity_and_reject_junk():
    assert size_mb("24660000kb", round_up=False) == 24082 and size_mb("100kb", round_up=False) == 0
    for bad in ("", "4 gigs", "-1gb", "4xb"):
        with pytest.raises(ValueError):
            size_mb(bad)


@pytest.mark.parametrize("text,secs", [("01:00:00", 3600), ("3600", 3600), ("335:34:49", 1208089),
                                       ("5:30", 330), ("1:00:00:00", 86400), ("10.5", 10)])
def test_durations(text, secs):
    assert duration_s(text) == secs


def test_bad_durations_slots_and_job_lists():
    for bad in ("", "a:b", "1:2:3:4:5", "-5"):
        with pytest.raises(ValueError):
            duration_s(bad)
    for bad in ("", "3-1", "x"):
        with pytest.raises(ValueError):
            slot_count(bad)
    for bad in ("0/", "1,2"):
        with pytest.raises(ValueError):
            node_jobs(bad)
    with pytest.raises(ValueError):
        exec_host("/0")


def test_exec_host_and_node_job_lists():
    assert exec_host("n1/0+n1/1+n2/0-3") == (("n1", 2), ("n2", 4))
    assert exec_host("n1") == (("n1", 1),)
    assert node_jobs("0/12.srv, 1/12.srv, 2/13.srv") == {"12.srv": 2, "13.srv": 1}
    assert node_jobs("0-3/12.srv,4,6/13.srv") == {"12.srv": 4, "13.srv": 2}


def test_status_fields_keep_commas_in_free_text():
    f = status_fields("rectime=1,uname=Linux n1 2.6 #1 SMP, x86_64,opsys=linux,nsessions=? 0")
    assert f["uname"] == "Linux n1 2.6 #1 SMP, x86_64" and f["opsys"] == "linux"
