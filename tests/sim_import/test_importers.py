"""Importers of real accounting (maui_py/sim/importers): sacct -P, jobcomp/filetxt, Torque
accounting, sinfo / pbsnodes -x, and the replay and SWF conversion of what they produce.
Samples: tests/adapters/data/sacct, torque_accounting (see SOURCES.md there)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from maui_py.cli.whatif import main as whatif_main
from maui_py.sim.engine import Simulation
from maui_py.cfg import SchedulerConfig
from maui_py.sim.importers import load_workload, sniff
from maui_py.sim.importers.nodes import parse_sinfo_text, read_cluster
from maui_py.sim.importers.slurm import SACCT_FIELDS, parse_jobcomp, parse_sacct
from maui_py.sim.importers.torque import parse_accounting
from maui_py.sim.importers.workload import (ImportLineWarning, from_json, replayable, to_json,
                                            to_sim_jobs)
from maui_py.sim.swf import read_swf

DATA = Path(__file__).resolve().parents[1] / "adapters" / "data"
SACCT = DATA / "sacct" / "sacct-P.txt"
JOBCOMP = DATA / "sacct" / "jobcomp-filetxt.txt"
SINFO = DATA / "sacct" / "sinfo-N.txt"
TORQUE_LIVE = DATA / "torque_accounting" / "20261124-live"
TORQUE_MORE = DATA / "torque_accounting" / "20261110-constructed"


def _quiet_load(paths, fmt=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ImportLineWarning)
        return load_workload(paths, fmt)


def test_sacct_keeps_credentials_and_shapes():
    w = _quiet_load([SACCT])
    jobs = {j.id: j for j in w.jobs}
    assert set(jobs) == {"101", "102", "103_0", "103_1", "103_2", "106", "107", "108", "109",
                         "110", "112"}
    bob = jobs["102"]
    assert (bob.user, bob.group, bob.account, bob.class_, bob.qos) == ("bob", "chem", "proj-b", "batch", "high")
    assert (bob.procs, bob.nodes, bob.mem_mb, bob.wallclock, bob.features) == (16, 2, 4000, 7200, ("fast",))
    assert jobs["106"].gres == (("gpu", 2),) and jobs["106"].mem_mb == 16384
    assert jobs["103_1"].array_id == "103"
    assert jobs["108"].features == ("fast", "ib") and jobs["108"].wallclock == 0   # Partition_Limit
    assert jobs["112"].features == ()                                  # 'fast|slow' alternatives
    assert jobs["110"].start - jobs["110"].submit == 123              # the requeued job's last run
    assert w.skipped["job step row (the allocation row holds the job)"] == 3
    assert w.skipped["earlier record of a requeued job (sacct -D)"] == 1
    assert w.skipped["constraint with alternatives not kept"] == 1
    assert w.skipped["malformed line"] == 2


def test_sacct_malformed_lines_warn_with_file_and_line():
    with pytest.warns(ImportLineWarning) as caught:
        parse_sacct(SACCT.read_text(), "site.txt")
    messages = [str(w.message) for w in caught]
    assert any(m.startswith("site.txt:16: ") for m in messages)
    assert any(m.startswith("site.txt:18: ") and "bad timestamp" in m for m in messages)


def test_sacct_without_header_uses_the_documented_columns_and_bounds_sizes():
    row = ["7", "7", "j", "eve", "g", "acct", "batch", "normal", "2026-11-02T08:00:00",
           "2026-11-02T08:00:00", "2026-11-02T08:00:10", "2026-11-02T08:01:10", "00:05:00",
           "1", "2", "", "cpu=2,mem=1G,node=1", "", "node1", "COMPLETED", "0:0", ""]
    assert len(row) == len(SACCT_FIELDS)
    huge = list(row)
    huge[0] = huge[1] = "8"
    huge[14] = "99999999999"
    with pytest.warns(ImportLineWarning, match=r"x:2: .*NCPUS"):
        w = parse_sacct("|".join(row) + "\n" + "|".join(huge) + "\n", "x")
    (j,) = w.jobs
    assert (j.user, j.procs, j.mem_mb, j.runtime, j.wallclock) == ("eve", 2, 1024, 60, 300)


def test_replay_leaves_out_what_never_ran_and_arrives_at_eligibility():
    w = _quiet_load([SACCT])
    jobs, left_out = replayable(w)
    assert left_out == {"never started (cancelled or still queued)": 1,
                        "no end (running when the log was read)": 1}
    sims = {s.job.id: s for s in to_sim_jobs(jobs)}
    assert "107" not in sims and "109" not in sims
    j108 = sims["108"]
    assert j108.job.submit_time == next(j.eligible for j in jobs if j.id == "108")
    assert j108.job.wallclock == j108.runtime == 600        # no limit known: the runtime
    assert sims["102"].job.request.nodes == 2 and sims["102"].job.request.per_task.procs == 8
    late = {s.job.id: s for s in to_sim_jobs(jobs, eligible_arrival=False)}
    assert late["108"].job.submit_time < j108.job.submit_time


def test_sacct_workload_replays_on_the_sinfo_cluster():
    w = _quiet_load([SACCT])
    with pytest.warns(ImportLineWarning, match="sinfo-N.txt:8: "):
        w.nodes = read_cluster(SINFO)
    jobs, _ = replayable(w)
    result = Simulation(w.nodes, to_sim_jobs(jobs), SchedulerConfig.default()).run()
    assert result.check.ok and not result.unfinished
    assert {r.job.user for r in result.records.values()} == {"alice", "bob", "carol", "dave"}
    gpu = result.records["106"]
    assert gpu.nodes == ("node4",)                         # the only node with gpus
    assert set(result.records["108"].nodes) <= {"node1", "node2"}   # feature fast


def test_jobcomp_filetxt():
    with pytest.warns(ImportLineWarning) as caught:
        w = parse_jobcomp(JOBCOMP.read_text(), "jobcomp.log")
    assert sorted(str(c.message).split(":")[1] for c in caught) == ["6", "7"]
    jobs = {j.id: j for j in w.jobs}
    assert set(jobs) == {"201", "202", "204_1", "206", "207"}
    assert jobs["202"].name == "run lr=0.1" and jobs["202"].qos == "high"
    assert (jobs["201"].user, jobs["201"].group) == ("alice", "phys")
    assert jobs["206"].start is None                       # cancelled while pending
    assert jobs["207"].gres == (("gpu", 2),) and jobs["207"].wallclock == 0
    assert sniff(JOBCOMP) == "jobcomp" and sniff(SACCT) == "sacct"


def test_torque_live_log():
    w = _quiet_load([TORQUE_LIVE])
    jobs = {j.id: j for j in w.jobs}
    assert jobs["0.vm"].user == "mauitorque" and jobs["0.vm"].runtime == 6
    assert (jobs["1.vm"].procs, jobs["1.vm"].nodes, jobs["1.vm"].state) == (6, 3, "DELETED")
    assert jobs["2.vm"].start is None                       # deleted while queued
    kept, left = replayable(w)
    assert sorted(j.id for j in kept) == ["0.vm", "1.vm", "3[1].vm"]
    assert left["never started (cancelled or still queued)"] == len(w.jobs) - 3


def test_torque_constructed_log_reruns_gpus_and_malformed_lines():
    text = TORQUE_MORE.read_text()
    with pytest.warns(ImportLineWarning, match="acct.log:15: "):
        w = parse_accounting([("acct.log", text)])
    jobs = {j.id: j for j in w.jobs}
    bob = jobs["101.head"]
    assert bob.gres == (("gpu", 2),) and bob.features == ("fast",)
    assert bob.start == 1794301920 and bob.runtime == 3600     # the run after the rerun
    assert w.skipped["rerun of a job (R record): earlier runs not replayed"] == 1
    assert jobs["100.head"].account == "proj-a" and jobs["100.head"].mem_mb == 4096
    assert jobs["103.head"].procs == 12 and jobs["103.head"].nodes == 2
    assert jobs["104.head"].state == "ABORTED" and jobs["104.head"].start is None
    assert jobs["105.head"].end is None


def test_node_listings():
    with pytest.warns(ImportLineWarning, match=r"s.txt:8: "):
        nodes = parse_sinfo_text(SINFO.read_text(), "s.txt")
    by = {n.name: n for n in nodes}
    assert list(by) == ["node1", "node2", "node3", "node4"]
    assert by["node1"].partitions == {"batch", "debug"} and by["node4"].resources.gres_count("gpu") == 2
    assert len(read_cluster(DATA / "torque" / "torque-pbsnodes-x.xml")) == 64
    assert all(n.state.usable for n in read_cluster(DATA / "slurm" / "sinfo-live.json"))


def test_workload_json_roundtrip():
    w = _quiet_load([SACCT])
    with pytest.warns(ImportLineWarning):
        w.nodes = read_cluster(SINFO)
    back = from_json(to_json(w))
    assert back.jobs == w.jobs and back.nodes == w.nodes and back.skipped == w.skipped


def test_convert_writes_swf_with_the_name_tables(tmp_path, capsys):
    out = tmp_path / "site.swf"
    assert whatif_main(["convert", str(SACCT), "-o", str(out)]) == 0
    header, records = read_swf(out)
    w = _quiet_load([SACCT])
    assert len(records) == len(w.jobs)
    ran = [r for r in records if r.runtime > 0]
    assert sorted(r.runtime for r in ran) == sorted(j.runtime for j in w.jobs if j.ran)
    assert "user 1 = alice" in header.get("Note")
    assert int(header.get("UnixStartTime")) == min(j.submit for j in w.jobs)
    assert whatif_main(["convert", str(tmp_path / "missing"), "-o", str(out)]) == 2


def test_live_captures_of_sacct_and_jobcomp_agree_and_replay():
    """The outputs tests/whatif/test_accounting_live.py captured from a real slurmdbd."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ImportLineWarning)       # real output: nothing malformed
        acct = parse_sacct((DATA / "sacct" / "sacct-live.txt").read_text(), "sacct-live")
        comp = parse_jobcomp((DATA / "sacct" / "jobcomp-live.txt").read_text(), "jobcomp-live")
        nodes = parse_sinfo_text((DATA / "sacct" / "sinfo-N-live.txt").read_text(), "sinfo")
    a = {j.id: j for j in acct.jobs}
    c = {j.id: j for j in comp.jobs}
    assert len(a) == 31 and set(a) == set(c)
    for jid, j in a.items():
        if j.ran:
            k = c[jid]
            assert (j.user, j.account, j.qos, j.class_, j.procs, j.nodes, j.start, j.end, j.wallclock) == \
                (k.user, k.account, k.qos, k.class_, k.procs, k.nodes, k.start, k.end, k.wallclock)
    assert {j.user for j in acct.jobs} == {"whatif-a", "whatif-b", "whatif-c"}
    assert sum(1 for j in acct.jobs if j.gres == (("gpu", 1),)) == 6
    cancelled = [j for j in acct.jobs if not j.ran]
    assert len(cancelled) == 1 and cancelled[0].state == "CANCELLED" and cancelled[0].procs == 32
    jobs, _ = replayable(acct)
    result = Simulation(tuple(nodes), to_sim_jobs(jobs), SchedulerConfig.default()).run()
    assert result.check.ok and not result.unfinished and len(result.records) == 30
